// Parquet footer (hyparquet FileMetaData) → the metadata parts of the artifact content:
// schema tree, leaf columns, row groups with per-column chunks and statistics, key-value
// metadata and GeoParquet / native geospatial information. Reads nothing but the footer.
import type { ColumnChunk, FileMetaData, RowGroup, SchemaElement, SchemaTree } from 'hyparquet';
import { printable } from '../kit/reasons.js';
import type { SchemaNodeShape } from './schema.js';
import { isDecimal, render, renderBigInt, renderDecimalStat } from './values.js';

type Json = Record<string, unknown>;

const big = (v: bigint | number | undefined | null): number | string | null =>
  v === undefined || v === null ? null : typeof v === 'bigint' ? renderBigInt(v) : v;

/** How a leaf's values appear in `rows` (values.ts has the rules). */
export function jsonEncoding(el: SchemaElement, wkt: boolean): string {
  const lt = el.logical_type?.type;
  if (isDecimal(el)) return 'decimal-string';
  if (lt === 'GEOMETRY' || lt === 'GEOGRAPHY' || wkt) return 'geojson';
  if (lt === 'DATE' || el.converted_type === 'DATE') return 'date-string';
  if (lt === 'TIMESTAMP' || el.converted_type === 'TIMESTAMP_MILLIS' || el.converted_type === 'TIMESTAMP_MICROS' || el.type === 'INT96')
    return 'timestamp-string';
  if (lt === 'UUID') return 'uuid-string';
  if (lt === 'JSON' || el.converted_type === 'JSON') return 'json';
  if (lt === 'STRING' || lt === 'ENUM' || el.converted_type === 'UTF8' || el.converted_type === 'ENUM') return 'string';
  switch (el.type) {
    case 'BOOLEAN':
      return 'boolean';
    case 'INT32':
      return 'number';
    case 'INT64':
      return 'int64';
    case 'FLOAT':
    case 'DOUBLE':
      return 'number';
    case 'BYTE_ARRAY':
      return 'utf8-or-base64';
    case 'FIXED_LEN_BYTE_ARRAY':
      return lt === 'FLOAT16' ? 'number' : 'base64';
    default:
      return 'unknown';
  }
}

function logicalType(el: SchemaElement): Json | null {
  const lt = el.logical_type as Json | undefined;
  if (!lt) return null;
  return render(lt) as Json;
}

export function describeSchema(node: SchemaTree, wktColumns: Set<string>): SchemaNodeShape {
  const el = node.element;
  const out: SchemaNodeShape = {
    name: el.name,
    path: node.path.join('.'),
    repetition: el.repetition_type ?? null,
    physicalType: el.type ?? null,
    logicalType: logicalType(el),
    convertedType: el.converted_type ?? null,
  };
  if (el.type_length !== undefined) out.typeLength = el.type_length;
  if (el.precision !== undefined) out.precision = el.precision;
  if (el.scale !== undefined) out.scale = el.scale;
  if (el.field_id !== undefined) out.fieldId = el.field_id;
  if (node.children.length) out.children = node.children.map((c) => describeSchema(c, wktColumns));
  else out.jsonEncoding = jsonEncoding(el, wktColumns.has(out.path));
  return out;
}

export function leaves(node: SchemaTree, out: SchemaTree[] = []): SchemaTree[] {
  if (!node.children.length) out.push(node);
  for (const c of node.children) leaves(c, out);
  return out;
}

function renderStat(v: unknown, el: SchemaElement | undefined): unknown {
  if (v === undefined) return undefined;
  return el && isDecimal(el) ? renderDecimalStat(v, el) : render(v);
}

function statistics(chunk: ColumnChunk, el: SchemaElement | undefined): Json | null {
  const s = chunk.meta_data?.statistics;
  if (!s) return null;
  const out: Json = {};
  const min = s.min_value ?? s.min;
  const max = s.max_value ?? s.max;
  if (min !== undefined) out.min = renderStat(min, el);
  if (max !== undefined) out.max = renderStat(max, el);
  // Deprecated min/max (no min_value/max_value): written with the old, type-unaware sort
  // order; reliable for signed numeric columns only (PARQUET-686).
  if ((min !== undefined || max !== undefined) && s.min_value === undefined && s.max_value === undefined) out.legacyMinMax = true;
  if (s.null_count !== undefined) out.nullCount = big(s.null_count);
  if (s.distinct_count !== undefined) out.distinctCount = big(s.distinct_count);
  if (s.is_min_value_exact !== undefined) out.minExact = s.is_min_value_exact;
  if (s.is_max_value_exact !== undefined) out.maxExact = s.is_max_value_exact;
  return out;
}

export function describeChunk(chunk: ColumnChunk, el: SchemaElement | undefined): Json {
  const md = chunk.meta_data;
  const out: Json = {
    path: md ? md.path_in_schema.join('.') : null,
    physicalType: md?.type ?? null,
    codec: md?.codec ?? null,
    encodings: md?.encodings ?? [],
    numValues: big(md?.num_values),
    compressedSize: big(md?.total_compressed_size),
    uncompressedSize: big(md?.total_uncompressed_size),
    dataPageOffset: big(md?.data_page_offset),
    dictionaryPageOffset: big(md?.dictionary_page_offset),
    statistics: statistics(chunk, el),
  };
  if (md?.encoding_stats) out.encodingStats = md.encoding_stats.map((e) => ({ pageType: e.page_type, encoding: e.encoding, count: e.count }));
  if (md?.key_value_metadata?.length) out.keyValueMetadata = md.key_value_metadata.map((kv) => ({ key: kv.key, value: kv.value ?? null }));
  if (md?.geospatial_statistics) out.geospatialStatistics = render(md.geospatial_statistics);
  if (md?.size_statistics?.unencoded_byte_array_data_bytes !== undefined) out.unencodedByteArrayBytes = big(md.size_statistics.unencoded_byte_array_data_bytes);
  if (md?.bloom_filter_offset !== undefined) out.bloomFilter = { offset: big(md.bloom_filter_offset), length: md.bloom_filter_length ?? null };
  out.columnIndex = chunk.column_index_offset !== undefined;
  out.offsetIndex = chunk.offset_index_offset !== undefined;
  if (chunk.file_path) out.filePath = chunk.file_path;
  return out;
}

export function describeRowGroup(g: RowGroup, index: number, leafEls: Map<string, SchemaElement>, leafPaths: string[]): Json {
  const out: Json = {
    index,
    numRows: big(g.num_rows),
    totalByteSize: big(g.total_byte_size),
    totalCompressedSize: big(g.total_compressed_size ?? null),
    fileOffset: big(g.file_offset ?? null),
  };
  if (g.ordinal !== undefined) out.ordinal = g.ordinal;
  if (g.sorting_columns?.length) {
    out.sortingColumns = g.sorting_columns.map((s: any) => ({
      column: leafPaths[s.column_idx] ?? s.column_idx,
      descending: !!s.descending,
      nullsFirst: !!s.nulls_first,
    }));
  }
  out.columns = g.columns.map((c) => describeChunk(c, c.meta_data ? leafEls.get(c.meta_data.path_in_schema.join('.')) : undefined));
  return out;
}

/** File-level summary per leaf column, aggregated over row groups. */
export function describeColumns(md: FileMetaData, leafNodes: SchemaTree[], wktColumns: Set<string>): Json[] {
  return leafNodes.map((leaf, i) => {
    const path = leaf.path.join('.');
    const codecs = new Set<string>();
    const encodings = new Set<string>();
    let compressed = 0n;
    let uncompressed = 0n;
    let numValues = 0n;
    let nullCount: bigint | null = 0n;
    for (const g of md.row_groups) {
      const c = g.columns[i];
      const m = c?.meta_data;
      if (!m) {
        nullCount = null;
        continue;
      }
      codecs.add(m.codec);
      for (const e of m.encodings) encodings.add(e);
      compressed += BigInt(m.total_compressed_size);
      uncompressed += BigInt(m.total_uncompressed_size);
      numValues += BigInt(m.num_values);
      if (nullCount !== null) nullCount = m.statistics?.null_count !== undefined ? nullCount + BigInt(m.statistics.null_count) : null;
    }
    return {
      path,
      physicalType: leaf.element.type ?? null,
      logicalType: logicalType(leaf.element),
      convertedType: leaf.element.converted_type ?? null,
      jsonEncoding: jsonEncoding(leaf.element, wktColumns.has(path)),
      codecs: [...codecs],
      encodings: [...encodings],
      numValues: renderBigInt(numValues),
      compressedSize: renderBigInt(compressed),
      uncompressedSize: renderBigInt(uncompressed),
      nullCount: nullCount === null ? null : renderBigInt(nullCount),
    };
  });
}

// ---- geospatial ----
function crsId(crs: unknown): string | null {
  if (!crs) return null;
  if (typeof crs === 'string') {
    const m = /^(?:srid:)?(\d+)$/i.exec(crs.trim());
    if (m) return `EPSG:${m[1]}`;
    return /^[A-Za-z]+:\S+$/.test(crs.trim()) && !/^projjson:/i.test(crs) ? crs.trim() : null;
  }
  if (typeof crs === 'object') {
    const o = crs as { id?: { authority?: string; code?: string | number }; ids?: { authority?: string; code?: string | number }[] };
    const id = o.id ?? o.ids?.[0];
    if (id?.authority && id.code !== undefined) return `${id.authority}:${id.code}`;
  }
  return null;
}

function crsInfo(crs: unknown): Json | null {
  if (crs === null || crs === undefined) return null;
  if (typeof crs === 'string' && crs.trim().startsWith('{')) {
    try {
      crs = JSON.parse(crs); // inline PROJJSON
    } catch {
      /* kept as a definition string */
    }
  }
  let projjson: unknown = null;
  if (typeof crs === 'object') projjson = crs;
  const id = crsId(crs);
  const out: Json = { id, epsg: id && /^EPSG:\d+$/i.test(id) ? Number(id.split(':')[1]) : null };
  if (projjson && typeof projjson === 'object') {
    const p = projjson as { name?: string; type?: string };
    out.name = p.name ?? null;
    out.type = p.type ?? null;
    out.projjson = projjson;
  } else if (typeof crs === 'string') out.definition = crs;
  return out;
}

export interface GeoDescription {
  geo: Json | null;
  wktColumns: Set<string>;
  warnings: string[];
}

export function describeGeo(md: FileMetaData, leafNodes: SchemaTree[]): GeoDescription {
  const warnings: string[] = [];
  const wktColumns = new Set<string>();
  const kv = new Map((md.key_value_metadata ?? []).map((k) => [k.key, k.value ?? '']));
  let geoparquet: Json | null = null;
  const rawGeo = kv.get('geo');
  if (rawGeo !== undefined) {
    try {
      const g = JSON.parse(rawGeo) as { version?: string; primary_column?: string; columns?: Record<string, Record<string, unknown>> };
      const columns = Object.entries(g.columns ?? {}).map(([name, c]) => {
        if (String(c.encoding).toUpperCase() === 'WKT') wktColumns.add(name);
        const hasCrs = Object.prototype.hasOwnProperty.call(c, 'crs');
        const out: Json = {
          name,
          encoding: c.encoding ?? null,
          geometryTypes: Array.isArray(c.geometry_types) ? c.geometry_types : [],
          crs: hasCrs ? crsInfo(c.crs) : { id: 'OGC:CRS84', epsg: 4326, name: 'WGS 84 (CRS84)', defaulted: true },
          bbox: Array.isArray(c.bbox) ? c.bbox : null,
        };
        for (const k of ['edges', 'orientation', 'epoch', 'covering'] as const) if (c[k] !== undefined) out[k] = c[k];
        return out;
      });
      geoparquet = { version: g.version ?? null, primaryColumn: g.primary_column ?? null, columns };
    } catch (err) {
      // JSON.parse's own message quotes the text back; a TypeError means the JSON is not GeoParquet's layout.
      const why = err instanceof SyntaxError ? 'is not valid JSON' : 'does not follow the GeoParquet layout (columns, encodings)';
      warnings.push(`the "geo" metadata ${why}; GeoParquet columns are not decoded`);
    }
  }
  // Parquet's own GEOMETRY/GEOGRAPHY logical types (format 2.11+), with their geospatial statistics.
  const native: Json[] = [];
  leafNodes.forEach((leaf, i) => {
    const lt = leaf.element.logical_type as { type: string; crs?: string; algorithm?: string } | undefined;
    if (lt?.type !== 'GEOMETRY' && lt?.type !== 'GEOGRAPHY') return;
    const path = leaf.path.join('.');
    if (geoparquet && (geoparquet.columns as Json[]).some((c) => c.name === path)) return; // marked by GeoParquet metadata
    let crs: Json | null;
    if (!lt.crs) crs = { id: 'OGC:CRS84', epsg: 4326, name: 'WGS 84 (CRS84)', defaulted: true };
    else if (/^projjson:/i.test(lt.crs)) {
      const key = lt.crs.slice('projjson:'.length);
      let pj: unknown = null;
      try {
        pj = JSON.parse(kv.get(key) ?? 'null');
      } catch {
        warnings.push(`the PROJJSON in key-value metadata ${printable(key)} is not valid JSON`);
      }
      crs = pj ? { ...crsInfo(pj), reference: lt.crs } : { id: null, epsg: null, reference: lt.crs };
    } else crs = crsInfo(lt.crs);
    const box = { xmin: Infinity, xmax: -Infinity, ymin: Infinity, ymax: -Infinity };
    const types = new Set<number>();
    for (const g of md.row_groups) {
      const gs = g.columns[i]?.meta_data?.geospatial_statistics;
      if (gs?.bbox) {
        box.xmin = Math.min(box.xmin, gs.bbox.xmin);
        box.xmax = Math.max(box.xmax, gs.bbox.xmax);
        box.ymin = Math.min(box.ymin, gs.bbox.ymin);
        box.ymax = Math.max(box.ymax, gs.bbox.ymax);
      }
      for (const t of gs?.geospatial_types ?? []) types.add(t);
    }
    native.push({
      path,
      type: lt.type,
      crs,
      algorithm: lt.algorithm ?? null,
      bbox: Number.isFinite(box.xmin) ? [box.xmin, box.ymin, box.xmax, box.ymax] : null,
      geospatialTypes: [...types].sort((a, b) => a - b),
    });
  });
  if (!geoparquet && !native.length) return { geo: null, wktColumns, warnings };
  return { geo: { geoparquet, native }, wktColumns, warnings };
}
