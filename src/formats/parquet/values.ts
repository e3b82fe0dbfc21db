// Parquet values → JSON, losslessly. The rules (also in schema.ts):
// - INT64/UINT64 (and any integer): a JSON number when |v| ≤ 2^53−1, else a decimal string.
// - DECIMAL: a string with exactly `scale` fraction digits ("-12.340"), from the unscaled integer.
// - FLOAT/DOUBLE: a number; NaN, Infinity, -Infinity as the strings "NaN", "Infinity", "-Infinity".
// - DATE: "YYYY-MM-DD". TIMESTAMP/INT96: ISO 8601 with the column's precision (3, 6 or 9
//   fraction digits), "Z" suffix (see the schema's isAdjustedToUTC). TIME: number in its unit.
// - STRING/ENUM: the string. JSON: the parsed value. UUID: canonical 8-4-4-4-12 string.
// - Binary (BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY without string/decimal/uuid annotation, and
//   any invalid UTF-8): the UTF-8 string when the bytes are valid UTF-8 (BYTE_ARRAY only),
//   else {"base64": "..."}.
// - WKB geometry (GeoParquet WKB columns, GEOMETRY/GEOGRAPHY logical types): a GeoJSON
//   geometry; WKT geometry columns declared in `geo` metadata: GeoJSON too. A geometry that
//   does not decode is {"base64": …, "error": …} (WKB) or the original string (WKT).
// - LIST/repeated: arrays; MAP: objects (keys as strings); struct: objects; VARIANT: its value.
import type { ParquetParsers, SchemaElement, SchemaTree } from 'hyparquet';
import { parseWkt } from '../csv/wkt.js';

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const MIN_SAFE = -MAX_SAFE;
const utf8 = new TextDecoder('utf-8', { fatal: true });

export function renderBigInt(v: bigint): number | string {
  return v <= MAX_SAFE && v >= MIN_SAFE ? Number(v) : v.toString();
}

export function renderNumber(v: number): number | string {
  if (Number.isFinite(v)) return v;
  return Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity';
}

export function base64(bytes: Uint8Array): { base64: string } {
  return { base64: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64') };
}

/** Bytes → string when valid UTF-8, else {base64}. */
export function bytesToText(bytes: Uint8Array): string | { base64: string } {
  try {
    return utf8.decode(bytes);
  } catch {
    return base64(bytes);
  }
}

function isoFromEpoch(whole: bigint, fraction: bigint, digits: number): string {
  // whole: seconds since epoch (floor), fraction: 0 ≤ fraction < 10^digits
  const ms = Number(whole) * 1000;
  if (!Number.isFinite(ms) || Math.abs(ms) > 8.64e15) return `${whole}.${fraction.toString().padStart(digits, '0')}s`;
  const d = new Date(ms).toISOString(); // YYYY-MM-DDTHH:MM:SS.000Z (or ±YYYYYY-…)
  return `${d.slice(0, d.length - 5)}.${fraction.toString().padStart(digits, '0')}Z`;
}

function floorDiv(a: bigint, b: bigint): [bigint, bigint] {
  let q = a / b;
  let r = a % b;
  if (r < 0n) {
    q -= 1n;
    r += b;
  }
  return [q, r];
}

/** Epoch count in 10^-digits seconds → ISO with `digits` fraction digits (exact). */
function fractional(v: bigint, per: number, digits: number): string {
  const n = Number(v);
  if (Number.isSafeInteger(n)) {
    const sec = Math.floor(n / per);
    const frac = n - sec * per;
    if (Math.abs(sec) <= 8.64e12) {
      const d = new Date(sec * 1000).toISOString();
      return `${d.slice(0, d.length - 5)}.${String(frac).padStart(digits, '0')}Z`;
    }
  }
  const [s, f] = floorDiv(BigInt(v), BigInt(per));
  return isoFromEpoch(s, f, digits);
}

/** Epoch days → YYYY-MM-DD (extended years outside 0000–9999). */
function dateFromDays(days: number): string {
  const ms = days * 86400000;
  if (!Number.isFinite(ms) || Math.abs(ms) > 8.64e15) return `${days}d`;
  return new Date(ms).toISOString().slice(0, -14);
}

// ---- WKB → GeoJSON (ISO and EWKB, with Z/M) ----
/** Why a WKB value does not decode, in our own words. */
class WkbError extends Error {}

interface WkbReader {
  view: DataView;
  o: number;
}

function wkbGeometry(r: WkbReader, depth = 0): Record<string, unknown> {
  if (depth > 32) throw new WkbError('its geometries are nested more than 32 deep');
  const le = r.view.getUint8(r.o) === 1;
  r.o += 1;
  let raw = r.view.getUint32(r.o, le);
  r.o += 4;
  let hasZ = false;
  let hasM = false;
  if (raw & 0x20000000) r.o += 4; // EWKB SRID
  if (raw & 0x80000000) hasZ = true;
  if (raw & 0x40000000) hasM = true;
  raw &= 0x0fffffff;
  const type = raw % 1000;
  const dim = Math.floor(raw / 1000);
  if (dim === 1 || dim === 3) hasZ = true;
  if (dim === 2 || dim === 3) hasM = true;
  const n = 2 + (hasZ ? 1 : 0) + (hasM ? 1 : 0);
  const pos = (): number[] => {
    const p: number[] = [];
    for (let i = 0; i < n; i++) {
      p.push(r.view.getFloat64(r.o, le));
      r.o += 8;
    }
    return p;
  };
  const count = (): number => {
    const c = r.view.getUint32(r.o, le);
    r.o += 4;
    if (c > r.view.byteLength) throw new WkbError(`it declares ${c} parts, more than its bytes can hold`);
    return c;
  };
  const line = (): number[][] => Array.from({ length: count() }, pos);
  const poly = (): number[][][] => Array.from({ length: count() }, line);
  switch (type) {
    case 1: {
      const p = pos();
      return p.every((v) => Number.isNaN(v)) ? { type: 'Point', coordinates: [] } : { type: 'Point', coordinates: p };
    }
    case 2:
      return { type: 'LineString', coordinates: line() };
    case 3:
      return { type: 'Polygon', coordinates: poly() };
    case 4:
      return { type: 'MultiPoint', coordinates: Array.from({ length: count() }, () => wkbGeometry(r, depth + 1).coordinates) };
    case 5:
      return { type: 'MultiLineString', coordinates: Array.from({ length: count() }, () => wkbGeometry(r, depth + 1).coordinates) };
    case 6:
      return { type: 'MultiPolygon', coordinates: Array.from({ length: count() }, () => wkbGeometry(r, depth + 1).coordinates) };
    case 7:
      return { type: 'GeometryCollection', geometries: Array.from({ length: count() }, () => wkbGeometry(r, depth + 1)) };
    default:
      throw new WkbError(`geometry type ${raw} is not a WKB geometry type`);
  }
}

/** A WKB value as a GeoJSON geometry, or {base64, error} when it does not decode. */
export function wkbToGeoJson(bytes: Uint8Array): Record<string, unknown> {
  try {
    const r = { view: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength), o: 0 };
    const g = wkbGeometry(r);
    return g;
  } catch (err) {
    // A read past the end is DataView's RangeError: the value is shorter than its geometry.
    const why = err instanceof WkbError ? err.message : 'it ends before the geometry it describes';
    return { ...base64(bytes), error: `WKB: ${why}` };
  }
}

/** hyparquet parsers: exact timestamps as ISO strings, dates as YYYY-MM-DD, safe bytes. */
export const PARSERS: Partial<ParquetParsers> = {
  timestampFromMilliseconds(v: bigint) {
    const n = Number(v);
    if (Math.abs(n) <= 8.64e15) return new Date(n).toISOString();
    const [s, f] = floorDiv(BigInt(v), 1000n);
    return isoFromEpoch(s, f, 3);
  },
  timestampFromMicroseconds(v: bigint) {
    return fractional(v, 1000000, 6);
  },
  timestampFromNanoseconds(v: bigint) {
    return fractional(v, 1000000000, 9);
  },
  dateFromDays: dateFromDays,
  stringFromBytes(bytes: Uint8Array) {
    return bytes && bytesToText(bytes);
  },
  jsonFromBytes(bytes: Uint8Array) {
    if (!bytes) return bytes;
    const t = bytesToText(bytes);
    if (typeof t !== 'string') return t;
    try {
      return JSON.parse(t);
    } catch {
      return t;
    }
  },
  geometryFromBytes(bytes: Uint8Array) {
    return bytes && wkbToGeoJson(bytes);
  },
  geographyFromBytes(bytes: Uint8Array) {
    return bytes && wkbToGeoJson(bytes);
  },
};

// ---- decimals ----
export function isDecimal(el: SchemaElement): boolean {
  return el.converted_type === 'DECIMAL' || el.logical_type?.type === 'DECIMAL';
}

function decimalScale(el: SchemaElement): number {
  const lt = el.logical_type as { type: string; scale?: number } | undefined;
  return (lt?.type === 'DECIMAL' ? lt.scale : undefined) ?? el.scale ?? 0;
}

function unscaledFromBytes(bytes: Uint8Array): bigint {
  if (!bytes.length) return 0n;
  let v = 0n;
  for (const b of bytes) v = (v << 8n) | BigInt(b);
  if (bytes[0] & 0x80) v -= 1n << BigInt(bytes.length * 8);
  return v;
}

export function decimalString(unscaled: bigint, scale: number): string {
  const neg = unscaled < 0n;
  let digits = (neg ? -unscaled : unscaled).toString();
  if (scale <= 0) return (neg ? '-' : '') + digits + '0'.repeat(-scale);
  digits = digits.padStart(scale + 1, '0');
  return `${neg ? '-' : ''}${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
}

/** Raw decimal value as read with the DECIMAL annotation removed → exact string. */
function renderDecimal(v: unknown, el: SchemaElement): unknown {
  const scale = decimalScale(el);
  if (typeof v === 'bigint') return decimalString(v, scale);
  if (typeof v === 'number' && Number.isInteger(v)) return decimalString(BigInt(v), scale);
  if (v instanceof Uint8Array) return decimalString(unscaledFromBytes(v), scale);
  return render(v);
}

/**
 * Decimal statistics as hyparquet decodes them (already scaled floats): exact as a string
 * with `scale` digits when the precision fits a double (≤ 15 digits).
 */
export function renderDecimalStat(v: unknown, el: SchemaElement): unknown {
  if (typeof v !== 'number') return render(v);
  const precision = (el.logical_type as { precision?: number } | undefined)?.precision ?? el.precision ?? 38;
  return precision <= 15 ? v.toFixed(decimalScale(el)) : renderNumber(v);
}

/** Read-time copy of the schema: DECIMAL annotations removed so raw unscaled values come back. */
export function readSchema(schema: SchemaElement[]): SchemaElement[] {
  return schema.map((el) => {
    if (!isDecimal(el)) return el;
    const copy: SchemaElement = { ...el };
    delete copy.converted_type;
    delete copy.logical_type;
    delete copy.scale;
    delete copy.precision;
    // BYTE_ARRAY decimals would otherwise be decoded as UTF-8 text: utf8 is off for reads,
    // and unannotated BYTE_ARRAY is turned into text (or base64) by render() below.
    return copy;
  });
}

// ---- generic and schema-directed rendering ----
export function render(v: unknown): unknown {
  if (v === null || v === undefined) return null;
  switch (typeof v) {
    case 'bigint':
      return renderBigInt(v);
    case 'number':
      return renderNumber(v);
    case 'string':
    case 'boolean':
      return v;
    case 'object': {
      if (v instanceof Uint8Array) return base64(v);
      if (v instanceof Date) return Number.isNaN(v.getTime()) ? null : v.toISOString();
      if (ArrayBuffer.isView(v)) return Array.from(v as unknown as ArrayLike<number | bigint>, (x) => render(x));
      if (Array.isArray(v)) return v.map(render);
      if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [String(render(k)), render(x)]));
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) out[k] = render(x);
      return out;
    }
    default:
      return null;
  }
}

function renderLeaf(v: unknown, el: SchemaElement, wktColumn: boolean): unknown {
  if (v === null || v === undefined) return null;
  if (isDecimal(el)) return renderDecimal(v, el);
  if (v instanceof Uint8Array) {
    if (el.type === 'BYTE_ARRAY') return bytesToText(v);
    return base64(v);
  }
  if (wktColumn && typeof v === 'string') {
    try {
      return parseWkt(v).geometry ?? { type: 'GeometryCollection', geometries: [] };
    } catch {
      return v;
    }
  }
  return render(v);
}

function isListLike(node: SchemaTree): boolean {
  if (node.element.converted_type !== 'LIST' && node.element.logical_type?.type !== 'LIST') return false;
  if (node.children.length !== 1) return false;
  const first = node.children[0];
  return first.children.length <= 1 && first.element.repetition_type === 'REPEATED';
}

function isMapLike(node: SchemaTree): boolean {
  const ct = node.element.converted_type;
  if (ct !== 'MAP' && node.element.logical_type?.type !== 'MAP') return false;
  if (node.children.length !== 1) return false;
  const kv = node.children[0];
  return kv.children.length === 2 && kv.element.repetition_type === 'REPEATED';
}

type Renderer = (v: unknown) => unknown;

function leafRenderer(el: SchemaElement, wkt: boolean): Renderer {
  if (isDecimal(el)) return (v) => (v === null || v === undefined ? null : renderDecimal(v, el));
  if (wkt) return (v) => renderLeaf(v, el, true);
  const lt = el.logical_type?.type;
  if (!lt && !el.converted_type) {
    switch (el.type) {
      case 'INT64':
        return (v) => (typeof v === 'bigint' ? renderBigInt(v) : render(v));
      case 'DOUBLE':
      case 'FLOAT':
        return (v) => (typeof v === 'number' && Number.isFinite(v) ? v : render(v));
      case 'INT32':
      case 'BOOLEAN':
        return (v) => (v === undefined ? null : typeof v === 'object' && v !== null ? render(v) : v);
      case 'BYTE_ARRAY':
        return (v) => (v instanceof Uint8Array ? bytesToText(v) : render(v));
    }
  }
  if (
    lt === 'STRING' ||
    el.converted_type === 'UTF8' ||
    lt === 'TIMESTAMP' ||
    el.converted_type === 'TIMESTAMP_MILLIS' ||
    el.converted_type === 'TIMESTAMP_MICROS'
  ) {
    return (v) => (typeof v === 'string' ? v : render(v));
  }
  return (v) => renderLeaf(v, el, false);
}

/**
 * A renderer per schema node (guided by the original schema), built once per file so the
 * schema is not re-inspected for every value (the hot path of MetadataPlusRows).
 */
export function compileRenderer(node: SchemaTree, wktColumns: Set<string>, asElement = false): Renderer {
  if (node.element.repetition_type === 'REPEATED' && !asElement) {
    const inner = compileRenderer(node, wktColumns, true);
    return (v) => (v === null || v === undefined ? null : Array.isArray(v) ? v.map(inner) : render(v));
  }
  if (!node.children.length) {
    const leaf = leafRenderer(node.element, wktColumns.has(node.path.join('.')));
    return (v) => (v === null || v === undefined ? null : leaf(v));
  }
  if (node.element.logical_type?.type === 'VARIANT') return render;
  if (isListLike(node)) {
    let sub = node.children[0];
    if (sub.children.length === 1) sub = sub.children[0];
    const inner = compileRenderer(sub, wktColumns, true);
    return (v) => (v === null || v === undefined ? null : Array.isArray(v) ? v.map(inner) : render(v));
  }
  if (isMapLike(node)) {
    const inner = compileRenderer(node.children[0].children[1], wktColumns, true);
    return (v) => {
      if (v === null || v === undefined) return null;
      if (typeof v !== 'object' || Array.isArray(v)) return render(v);
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) out[k] = inner(x);
      return out;
    };
  }
  const children = node.children.map((c) => [c.element.name, compileRenderer(c, wktColumns)] as const);
  return (v) => {
    if (v === null || v === undefined) return null;
    if (typeof v !== 'object' || Array.isArray(v) || v instanceof Uint8Array) return render(v);
    const obj = v as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const [name, r] of children) if (name in obj) out[name] = r(obj[name]);
    return out;
  };
}
