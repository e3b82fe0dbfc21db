// Parquet files whose declared sizes and counts lie about their bytes (issue 27): small valid
// files written with hyparquet-writer, then rewritten page by page with one field changed, so
// everything else (offsets, lengths, the footer) stays consistent and only the lie is left.
// Each of these once drove the parsing process to gigabytes or to its task timeout in
// MetadataPlusRows; they are refused before anything is allocated.
import zlib from 'node:zlib';
import { ByteWriter, parquetWriteBuffer } from 'hyparquet-writer';
import { writeMetadata } from 'hyparquet-writer/src/metadata.js';
import { writePageHeader } from 'hyparquet-writer/src/datapage.js';
import { snappyCompress } from 'hyparquet-writer/src/snappy.js';
import { parquetMetadata, snappyUncompress } from 'hyparquet';
import { decompressZstd } from 'hyparquet-compressors';
import { parquetHeader } from 'hyparquet/src/column.js';

const INT32_MAX = 2_147_483_647;
const MAGIC = new TextEncoder().encode('PAR1');

/**
 * A Zstandard frame that stores `bytes` in raw blocks: no compression (Node 20 has no
 * Zstandard encoder), but a real frame, content size in its header, that any decoder reads.
 */
export function zstdStored(bytes) {
  const BLOCK = 128 * 1024;
  const parts = [Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0xe0]), Buffer.from(new BigUint64Array([BigInt(bytes.length)]).buffer)];
  for (let at = 0; at < bytes.length || at === 0; at += BLOCK) {
    const block = bytes.subarray(at, at + BLOCK);
    const last = at + BLOCK >= bytes.length ? 1 : 0;
    const header = (block.length << 3) | last; // block type 0: raw
    parts.push(Buffer.from([header & 0xff, (header >> 8) & 0xff, (header >> 16) & 0xff]), Buffer.from(block));
    if (last) break;
  }
  return Buffer.concat(parts);
}

const CODECS = {
  UNCOMPRESSED: { compress: (b) => b, uncompress: (b) => b },
  SNAPPY: {
    compress: snappyCompress,
    uncompress: (b, size) => {
      const out = new Uint8Array(size);
      snappyUncompress(b, out);
      return out;
    },
  },
  GZIP: { compress: (b) => zlib.gzipSync(b), uncompress: (b) => zlib.gunzipSync(b) },
  ZSTD: { compress: zstdStored, uncompress: (b) => decompressZstd(b) },
};

/**
 * A DATA_PAGE_V2 (what hyparquet-writer writes) as the equivalent version 1 DATA_PAGE (what
 * most writers, Arrow's and parquet-mr's among them, write): levels with their 4-byte length
 * prefixes and values, compressed together.
 */
function toVersion1(header, data, codec) {
  const v2 = header.data_page_header_v2;
  const rep = data.subarray(0, v2.repetition_levels_byte_length);
  const def = data.subarray(rep.length, rep.length + v2.definition_levels_byte_length);
  let values = data.subarray(rep.length + def.length);
  if (v2.is_compressed !== false) values = CODECS[codec].uncompress(values, header.uncompressed_page_size - rep.length - def.length);
  const prefixed = (levels) => (levels.length ? [Buffer.from(Uint32Array.of(levels.length).buffer), levels] : []);
  const raw = Buffer.concat([...prefixed(rep), ...prefixed(def), values]);
  const page = Buffer.from(CODECS[codec].compress(raw));
  return {
    header: {
      type: 'DATA_PAGE',
      uncompressed_page_size: raw.length,
      compressed_page_size: page.length,
      data_page_header: { num_values: v2.num_values, encoding: v2.encoding, definition_level_encoding: 'RLE', repetition_level_encoding: 'RLE' },
    },
    data: page,
  };
}

/**
 * `bytes` (a Parquet file) written again page by page: `page(header, data, where)` may return
 * a changed `{ header, data }` for a page, `rowGroup(group, index)` may change a row group's
 * footer entry; `pageVersion: 1` turns version 2 data pages into version 1 ones first.
 * Offsets and compressed sizes are recomputed; page statistics, column/offset indexes and
 * bloom filters are dropped (they would point at the old layout).
 */
export function rewriteParquet(bytes, { page = () => undefined, rowGroup = () => {}, pageVersion = 2 } = {}) {
  const buf = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  const metadata = parquetMetadata(buf);
  const w = new ByteWriter();
  w.appendBytes(MAGIC);
  metadata.row_groups.forEach((group, gi) => {
    const groupStart = w.offset;
    for (const chunk of group.columns) {
      const m = chunk.meta_data;
      const start = Number(m.dictionary_page_offset ? m.dictionary_page_offset : m.data_page_offset);
      const end = start + Number(m.total_compressed_size);
      const reader = { view: new DataView(buf, start, end - start), offset: 0 };
      const chunkStart = w.offset;
      let uncompressed = 0;
      m.dictionary_page_offset = undefined;
      m.data_page_offset = undefined;
      while (reader.offset < end - start) {
        let header = parquetHeader(reader);
        let data = new Uint8Array(buf, start + reader.offset, header.compressed_page_size);
        reader.offset += header.compressed_page_size;
        if (pageVersion === 1 && header.type === 'DATA_PAGE_V2') ({ header, data } = toVersion1(header, data, m.codec));
        const out = page(header, data, { rowGroup: gi, column: m.path_in_schema.join('.') }) ?? { header, data };
        if (out.header.type === 'DICTIONARY_PAGE') m.dictionary_page_offset = BigInt(w.offset);
        else m.data_page_offset ??= BigInt(w.offset);
        const headerStart = w.offset;
        writePageHeader(w, out.header);
        // The truth, whatever the header now says.
        uncompressed += w.offset - headerStart + header.uncompressed_page_size;
        w.appendBytes(out.data);
      }
      m.total_compressed_size = BigInt(w.offset - chunkStart);
      m.total_uncompressed_size = BigInt(uncompressed);
      m.statistics = undefined;
      m.bloom_filter_offset = m.bloom_filter_length = undefined;
      chunk.file_offset = BigInt(chunkStart);
      chunk.offset_index_offset = chunk.offset_index_length = chunk.column_index_offset = chunk.column_index_length = undefined;
    }
    group.file_offset = BigInt(groupStart);
    group.total_compressed_size = BigInt(w.offset - groupStart);
    rowGroup(group, gi);
  });
  writeMetadata(w, metadata);
  w.appendBytes(MAGIC);
  return Buffer.from(w.getBuffer());
}

/**
 * 400 rows of an id (required), a name (20 distinct: a dictionary) and a score in one row
 * group (a few KB); SNAPPY, GZIP, ZSTD (stored blocks) or UNCOMPRESSED.
 */
export function honestParquet({ codec = 'SNAPPY', rows = 400 } = {}) {
  const col = (f) => Array.from({ length: rows }, (_, i) => f(i));
  return Buffer.from(
    parquetWriteBuffer({
      columnData: [
        { name: 'id', data: col((i) => i), type: 'INT32', nullable: false },
        { name: 'name', data: col((i) => `name number ${i % 20} of a generated table`), type: 'STRING' },
        { name: 'score', data: col((i) => ((i * 7919) % 1000) / 10), type: 'DOUBLE' },
      ],
      codec,
      compressors: { GZIP: (bytes) => zlib.gzipSync(bytes), ZSTD: zstdStored },
      rowGroupSize: rows,
    }),
  );
}

/** The data page of column `score` claims uncompressed_page_size 2,147,483,647 (version 1 or 2 pages). */
export function lyingPageSize(codec = 'SNAPPY', pageVersion = 1) {
  return rewriteParquet(honestParquet({ codec }), {
    pageVersion,
    page: (header, data, where) =>
      where.column === 'score' && header.type !== 'DICTIONARY_PAGE' ? { header: { ...header, uncompressed_page_size: INT32_MAX }, data } : undefined,
  });
}

/** The row group (and the file) claims 2,147,483,647 rows; its pages hold 400. */
export function lyingRowCount() {
  const bytes = rewriteParquet(honestParquet(), {
    pageVersion: 1,
    rowGroup: (group) => {
      group.num_rows = BigInt(INT32_MAX);
    },
  });
  return withFileRows(bytes, INT32_MAX);
}

/** Column `name`'s dictionary page claims 2,147,483,647 entries. */
export function lyingDictionary() {
  return rewriteParquet(honestParquet({ codec: 'UNCOMPRESSED' }), {
    pageVersion: 1,
    page: (header, data, where) =>
      where.column === 'name' && header.type === 'DICTIONARY_PAGE'
        ? { header: { ...header, dictionary_page_header: { ...header.dictionary_page_header, num_values: INT32_MAX } }, data }
        : undefined,
  });
}

/** Column `id`'s chunk claims total_compressed_size 2,147,483,647: past the end of the file. */
export function lyingChunkSize() {
  return rewriteParquet(honestParquet(), {
    pageVersion: 1,
    rowGroup: (group) => {
      group.columns[0].meta_data.total_compressed_size = BigInt(INT32_MAX);
    },
  });
}

/**
 * Not a lie but a bomb: one nullable column of 2,147,483,647 rows, all null, every count in
 * agreement — its definition levels are one RLE run, so 50 bytes hold them all. Decoding it
 * would take hundreds of gigabytes: refused by the task's memory budget instead.
 */
export function nullBomb() {
  const bytes = rewriteParquet(Buffer.from(parquetWriteBuffer({ columnData: [{ name: 'missing', data: [null], type: 'INT32' }], codec: 'UNCOMPRESSED' })), {
    pageVersion: 1,
    page: (header) => {
      if (header.type !== 'DATA_PAGE') return undefined;
      // Definition levels (bit width 1): a 4-byte length, then one RLE run of value 0.
      const run = varint(INT32_MAX * 2);
      const levels = new Uint8Array([...run, 0]);
      const data = new Uint8Array(4 + levels.length);
      new DataView(data.buffer).setUint32(0, levels.length, true);
      data.set(levels, 4);
      const size = data.length;
      return {
        header: {
          ...header,
          uncompressed_page_size: size,
          compressed_page_size: size,
          data_page_header: { ...header.data_page_header, num_values: INT32_MAX },
        },
        data,
      };
    },
    rowGroup: (group) => {
      group.num_rows = BigInt(INT32_MAX);
      group.columns[0].meta_data.num_values = BigInt(INT32_MAX);
    },
  });
  return withFileRows(bytes, INT32_MAX);
}

/** The same file with the footer's num_rows set to `rows`. */
function withFileRows(bytes, rows) {
  const buf = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  const metadata = parquetMetadata(buf);
  metadata.num_rows = BigInt(rows);
  const footerStart = bytes.length - 8 - bytes.readUInt32LE(bytes.length - 8);
  const w = new ByteWriter();
  w.appendBytes(bytes.subarray(0, footerStart));
  writeMetadata(w, metadata);
  w.appendBytes(MAGIC);
  return Buffer.from(w.getBuffer());
}

function varint(n) {
  const out = [];
  while (n >= 0x80) {
    out.push((n % 0x80) | 0x80);
    n = Math.floor(n / 0x80);
  }
  out.push(n);
  return out;
}

/** The fuzzer's seeds (name, bytes), read with parquetMode=MetadataPlusRows (the lies are in the data pages). */
export function parquetLieSeeds() {
  const seeds = [
    { name: 'lie_page_size.snappy.parquet', bytes: lyingPageSize('SNAPPY') },
    { name: 'lie_page_size.gzip.parquet', bytes: lyingPageSize('GZIP') },
    { name: 'lie_page_size.v2.parquet', bytes: lyingPageSize('SNAPPY', 2) },
    { name: 'lie_row_count.parquet', bytes: lyingRowCount() },
    { name: 'lie_dictionary.parquet', bytes: lyingDictionary() },
    { name: 'lie_chunk_size.parquet', bytes: lyingChunkSize() },
    { name: 'bomb_null_rows.parquet', bytes: nullBomb() },
  ];
  return seeds.map((s) => ({ ...s, parquetMode: 'MetadataPlusRows' }));
}
