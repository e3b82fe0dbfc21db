// A row group's declared sizes and counts, checked against the file's bytes before hyparquet
// decodes it. hyparquet allocates what the file declares — an uncompressed page of
// uncompressed_page_size bytes, arrays of num_values levels, a row object per num_rows — so
// a 10 KB file claiming a 2 GB page or 2^31 rows would take gigabytes or minutes. Every claim
// is held against what the bytes can hold (the file's length, the column chunk's extent, the
// Snappy stream's and the Zstandard frame's own lengths, a codec's largest ratio, the width of
// a value, the other counts it must agree with); a lie fails the job as corrupt_document,
// naming the field. Only page headers and the first bytes of a page are read here.
import type { ColumnMetaData, PageHeader, RowGroup, SchemaElement, SchemaTree } from 'hyparquet';
import { parquetHeader } from 'hyparquet/src/column.js';
import { excerpt } from '../kit/reasons.js';
import { ExtractionError } from '../kit/types.js';
import type { FileAsyncBuffer } from './file.js';

/** A leaf column: where its values sit in the schema, and how many levels they carry. */
export interface LeafColumn {
  element: SchemaElement;
  maxDefinitionLevel: number;
  maxRepetitionLevel: number;
}

/** What a row group that passed the checks will take to decode. */
export interface RowGroupShape {
  rows: number;
  /** Values (level entries) of all its column chunks. */
  values: number;
  /** Bytes of its column chunks as stored. */
  compressedBytes: number;
  /** Bytes of all its pages uncompressed. */
  pageBytes: number;
}

/** Leaf columns by dotted path, with their definition and repetition levels. */
export function leafColumns(tree: SchemaTree): Map<string, LeafColumn> {
  const out = new Map<string, LeafColumn>();
  const walk = (node: SchemaTree, def: number, rep: number) => {
    for (const child of node.children) {
      const r = child.element.repetition_type;
      const d = def + (r === 'OPTIONAL' || r === 'REPEATED' ? 1 : 0);
      const p = rep + (r === 'REPEATED' ? 1 : 0);
      if (child.children.length) walk(child, d, p);
      else out.set(child.path.join('.'), { element: child.element, maxDefinitionLevel: d, maxRepetitionLevel: p });
    }
  };
  walk(tree, 0, 0);
  return out;
}

class Damaged extends ExtractionError {
  constructor(where: string, what: string) {
    super(`The Parquet file is damaged: ${where}: ${what}.`, 'corrupt_document');
  }
}

const isCount = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;

/** A count or size the file declares (`name`, as the Parquet format calls it); corrupt_document when it is missing or no count. */
function declared(value: unknown, name: string, where: string): number {
  if (value === undefined || value === null) throw new Damaged(where, `it gives no ${name}`);
  const n = typeof value === 'bigint' ? Number(value) : value;
  if (!isCount(n)) {
    // A number is quoted; anything else (bytes where a number belongs) is described, never dumped.
    if (typeof n === 'number') throw new Damaged(where, `${name} ${n} is not a count of bytes or values`);
    throw new Damaged(where, `${name} holds ${Array.isArray(value) || ArrayBuffer.isView(value) ? 'bytes' : 'other data'}, not a count of bytes or values`);
  }
  return n;
}

/**
 * Checks row group `index` and its pages. `dataEnd` is where the pages must end: the
 * footer's start. Throws corrupt_document naming the first field that lies.
 */
export async function checkRowGroup(
  file: FileAsyncBuffer,
  group: RowGroup,
  index: number,
  columns: Map<string, LeafColumn>,
  dataEnd: number,
): Promise<RowGroupShape> {
  const rows = declared(group.num_rows, 'num_rows', `row group ${index}`);
  if (!Array.isArray(group.columns) || group.columns.length !== columns.size) {
    const have = Array.isArray(group.columns) ? group.columns.length : 'no';
    throw new Damaged(`row group ${index}`, `it has ${have} column chunks for the schema's ${columns.size} columns`);
  }
  const shape: RowGroupShape = { rows, values: 0, compressedBytes: 0, pageBytes: 0 };
  for (const chunk of group.columns) {
    const meta = chunk.meta_data;
    if (!meta || !Array.isArray(meta.path_in_schema)) throw new Damaged(`row group ${index}`, 'a column chunk has no meta_data naming its column');
    const path = meta.path_in_schema.join('.');
    const where = `row group ${index}, column '${excerpt(path)}'`;
    const column = columns.get(path);
    if (!column) throw new Damaged(where, 'path_in_schema names no column of the schema');
    const values = declared(meta.num_values, 'num_values', where);
    // Every row holds one level entry per column; a repeated column may hold more.
    if (column.maxRepetitionLevel === 0 ? values !== rows : values < rows) {
      throw new Damaged(`row group ${index}`, `it declares ${rows} rows (num_rows), but its column '${excerpt(path)}' holds ${values} values (num_values)`);
    }
    const start = declared(meta.dictionary_page_offset || meta.data_page_offset, 'data_page_offset', where);
    const size = declared(meta.total_compressed_size, 'total_compressed_size', where);
    if (start < 4 || start + size > dataEnd) {
      throw new Damaged(
        where,
        `its pages (data_page_offset ${start}, total_compressed_size ${size}) run to byte ${start + size}, past the end of the data at byte ${dataEnd}`,
      );
    }
    const pages = await checkPages(new PageCursor(file, start + size), start, meta, column, where);
    if (pages.values !== values) throw new Damaged(where, `it declares ${values} values (num_values), but its pages hold ${pages.values}`);
    if (pages.v2Rows !== null && pages.v2Rows !== rows)
      throw new Damaged(where, `its pages hold ${pages.v2Rows} rows, but the row group declares ${rows} (num_rows)`);
    shape.values += values;
    shape.compressedBytes += size;
    shape.pageBytes += pages.bytes;
  }
  return shape;
}

/** Bytes of a column chunk read through a window, so small pages cost one read between them. */
class PageCursor {
  private static readonly WINDOW = 256 * 1024;
  private bytes = new Uint8Array(0);
  private from = 0;

  constructor(
    private readonly file: FileAsyncBuffer,
    readonly end: number,
  ) {}

  /** Up to `want` bytes from `pos`, fewer at the chunk's end. */
  async view(pos: number, want: number): Promise<DataView> {
    const until = Math.min(this.end, pos + want);
    if (pos < this.from || until > this.from + this.bytes.length) {
      const len = Math.min(this.end - pos, Math.max(want, PageCursor.WINDOW));
      this.bytes = new Uint8Array(await this.file.slice(pos, pos + len));
      this.from = pos;
    }
    return new DataView(this.bytes.buffer, this.bytes.byteOffset + pos - this.from, Math.min(until, this.from + this.bytes.length) - pos);
  }
}

/** Largest page header read (headers carry statistics: two values of a column, usually short). */
const MAX_HEADER_BYTES = 16 * 1024 * 1024;

async function readHeader(cursor: PageCursor, pos: number, where: string): Promise<{ header: PageHeader; length: number }> {
  for (let want = 4096; ; want *= 8) {
    const view = await cursor.view(pos, want);
    try {
      const reader = { view, offset: 0 };
      const header = parquetHeader(reader);
      return { header, length: reader.offset };
    } catch (err) {
      // Ran off the window: read more, unless the window already held all there is.
      const ranOff = err instanceof RangeError || /exceeds remaining|ended without STOP/.test(String((err as Error)?.message));
      if (!ranOff || view.byteLength < want || want >= MAX_HEADER_BYTES) throw new Damaged(where, `the page header at byte ${pos} cannot be read`);
    }
  }
}

interface PagesSeen {
  /** Level entries of the data pages (num_values). */
  values: number;
  /** Rows of the data pages when all are version 2 (num_rows), else null. */
  v2Rows: number | null;
  /** Uncompressed bytes of all pages. */
  bytes: number;
}

async function checkPages(cursor: PageCursor, start: number, meta: ColumnMetaData, column: LeafColumn, where: string): Promise<PagesSeen> {
  const seen: PagesSeen = { values: 0, v2Rows: 0, bytes: 0 };
  const chunkUncompressed = Number(meta.total_uncompressed_size);
  for (let pos = start; pos < cursor.end;) {
    const { header, length } = await readHeader(cursor, pos, where);
    const page = `${where}, page at byte ${pos}`;
    const dataStart = pos + length;
    const stored = declared(header.compressed_page_size, 'compressed_page_size', page);
    const size = declared(header.uncompressed_page_size, 'uncompressed_page_size', page);
    if (dataStart + stored > cursor.end) {
      throw new Damaged(page, `compressed_page_size ${stored} runs past the end of its column chunk (total_compressed_size) at byte ${cursor.end}`);
    }
    if (isCount(chunkUncompressed) && size > chunkUncompressed) {
      throw new Damaged(page, `uncompressed_page_size ${size} is larger than its whole column chunk (total_uncompressed_size ${chunkUncompressed})`);
    }
    if (header.type === 'DICTIONARY_PAGE' || header.type === 'DATA_PAGE' || header.type === 'DATA_PAGE_V2') {
      await checkPage(cursor, header, dataStart, meta.codec, column, page, seen);
    }
    seen.bytes += size;
    pos = dataStart + stored;
  }
  return seen;
}

async function checkPage(
  cursor: PageCursor,
  header: PageHeader,
  dataStart: number,
  codec: string,
  column: LeafColumn,
  page: string,
  seen: PagesSeen,
): Promise<void> {
  const size = header.uncompressed_page_size;
  // Levels of a version 2 page come first and are never compressed.
  let levels = 0;
  let compressed = codec !== 'UNCOMPRESSED';
  if (header.type === 'DICTIONARY_PAGE') {
    const dict = header.dictionary_page_header;
    if (!dict) throw new Damaged(page, 'it gives no dictionary_page_header');
    const entries = declared(dict.num_values, 'num_values', page);
    if ((dict.encoding === 'PLAIN' || dict.encoding === 'PLAIN_DICTIONARY') && entries > valuesFitting(size, column.element)) {
      throw new Damaged(page, `its dictionary declares ${entries} entries (num_values), more than its ${size} bytes can hold`);
    }
  } else if (header.type === 'DATA_PAGE') {
    const data = header.data_page_header;
    if (!data) throw new Damaged(page, 'it gives no data_page_header');
    const values = declared(data.num_values, 'num_values', page);
    seen.values += values;
    seen.v2Rows = null;
    // Without levels every value is stored: PLAIN values have a width.
    if (column.maxDefinitionLevel === 0 && column.maxRepetitionLevel === 0 && data.encoding === 'PLAIN' && values > valuesFitting(size, column.element)) {
      throw new Damaged(page, `it declares ${values} values (num_values), more than its ${size} bytes can hold`);
    }
  } else {
    const data = header.data_page_header_v2;
    if (!data) throw new Damaged(page, 'it gives no data_page_header_v2');
    const values = declared(data.num_values, 'num_values', page);
    const nulls = declared(data.num_nulls, 'num_nulls', page);
    const rows = declared(data.num_rows, 'num_rows', page);
    if (nulls > values || rows > values) throw new Damaged(page, `its counts disagree (num_values ${values}, num_nulls ${nulls}, num_rows ${rows})`);
    levels =
      declared(data.definition_levels_byte_length, 'definition_levels_byte_length', page) +
      declared(data.repetition_levels_byte_length, 'repetition_levels_byte_length', page);
    if (levels > size || levels > header.compressed_page_size) {
      throw new Damaged(page, `its levels (definition_levels_byte_length + repetition_levels_byte_length: ${levels} bytes) are longer than the page`);
    }
    seen.values += values;
    if (seen.v2Rows !== null) seen.v2Rows += rows;
    if (data.is_compressed === false) compressed = false;
    if (data.encoding === 'PLAIN' && values - nulls > valuesFitting(size - levels, column.element)) {
      throw new Damaged(page, `it declares ${values - nulls} values (num_values − num_nulls), more than its ${size - levels} bytes of values can hold`);
    }
  }
  const stored = { at: dataStart + levels, bytes: header.compressed_page_size - levels };
  const truth = await payloadSize(cursor, stored, size - levels, compressed ? codec : 'UNCOMPRESSED');
  if (truth) {
    throw new Damaged(page, `uncompressed_page_size ${size} does not match its data: ${truth}${levels ? ` (after ${levels} bytes of levels)` : ''}`);
  }
}

/** How many values of this column `bytes` hold at most, stored PLAIN. */
function valuesFitting(bytes: number, el: SchemaElement): number {
  switch (el.type) {
    case 'BOOLEAN':
      return bytes * 8;
    case 'INT32':
    case 'FLOAT':
      return Math.floor(bytes / 4);
    case 'INT64':
    case 'DOUBLE':
      return Math.floor(bytes / 8);
    case 'INT96':
      return Math.floor(bytes / 12);
    case 'BYTE_ARRAY':
      // Each value starts with its 4-byte length.
      return Math.floor(bytes / 4);
    case 'FIXED_LEN_BYTE_ARRAY':
      return el.type_length ? Math.floor(bytes / el.type_length) : Infinity;
    default:
      return Infinity;
  }
}

/** DEFLATE's and LZ4's largest ratios of uncompressed to compressed bytes (plus framing). */
const MAX_RATIO: Record<string, number> = { GZIP: 1032, LZ4: 255, LZ4_RAW: 255 };

/**
 * The page's stored bytes against the `size` it declares uncompressed: equal when stored as
 * they are, the length a Snappy stream or a Zstandard frame states at its start, within a
 * codec's largest ratio. Returns what the bytes say when they disagree, else null. (Brotli
 * states nothing and has no useful ratio: its pages are bounded by their column chunk and
 * the task's memory budget.)
 */
async function payloadSize(cursor: PageCursor, stored: { at: number; bytes: number }, size: number, codec: string): Promise<string | null> {
  if (codec === 'UNCOMPRESSED') return size === stored.bytes ? null : `${stored.bytes} bytes are stored uncompressed`;
  if (stored.bytes === 0) return size === 0 ? null : 'it stores no bytes';
  if (codec === 'SNAPPY') {
    const length = snappyLength(await cursor.view(stored.at, Math.min(stored.bytes, 5)));
    if (length === null) return 'its Snappy data states no length';
    return length === size ? null : `its Snappy data decompresses to ${length} bytes`;
  }
  if (codec === 'ZSTD') {
    const length = zstdContentSize(await cursor.view(stored.at, Math.min(stored.bytes, 18)));
    return length === null || length === size ? null : `its Zstandard frame holds ${length} bytes`;
  }
  const ratio = MAX_RATIO[codec];
  const most = stored.bytes * ratio + 1024;
  return !ratio || size <= most ? null : `${stored.bytes} bytes of ${codec} data decompress to ${most} at most`;
}

/** The uncompressed length a Snappy stream starts with (a varint), or null. */
function snappyLength(view: DataView): number | null {
  let value = 0;
  for (let i = 0; i < view.byteLength && i < 5; i++) {
    const b = view.getUint8(i);
    value += (b & 0x7f) * 2 ** (7 * i);
    if (!(b & 0x80)) return value;
  }
  return null;
}

/** The content size a Zstandard frame header states, or null when it states none. */
function zstdContentSize(view: DataView): number | null {
  if (view.byteLength < 6 || view.getUint32(0, true) !== 0xfd2fb528) return null;
  const descriptor = view.getUint8(4);
  const sizeFlag = descriptor >> 6;
  const singleSegment = (descriptor >> 5) & 1;
  const dictionaryBytes = [0, 1, 2, 4][descriptor & 3];
  const sizeBytes = sizeFlag === 0 ? singleSegment : 1 << sizeFlag;
  if (!sizeBytes) return null;
  const at = 5 + (singleSegment ? 0 : 1) + dictionaryBytes;
  if (at + sizeBytes > view.byteLength) return null;
  let size = 0;
  for (let i = 0; i < sizeBytes; i++) size += view.getUint8(at + i) * 2 ** (8 * i);
  return sizeBytes === 2 ? size + 256 : size;
}

/** Bytes a level entry takes decoded (a slot in a JS array, a level array beside it). */
const BYTES_PER_VALUE = 16;
/** Bytes a row object takes, and each of its properties. */
const BYTES_PER_ROW = 48;
const BYTES_PER_FIELD = 8;

/**
 * The least memory decoding a row group takes: hyparquet holds its chunks as stored and its
 * pages uncompressed, an array slot (and level entries) per value, and a row object of the
 * top-level columns per row until the whole group is assembled.
 */
export function decodeBytes(shape: RowGroupShape, topColumns: number): number {
  return shape.compressedBytes + shape.pageBytes + shape.values * BYTES_PER_VALUE + shape.rows * (BYTES_PER_ROW + topColumns * BYTES_PER_FIELD);
}
