// Parquet family (one Document Unit per file), on hyparquet + hyparquet-compressors.
//
// MetadataOnly (default): only the footer is read — the last 8 bytes give its length, then
// exactly the footer; no data page is touched. MetadataPlusRows: everything above, then the
// rows, read row group by row group through a file-backed AsyncBuffer and written through
// the JsonWriter as they are rendered, so memory is bounded by one row group (a row group
// whose uncompressed size exceeds DOCPARSE_PARQUET_MAX_ROW_GROUP_BYTES fails with a clear reason).
// Before a row group is decoded its declared sizes and counts are checked against the file's
// bytes (declared-sizes.ts), and what decoding it takes against the task's memory budget.
// Content shape and value rendering: schema.ts (ParquetContent) and values.ts.
import { open, type FileHandle } from 'node:fs/promises';
import { parquetMetadataAsync, parquetRead, parquetSchema, type FileMetaData, type SchemaElement, type SchemaTree } from 'hyparquet';
import { markGeoColumns } from 'hyparquet/src/geoparquet.js';
import { compressors, decompressZstd } from 'hyparquet-compressors';
import type { JsonWriter } from '../kit/json-writer.js';
import { CompletenessCounter } from '../kit/completeness.js';
import type { Provenance } from '../kit/provenance.js';
import { ExtractionError, type FormatParser, type ParseInput, type ParseOutcome } from '../kit/types.js';
import { describeColumns, describeGeo, describeRowGroup, describeSchema, leaves } from './describe.js';
import { FileAsyncBuffer } from './file.js';
import { checkRowGroup, decodeBytes, leafColumns } from './declared-sizes.js';
import { countMetadataOnly, rowGroupProvenance, rowGroupSpans } from './provenance.js';
import { compileRenderer, PARSERS, readSchema, renderBigInt } from './values.js';

export { ParquetContent } from './schema.js';

const ENGINE = 'hyparquet 1.31 + hyparquet-compressors 1.1';
const MAGIC = Buffer.from('PAR1', 'latin1');
const MiB = 1024 * 1024;

/**
 * The decompressors, each writing into a buffer of the page's declared (and checked) size:
 * fzstd, left to itself, sizes its output from the Zstandard frame header instead.
 */
const DECOMPRESSORS = { ...compressors, ZSTD: (input: Uint8Array, length: number) => decompressZstd(input, new Uint8Array(length)) };

export interface ParquetFooter {
  file: FileAsyncBuffer;
  metadata: FileMetaData;
  footerSize: number;
}

/** Reads and decodes the footer only. */
export async function readFooter(fh: FileHandle, size: number): Promise<ParquetFooter> {
  if (size < 12) throw new ExtractionError(`not a Parquet file: ${size} bytes is too small to hold the PAR1 header, a footer and the PAR1 trailer`);
  const file = new FileAsyncBuffer(fh, size);
  const tail = Buffer.from(await file.slice(size - 8, size));
  const head = Buffer.from(await file.slice(0, 4));
  if (!tail.subarray(4).equals(MAGIC)) {
    throw new ExtractionError(
      tail.subarray(4).toString('latin1') === 'PARE'
        ? 'encrypted Parquet file (PARE footer): encrypted footers are not supported'
        : 'not a Parquet file: it does not end with the PAR1 magic (truncated or another format)',
    );
  }
  if (!head.equals(MAGIC)) throw new ExtractionError('not a Parquet file: it does not start with the PAR1 magic');
  const footerSize = tail.readUInt32LE(0);
  if (footerSize <= 0 || footerSize + 12 > size) {
    throw new ExtractionError(`malformed Parquet footer: its declared length ${footerSize} does not fit in the ${size}-byte file`);
  }
  let metadata: FileMetaData;
  try {
    metadata = await parquetMetadataAsync(file, { parsers: PARSERS, initialFetchSize: footerSize + 8, geoparquet: false } as never);
  } catch (err) {
    throw new ExtractionError('malformed Parquet footer: it could not be decoded (the file metadata is damaged).', 'extraction_failed', false, { cause: err });
  }
  if (!Array.isArray(metadata.schema) || metadata.schema.length < 1 || !Array.isArray(metadata.row_groups)) {
    throw new ExtractionError('malformed Parquet footer: no schema or row groups');
  }
  markGeoParquetColumns(metadata);
  return { file, metadata, footerSize };
}

/**
 * GeoParquet's WKB columns are read as geometries (hyparquet's own marking, called here rather
 * than inside its footer decoding): "geo" metadata that is not JSON, or not GeoParquet's
 * layout, leaves them as bytes with a warning (describeGeo) instead of failing the file.
 */
function markGeoParquetColumns(metadata: FileMetaData): void {
  try {
    markGeoColumns(metadata.schema, metadata.key_value_metadata);
  } catch {
    // describeGeo reads the same metadata and says what is wrong with it.
  }
}

function schemaTree(metadata: FileMetaData): SchemaTree {
  try {
    return parquetSchema(metadata);
  } catch (err) {
    throw new ExtractionError('malformed Parquet schema: it is damaged or inconsistent.', 'extraction_failed', false, { cause: err });
  }
}

export const parseParquet: FormatParser = async (input: ParseInput, w: JsonWriter): Promise<ParseOutcome> => {
  const mode = input.options.parquetMode === 'MetadataPlusRows' ? 'MetadataPlusRows' : 'MetadataOnly';
  const fh = await open(input.filePath, 'r');
  try {
    const size = (await fh.stat()).size;
    const { file, metadata, footerSize } = await readFooter(fh, size);
    const tree = schemaTree(metadata);
    const leafNodes = leaves(tree).filter((n) => n !== tree);
    const leafPaths = leafNodes.map((n) => n.path.join('.'));
    const leafEls = new Map<string, SchemaElement>(leafNodes.map((n) => [n.path.join('.'), n.element]));
    const { geo, wktColumns, warnings } = describeGeo(metadata, leafNodes);
    const codecs = new Set<string>();
    const encodings = new Set<string>();
    for (const g of metadata.row_groups) {
      for (const c of g.columns) {
        if (c.meta_data) {
          codecs.add(c.meta_data.codec);
          for (const e of c.meta_data.encodings) encodings.add(e);
        }
      }
    }
    const numRows = renderBigInt(BigInt(metadata.num_rows));
    const groupRowSum = metadata.row_groups.reduce((a, g) => a + BigInt(g.num_rows), 0n);
    if (groupRowSum !== BigInt(metadata.num_rows)) {
      warnings.push(`the footer says ${metadata.num_rows} rows but its row groups hold ${groupRowSum}`);
    }

    w.beginObject()
      .field('engine', ENGINE)
      .field('mode', mode)
      .field('fileSize', size)
      .field('footerSize', footerSize)
      .field('formatVersion', typeof metadata.version === 'number' ? metadata.version : null)
      .field('createdBy', metadata.created_by ?? null)
      .field('numRows', numRows)
      .field('numRowGroups', metadata.row_groups.length)
      .field('numColumns', leafNodes.length)
      .field('numSchemaElements', metadata.schema.length - 1)
      .field('codecs', [...codecs])
      .field('encodings', [...encodings])
      .field(
        'schema',
        tree.children.map((c) => describeSchema(c, wktColumns)),
      )
      .field('columns', describeColumns(metadata, leafNodes, wktColumns))
      .field(
        'keyValueMetadata',
        (metadata.key_value_metadata ?? []).map((kv) => ({ key: kv.key, value: kv.value ?? null })),
      )
      .field('geo', geo);
    await w.maybeFlush();
    const spans = rowGroupSpans(metadata.row_groups);
    const completeness = new CompletenessCounter();
    w.key('rowGroups').beginArray();
    for (let i = 0; i < metadata.row_groups.length; i++) {
      const provenance = rowGroupProvenance(input.within, i, spans[i].first, spans[i].rows);
      w.value({ ...describeRowGroup(metadata.row_groups[i], i, leafEls, leafPaths), provenance });
      await w.maybeFlush();
    }
    w.endArray();

    let rowsWritten = 0;
    // One entry per row group read: which rows of the file `rows` holds (a provenance per row
    // would repeat the row group beside every row of a million-row file).
    const rowsProvenance: Provenance[] = [];
    if (mode === 'MetadataOnly') countMetadataOnly(completeness, input.within, spans);
    else {
      completeness.emitted('rowGroups', metadata.row_groups.length).kind('rows');
      const readMetadata: FileMetaData = { ...metadata, schema: readSchema(metadata.schema) };
      const top = tree.children.map((node) => [node.element.name, compileRenderer(node, wktColumns)] as const);
      const columns = leafColumns(tree);
      const dataEnd = size - 8 - footerSize;
      const budget = input.settings.memory.maxBytes;
      w.key('rows').beginArray();
      let rowStart = 0;
      // Largest uncompressed row group decoded (settings.parquet.maxRowGroupBytes).
      const maxRowGroupBytes = input.settings.parquet.maxRowGroupBytes;
      for (let i = 0; i < metadata.row_groups.length; i++) {
        const g = metadata.row_groups[i];
        const shape = await checkRowGroup(file, g, i, columns, dataEnd);
        const n = shape.rows;
        if (shape.pageBytes > maxRowGroupBytes) {
          throw new ExtractionError(
            `row group ${i} holds ${shape.pageBytes} bytes uncompressed, more than the ${maxRowGroupBytes}-byte limit for reading rows; use parquetMode=MetadataOnly for this file`,
          );
        }
        const needs = decodeBytes(shape, top.length);
        if (needs > budget) {
          throw new ExtractionError(
            `Row group ${i} would take about ${Math.ceil(needs / MiB)} MB of memory to decode (${shape.rows} rows, ${shape.values} values), more than the ${Math.round(budget / MiB)} MB one parse may use; parquetMode=MetadataOnly reads its metadata.`,
            'document_too_complex',
          );
        }
        if (n > 0) {
          let rows: Record<string, unknown>[] = [];
          try {
            await parquetRead({
              file,
              metadata: readMetadata,
              rowStart,
              rowEnd: rowStart + n,
              rowFormat: 'object',
              compressors: DECOMPRESSORS,
              parsers: PARSERS,
              utf8: false,
              onComplete: (r: Record<string, unknown>[]) => {
                rows = r;
              },
            });
          } catch (err) {
            throw new ExtractionError(
              `row group ${i} could not be decoded: it is damaged or uses an encoding that cannot be read.`,
              'extraction_failed',
              false,
              { cause: err },
            );
          }
          if (rows.length !== n) warnings.push(`row group ${i} declares ${n} rows but ${rows.length} were decoded`);
          const read = Math.min(rows.length, n);
          if (read > 0) rowsProvenance.push(rowGroupProvenance(input.within, i, rowStart, read));
          if (read < n) {
            const missing = rowGroupProvenance(input.within, i, rowStart + read, n - read);
            completeness.missed('rows', 'failed', `row group ${i} declares ${n} rows but ${rows.length} were decoded`, missing, n - read);
          }
          for (let r = 0; r < rows.length; r++) {
            const row = rows[r];
            const out: Record<string, unknown> = {};
            for (const [name, render] of top) out[name] = render(row[name]);
            rows[r] = undefined as never; // let the row group's values go as they are written
            w.value(out);
            rowsWritten++;
            if ((r & 63) === 63) await w.maybeFlush(); // every 64 rows: bounded, fewer awaits
          }
        }
        await w.maybeFlush();
        rowStart += n;
        input.progress((i + 1) / metadata.row_groups.length);
      }
      w.endArray().field('rowsWritten', rowsWritten).field('rowsProvenance', rowsProvenance);
      completeness.emitted('rows', rowsWritten);
    }
    w.endObject();

    return {
      documentFormat: 'parquet',
      documentUnits: 1,
      metadata: {
        engine: ENGINE,
        mode,
        numRows,
        numRowGroups: metadata.row_groups.length,
        numColumns: leafNodes.length,
        createdBy: metadata.created_by ?? null,
        geo: geo !== null,
        bytesRead: file.bytesRead,
        largestRead: file.largestRead,
        ...(mode === 'MetadataPlusRows' ? { rowsWritten } : {}),
      },
      warnings,
      completeness: completeness.result(),
    };
  } finally {
    await fh.close();
  }
};
