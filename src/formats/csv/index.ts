// CSV family parser (Tabular and Spatial routes). Two streaming passes over the upload:
// the first profiles every column (types, nulls, ranges, geometry hints), the second writes
// typed rows or GeoJSON features through the JsonWriter. Memory stays bounded by the chunk
// size, whatever the file size.
import { statSync } from 'node:fs';
import type { JsonWriter } from '../kit/json-writer.js';
import { printable } from '../kit/reasons.js';
import { ExtractionError, type FormatParser, type ParseInput, type ParseOutcome } from '../kit/types.js';
import { CompletenessCounter } from '../kit/completeness.js';
import type { Provenance } from '../kit/provenance.js';
import { ColumnProfile, planColumn, type ColumnPlan } from './columns.js';
import {
  detectEurostat,
  detectHeader,
  expandEurostatHeader,
  expandEurostatRecord,
  sampleRecords,
  sniffDialect,
  type Dialect,
  type EurostatLayout,
} from './dialect.js';
import {
  decodeSample,
  decodeWhole,
  detectEncoding,
  legacyEncoding,
  NotUtf8Error,
  readSample,
  streamText,
  type DecodedFile,
  type EncodingChoice,
} from './encoding.js';
import { findGeometry, type GeometrySource } from './geo.js';
import { JsonArrayBatch } from './json-batch.js';
import { CsvTokenizer, type RecordSink } from './tokenizer.js';
import { Bounds, parseGeoJsonGeometry, parseWkt, WktError, type Geometry } from './wkt.js';

export type { ColumnInfo } from './columns.js';
export type { GeometrySource } from './geo.js';

const SAMPLE_BYTES = 256 * 1024;
/**
 * The sample grows (×4) until it holds the first record whole, up to this: the header of a
 * file with 100,000 columns is about 1 MB, and cut, it would be read as data.
 */
const MAX_SAMPLE_BYTES = 8 * 1024 * 1024;
const MAX_FIELD_CHARS = 32 * 1024 * 1024;
/** Fields per record kept (the tokenizer's limit); more are dropped, with a warning. */
const MAX_FIELDS = 100_000;
/** Column names a failure reason lists. */
const SHOWN_COLUMNS = 50;
/**
 * A file up to this size that its detection sample holds whole is tokenized once: pass 1
 * keeps its records and pass 2 reads them back (a few times the text's size in memory).
 */
const KEEP_RECORDS_BYTES = SAMPLE_BYTES;
/** Records written between two flushes of the artifact when pass 2 reads kept records. */
const ROWS_PER_FLUSH = 4096;

interface Plan {
  /** What the passes read: the file's path, or the whole file when the detection sample holds it. */
  source: string | Buffer;
  /** The whole file decoded once, when the detection sample holds it (null after a restart in another encoding). */
  decoded: DecodedFile | null;
  enc: EncodingChoice;
  dialect: Dialect;
  hasHeader: boolean;
  eurostat: EurostatLayout | null;
}

interface TokenizerReport {
  lf: number;
  crlf: number;
  cr: number;
  strayQuoteText: number;
  unterminatedQuote: boolean;
  truncatedFields: number;
  droppedFields: number;
}

interface FirstPass {
  header: string[] | null;
  rowCount: number;
  profiles: ColumnProfile[];
  /** Histogram: lengths[n] = rows with n fields. */
  lengths: number[];
  maxFields: number;
  nulChars: number;
  tok: TokenizerReport;
  /** Every record as the tokenizer cut it (header included), kept for pass 2 when the file is small; else null. */
  records: string[][] | null;
}

function newTokenizer(plan: Plan): CsvTokenizer {
  return new CsvTokenizer({
    delimiter: plan.dialect.delimiter.charCodeAt(0),
    quote: plan.dialect.quoteChar.charCodeAt(0),
    maxFieldChars: MAX_FIELD_CHARS,
    maxFields: MAX_FIELDS,
  });
}

/** Wraps a record sink: skips (and hands over) the header, expands Eurostat records. */
function recordStream(plan: Plan, onHeader: (cells: string[]) => void, onRow: RecordSink): RecordSink {
  let expectHeader = plan.hasHeader;
  const ex: string[] = [];
  const layout = plan.eurostat;
  return (f, n) => {
    if (expectHeader) {
      expectHeader = false;
      onHeader(layout ? expandEurostatHeader(f, n) : f.slice(0, n));
      return;
    }
    if (layout) {
      n = expandEurostatRecord(layout, f, n, ex);
      f = ex;
    }
    onRow(f, n);
  };
}

async function firstPass(input: ParseInput, plan: Plan, size: number, spatial: boolean): Promise<FirstPass> {
  const tok = newTokenizer(plan);
  const records: string[][] | null = plan.decoded && size <= KEEP_RECORDS_BYTES ? [] : null;
  const profiles: ColumnProfile[] = [];
  const lengths: number[] = [];
  let header: string[] | null = null;
  let rowCount = 0;
  let maxFields = 0;
  const sink = recordStream(
    plan,
    (cells) => {
      header = cells;
    },
    (f, n) => {
      rowCount++;
      lengths[n] = (lengths[n] ?? 0) + 1;
      if (n > maxFields) maxFields = n;
      // Extra fields of ragged rows are profiled too: a Spatial file may hold its geometry there.
      for (let c = 0; c < n; c++) {
        let p = profiles[c];
        if (p === undefined) p = profiles[c] = new ColumnProfile();
        p.add(f[c], spatial);
      }
    },
  );
  const onRecord: RecordSink = records
    ? (f, n) => {
        records.push(f.slice(0, n));
        sink(f, n);
      }
    : sink;
  let nulChars: number;
  if (plan.decoded) {
    // In memory and decoded already: the chunks streamText would hand over, without a promise per chunk.
    for (const text of [plan.decoded.text, plan.decoded.tail]) {
      if (!text.length) continue;
      tok.push(text, onRecord);
      input.progress(size ? 0.5 : 0);
    }
    nulChars = plan.decoded.nulChars;
  } else {
    ({ nulChars } = await streamText(plan.source, plan.enc, (text, bytes) => {
      tok.push(text, onRecord);
      input.progress(size ? (0.5 * bytes) / size : 0);
    }));
  }
  tok.end(onRecord);
  return {
    header,
    rowCount,
    profiles,
    lengths,
    maxFields,
    nulChars,
    tok: {
      lf: tok.lf,
      crlf: tok.crlf,
      cr: tok.cr,
      strayQuoteText: tok.strayQuoteText,
      unterminatedQuote: tok.unterminatedQuote,
      truncatedFields: tok.truncatedFields,
      droppedFields: tok.droppedFields,
    },
    records,
  };
}

function columnNames(header: string[] | null, count: number): string[] {
  const used = new Set<string>();
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    let base = header && i < header.length ? header[i] : '';
    if (base.trim() === '') base = `column_${i + 1}`;
    let name = base;
    for (let k = 2; used.has(name); k++) name = `${base}_${k}`;
    used.add(name);
    out.push(name);
  }
  return out;
}

function lineEndingOf(t: TokenizerReport): string | null {
  const max = Math.max(t.lf, t.crlf, t.cr);
  if (max === 0) return null;
  return max === t.crlf ? 'CRLF' : max === t.lf ? 'LF' : 'CR';
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

export const parseCsv: FormatParser = async (input: ParseInput, content: JsonWriter): Promise<ParseOutcome> => {
  const spatial = String(input.options.csvRoute ?? 'Tabular').toLowerCase() === 'spatial';
  const warnings: string[] = [];
  const { size } = statSync(input.filePath);

  // Detection on a sample: encoding, dialect, header.
  const { sample, enc, dialect, records, decoded } = detectionSample(input, size);
  if (records.length === 0 && sample.length < size) {
    warnings.push(`The first record is longer than ${MAX_SAMPLE_BYTES / (1024 * 1024)} MiB: it was not examined as a header and is read as data.`);
  }
  const eurostat = detectEurostat(dialect.delimiter, records[0]);
  const source = sample.length >= size ? sample : input.filePath;
  const plan: Plan = { source, decoded, enc, dialect, hasHeader: eurostat ? true : detectHeader(records), eurostat };
  if (enc.source === 'fallback') {
    warnings.push(`The encoding could not be determined with confidence; the file was decoded as ${enc.name}.`);
  }

  // Pass 1: profile every column (restarted once if bytes past the sample are not UTF-8).
  let first: FirstPass;
  for (;;) {
    try {
      first = await firstPass(input, plan, size, spatial);
      break;
    } catch (err) {
      if (!(err instanceof NotUtf8Error) || !plan.enc.strictUtf8) throw err;
      const legacy = legacyEncoding(err.chunk.length ? err.chunk : sample);
      plan.enc = { ...legacy, bomLength: 0, strictUtf8: false };
      plan.decoded = null;
      warnings.push(`The file starts as UTF-8 but is not valid UTF-8 near byte ${err.offset}; it was decoded as ${legacy.name} instead.`);
    }
  }

  const header = first.header as string[] | null;
  const columnCount = plan.hasHeader ? (header?.length ?? 0) : first.maxFields;
  const names = columnNames(header, columnCount);
  const rowCount = first.rowCount;
  const profiles = first.profiles;
  // Missing trailing fields of short rows are nulls too.
  let cum = first.lengths[0] ?? 0;
  for (let c = 0; c < columnCount; c++) {
    const p = (profiles[c] ??= new ColumnProfile());
    p.nulls += cum;
    cum += first.lengths[c + 1] ?? 0;
  }
  const plans: ColumnPlan[] = names.map((name, i) => planColumn(profiles[i], name, i));

  collectWarnings(first, plans, columnCount, rowCount, warnings);

  const empty = rowCount === 0 && header === null;
  if (empty) warnings.push('The file is empty: it has no header and no data rows.');
  else if (rowCount === 0) warnings.push('The file has a header row but no data rows.');

  const counter = new CompletenessCounter().kind('rows');
  const metadata: Record<string, unknown> = {
    route: spatial ? 'Spatial' : 'Tabular',
    encoding: plan.enc.name,
    encodingSource: plan.enc.source,
    bom: plan.enc.bomLength > 0,
    delimiter: plan.dialect.delimiter,
    quoteChar: plan.dialect.quoteChar,
    hasHeader: plan.hasHeader && header !== null,
    lineEnding: lineEndingOf(first.tok),
    rowCount,
    columnCount,
    bytes: size,
  };
  if (plan.eurostat) metadata.dialect = 'eurostat';

  if (spatial) {
    // Unnamed extra fields (rows longer than the header) can hold the geometry too.
    const extNames = columnNames([...names, ...profiles.slice(columnCount).map(() => '')], profiles.length);
    const found = findGeometry(extNames, profiles, metadata.hasHeader as boolean);
    if (!found) {
      const shown = names.slice(0, SHOWN_COLUMNS).map((n) => printable(n, 40));
      if (names.length > SHOWN_COLUMNS) shown.push(`… (${names.length - SHOWN_COLUMNS} more)`);
      const list = names.length ? shown.join(', ') : '(none: the file is empty)';
      throw new ExtractionError(
        `Spatial CSV: no longitude/latitude column pair and no geometry column (WKT or GeoJSON) was found. ` +
          `Longitude/latitude columns need recognisable names (lon/lng/long/longitude/x, lat/latitude/y) and values ` +
          `within ±180/±90. Columns: ${list}.`,
      );
    }
    if (found.note) warnings.push(found.note);
    if (found.source.kind !== 'lonlat' && found.source.index >= columnCount) {
      warnings.push(
        `The geometry is in field ${found.source.index + 1}, beyond the ${plural(columnCount, 'named column')} of the header; it was read from there as column ${printable(found.source.column)}.`,
      );
    }
    const s = await writeSpatial(input, plan, size, first.records, plans, found.source, rowCount, content, warnings, counter);
    metadata.featureCount = rowCount;
    metadata.geometrySource = s;
  } else {
    await writeTabular(input, plan, size, first.records, plans, columnCount, rowCount, content);
  }
  // Every data record is written: ragged rows are padded or keep their extra values, and a
  // geometry that cannot be read leaves its feature without one (counted under features).
  counter.emitted('rows', rowCount);
  input.progress(1);
  return { documentFormat: 'csv', documentUnits: 1, metadata, warnings, completeness: counter.result() };
};

/**
 * Encoding, dialect and the first record (what the header and Eurostat checks read), from a
 * sample that holds the first record whole where it can; a sample that is the whole file is
 * decoded once for the passes too.
 */
function detectionSample(input: ParseInput, size: number) {
  for (let bytes = SAMPLE_BYTES; ; bytes = Math.min(bytes * 4, MAX_SAMPLE_BYTES)) {
    const sample = readSample(input.filePath, bytes, size);
    const wholeFile = sample.length >= size;
    const enc = detectEncoding(sample, wholeFile);
    const decoded = wholeFile ? decodeWhole(sample, enc) : null;
    const text = decoded ? decoded.text : decodeSample(sample, enc);
    const dialect = sniffDialect(text, wholeFile, input.fileName);
    const records = sampleRecords(text, dialect, wholeFile, 1);
    if (records.length > 0 || wholeFile || bytes >= MAX_SAMPLE_BYTES) return { sample, enc, dialect, records, decoded };
  }
}

function collectWarnings(first: FirstPass, plans: ColumnPlan[], cc: number, rows: number, warnings: string[]): void {
  let longer = 0;
  let shorter = 0;
  first.lengths.forEach((k, n) => {
    if (n > cc) longer += k;
    else if (n < cc) shorter += k;
  });
  if (longer + shorter > 0) {
    warnings.push(
      `${plural(longer + shorter, 'row')} of ${rows} ${longer + shorter === 1 ? 'has' : 'have'} a different number of fields than the ${plural(cc, 'column')}: ` +
        `${longer} longer (extra values kept after the last column), ${shorter} shorter (missing values are null).`,
    );
  }
  const t = first.tok;
  if (first.nulChars) warnings.push(`Removed ${plural(first.nulChars, 'NUL character')} from the text.`);
  if (t.unterminatedQuote) {
    warnings.push('A quoted field is never closed (unbalanced quotes): it was read to the end of the file.');
  }
  if (t.strayQuoteText) {
    warnings.push(`${plural(t.strayQuoteText, 'field')} had text after the closing quote; it was kept as part of the field.`);
  }
  if (t.truncatedFields) warnings.push(`Fields longer than ${MAX_FIELD_CHARS} characters were truncated.`);
  if (t.droppedFields) {
    warnings.push(
      `Rows have more than ${MAX_FIELDS} fields: the fields past the ${MAX_FIELDS}th of each row were dropped (${plural(t.droppedFields, 'field')} in all).`,
    );
  }
  const kinds = [t.lf, t.crlf, t.cr].filter((k) => k > 0).length;
  if (kinds > 1) warnings.push(`Mixed line endings: ${t.lf} LF, ${t.crlf} CRLF, ${t.cr} CR.`);
  for (const p of plans) {
    if ((p.info.type === 'integer' || p.info.type === 'number') && p.info.jsonType === 'string') {
      warnings.push(
        `Column ${printable(p.info.name)} holds ${p.info.type === 'integer' ? 'integers beyond 2^53' : 'numbers a double cannot hold exactly'}; its values are kept as strings.`,
      );
    }
  }
}

/**
 * The content's provenance: the data records it holds, counted from 1 after the header (the
 * n-th row of `rows`, or feature, is record n). One span for the whole file, not an object per
 * row: a file can hold millions of rows.
 */
function contentProvenance(within: Provenance | undefined, rowCount: number): Provenance {
  return rowCount ? { ...within, rows: [1, rowCount] } : { ...within };
}

/**
 * Pass 2: the data records (header skipped) to onRow, which adds to `out`; the batch is written
 * and the writer flushed as it goes (after each chunk: what a batch holds comes from one chunk):
 * the records pass 1 kept, or the file tokenized again (from its decoded text when in memory).
 */
async function secondPass(
  input: ParseInput,
  plan: Plan,
  size: number,
  records: string[][] | null,
  content: JsonWriter,
  out: JsonArrayBatch,
  onRow: RecordSink,
): Promise<void> {
  const sink = recordStream(plan, () => {}, onRow);
  const flush = async () => {
    out.write();
    await content.maybeFlush();
  };
  if (records) {
    for (let r = 0; r < records.length; r++) {
      sink(records[r], records[r].length);
      if (r % ROWS_PER_FLUSH === ROWS_PER_FLUSH - 1) await flush();
    }
    await flush();
    return; // parseCsv reports 1 when the artifact's content is written
  }
  const tok = newTokenizer(plan);
  if (plan.decoded) {
    for (const text of [plan.decoded.text, plan.decoded.tail]) {
      if (!text.length) continue;
      tok.push(text, sink);
      await flush();
      input.progress(1);
    }
  } else {
    await streamText(plan.source, plan.enc, async (text, bytes) => {
      tok.push(text, sink);
      await flush();
      input.progress(size ? 0.5 + (0.5 * bytes) / size : 1);
    });
  }
  tok.end(sink);
  out.write();
}

async function writeTabular(
  input: ParseInput,
  plan: Plan,
  size: number,
  records: string[][] | null,
  plans: ColumnPlan[],
  cc: number,
  rowCount: number,
  content: JsonWriter,
): Promise<void> {
  content.beginObject();
  content.field('provenance', contentProvenance(input.within, rowCount));
  content.key('columns').beginArray();
  for (const p of plans) content.value(p.info);
  content.endArray();
  content.field('rowCount', rowCount);
  content.key('rows').beginArray();
  const conv = plans.map((p) => p.convert);
  const rows = new JsonArrayBatch(content);
  await secondPass(input, plan, size, records, content, rows, (f, n) => {
    const row = new Array(n > cc ? n : cc);
    const lim = n < cc ? n : cc;
    let c = 0;
    for (; c < lim; c++) row[c] = conv[c](f[c]);
    for (; c < cc; c++) row[c] = null;
    for (; c < n; c++) row[c] = f[c].length ? f[c] : null;
    rows.add(row, row.length);
  });
  content.endArray();
  content.endObject();
  await content.maybeFlush();
}

async function writeSpatial(
  input: ParseInput,
  plan: Plan,
  size: number,
  records: string[][] | null,
  plans: ColumnPlan[],
  source: GeometrySource,
  rowCount: number,
  content: JsonWriter,
  warnings: string[],
  counter: CompletenessCounter,
): Promise<Omit<GeometrySource, 'lonIndex' | 'latIndex' | 'index'>> {
  const cc = plans.length;
  const geomCols = new Set(source.kind === 'lonlat' ? [source.lonIndex, source.latIndex] : [source.index]);
  const publicSource =
    source.kind === 'lonlat' ? { kind: source.kind, lonColumn: source.lonColumn, latColumn: source.latColumn } : { kind: source.kind, column: source.column };

  content.beginObject();
  content.field('provenance', contentProvenance(input.within, rowCount));
  content.field('geometrySource', publicSource);
  content.field('crs', 'EPSG:4326');
  content.field('featureCount', rowCount);
  content.key('columns').beginArray();
  for (const p of plans) {
    const role = !geomCols.has(p.info.index) ? undefined : source.kind !== 'lonlat' ? 'geometry' : p.info.index === source.lonIndex ? 'longitude' : 'latitude';
    content.value(role ? { ...p.info, role } : p.info);
  }
  if (source.kind !== 'lonlat' && source.index >= cc) {
    content.value({ name: source.column, index: source.index, type: 'string', jsonType: 'string', role: 'geometry', extra: true });
  }
  content.endArray();
  content.key('features').beginArray();

  const propIdx = plans.map((p) => p.info.index).filter((i) => !geomCols.has(i));
  const propNames = propIdx.map((i) => plans[i].info.name);
  const conv = plans.map((p) => p.convert);
  const nameSet = new Set(plans.map((p) => p.info.name));
  const bounds = new Bounds();
  const types: Record<string, number> = {};
  let missing = 0;
  let invalid = 0;
  let emptyGeom = 0;
  let outOfRange = 0;
  let firstError = '';
  const srids = new Set<number>();
  counter.kind('features');
  /** Why the current row's geometry could not be read (a feature failed), or null. */
  let failure: string | null = null;

  const geometryOf = (f: string[], n: number): Geometry | null => {
    if (source.kind === 'lonlat') {
      const lo = source.lonIndex < n ? f[source.lonIndex] : '';
      const la = source.latIndex < n ? f[source.latIndex] : '';
      if (!lo.trim() || !la.trim()) {
        missing++;
        return null;
      }
      const x = Number(lo);
      const y = Number(la);
      if (!Number.isFinite(x) || !Number.isFinite(y)) {
        invalid++;
        failure = `The longitude or latitude is not a number (${printable(lo, 40)}, ${printable(la, 40)}).`;
        return null;
      }
      if (x < -180 || x > 180 || y < -90 || y > 90) {
        outOfRange++;
        failure = `The longitude/latitude (${x}, ${y}) is outside ±180/±90.`;
        return null;
      }
      return { type: 'Point', coordinates: [x, y] };
    }
    const v = source.index < n ? f[source.index] : '';
    if (!v.trim()) {
      missing++;
      return null;
    }
    try {
      let g: Geometry | null;
      if (source.kind === 'wkt') {
        const r = parseWkt(v);
        if (r.srid !== null) srids.add(r.srid);
        g = r.geometry;
      } else g = parseGeoJsonGeometry(v);
      if (!g) emptyGeom++;
      return g;
    } catch (err) {
      invalid++;
      // Our parsers' own reasons only; anything else they hit is not for users to read.
      const why = err instanceof WktError ? err.message : 'the value could not be read as a geometry';
      if (!firstError) firstError = why;
      failure = `The ${source.kind === 'wkt' ? 'WKT' : 'GeoJSON'} geometry could not be read: ${why}.`;
      return null;
    }
  };

  let row = 0;
  const features = new JsonArrayBatch(content);
  await secondPass(input, plan, size, records, content, features, (f, n) => {
    row++;
    failure = null;
    const geometry = geometryOf(f, n);
    const provenance: Provenance = { ...input.within, rows: [row, row] };
    if (geometry) {
      bounds.add(geometry);
      types[geometry.type] = (types[geometry.type] ?? 0) + 1;
      counter.emitted('features');
    } else if (failure) counter.missed('features', 'failed', `${failure} The feature is kept with geometry null.`, provenance);
    else counter.emitted('features', 1, 1);
    const properties: Record<string, unknown> = {};
    for (let k = 0; k < propIdx.length; k++) {
      const c = propIdx[k];
      properties[propNames[k]] = c < n ? conv[c](f[c]) : null;
    }
    for (let c = cc; c < n; c++) {
      if (geomCols.has(c)) continue;
      let key = `column_${c + 1}`;
      while (nameSet.has(key)) key = `_${key}`;
      properties[key] = f[c].length ? f[c] : null;
    }
    // A WKT or GeoJSON cell weighs by its length (≈ 8 characters a coordinate).
    const geometryCells = source.kind === 'lonlat' || source.index >= n ? 0 : f[source.index].length >> 3;
    features.add({ type: 'Feature', geometry, properties, provenance }, n + geometryCells);
  });
  features.write();
  content.endArray();
  const bbox = bounds.toArray();
  content.field('bounds', bbox);
  content.field('geometryTypes', types);
  content.endObject();
  await content.maybeFlush();

  const nulls = missing + invalid + emptyGeom + outOfRange;
  if (nulls) {
    const parts = [
      missing && `${missing} missing`,
      emptyGeom && `${emptyGeom} empty`,
      invalid && `${invalid} invalid${firstError ? ` (first error: ${firstError})` : ''}`,
      outOfRange && `${outOfRange} outside longitude/latitude range`,
    ].filter(Boolean);
    warnings.push(
      `${plural(nulls, 'row')} of ${row} ${nulls === 1 ? 'has' : 'have'} no usable geometry (${parts.join(', ')}); their features have geometry null.`,
    );
  }
  const foreign = [...srids].filter((s) => s !== 4326);
  if (foreign.length) {
    warnings.push(`Geometries declare SRID ${foreign.join(', ')}; coordinates were not reprojected to EPSG:4326.`);
  }
  if (bbox && (bbox[0] < -180 || bbox[2] > 180 || bbox[1] < -90 || bbox[3] > 90)) {
    warnings.push(
      'Coordinates exceed the longitude/latitude range: the geometries are probably in a projected CRS that the CSV does not declare; crs EPSG:4326 is then nominal.',
    );
  }
  return publicSource;
}
