// FlatGeobuf → GeoJSON features, written the way GDAL's GeoJSONSeq writer writes them.
//
// Why: GDAL (WASM) spends about half of the export writing GeoJSON text (json-c objects,
// ostringstream number formatting). For layers where it is safe, GDAL reprojects into a
// FlatGeobuf file (no spatial index, so features keep their order) and the GeoJSON text is
// produced here, with the rules of GDAL 3.8's GeoJSONSeq writer (RFC 7946 settings,
// COORDINATE_PRECISION=7):
// - coordinates: `%.7f` then GDAL's `intelliround` (trailing 00000x / 99999x runs), as
//   OGR_json_double_with_precision_to_string does; values above 1e50 as they are;
// - polygon rings re-oriented by OGRLinearRing::isClockwise (exterior counter-clockwise,
//   interior rings clockwise);
// - real properties: `%.17g`, or `%.16g`/`%.15g`/`%.14g` when the digits after the point hold
//   a run of six 0s or 9s (OGR_json_double_with_significant_figures_to_string);
// - int64 properties written as exact integers (never through a JS number);
// - "id": the source FID, as the GeoJSONSeq writer with -preserve_fid writes it — FlatGeobuf
//   keeps none, so the export selects it into a first column (fidSelect, FID_COLUMN).
// Anything this module cannot render with the same meaning makes `checkFgb` refuse the
// file, and the caller exports that layer through GDAL's GeoJSONSeq writer as before.
import { open } from 'node:fs/promises';
import * as flatbuffers from 'flatbuffers';
import { ColumnType } from 'flatgeobuf/lib/mjs/flat-geobuf/column-type.js';
import { Feature } from 'flatgeobuf/lib/mjs/flat-geobuf/feature.js';
import { GeometryType } from 'flatgeobuf/lib/mjs/flat-geobuf/geometry-type.js';
import { Geometry } from 'flatgeobuf/lib/mjs/flat-geobuf/geometry.js';
import { Header } from 'flatgeobuf/lib/mjs/flat-geobuf/header.js';
import { formatCoord, formatReal } from './geojson-numbers.js';

const MAGIC = [0x66, 0x67, 0x62, 0x03, 0x66, 0x67, 0x62];
const CHUNK = 1024 * 1024;

/** Drivers whose fields are never "unset" (FlatGeobuf keeps no difference between unset and null) and that carry no native GeoJSON data. */
const FGB_DRIVERS = new Set(['ESRI Shapefile', 'OpenFileGDB', 'MapInfo File']);
/** Drivers whose features all have the dimension (2D/3D) of their layer (FlatGeobuf stores Z per layer). */
const FIXED_DIMENSION_DRIVERS = new Set(['ESRI Shapefile', 'OpenFileGDB', 'MapInfo File']);

/**
 * Why a layer (from `ogrinfo -json`) cannot take the FlatGeobuf route, or null when it can.
 * Field types other than Integer (plain, Boolean, Int16), Integer64, Real and String, several
 * geometry fields, measured (M) geometries and curve / surface layer types all stay on the
 * GeoJSONSeq writer.
 */
export function fgbIneligible(layer: any, driver: string): string | null {
  if (!FGB_DRIVERS.has(driver)) return `driver ${driver}`;
  const gfs = Array.isArray(layer.geometryFields) ? layer.geometryFields : [];
  if (gfs.length > 1) return 'several geometry fields';
  for (const f of Array.isArray(layer.fields) ? layer.fields : []) {
    const t = String(f?.type);
    const st = f?.subType ? String(f.subType) : '';
    if (t === 'Integer' && (st === '' || st === 'Boolean' || st === 'Int16')) continue;
    if ((t === 'Integer64' || t === 'Real' || t === 'String') && st === '') continue;
    return `field type ${t}${st ? `(${st})` : ''}`;
  }
  if (gfs.length === 1) {
    const t = String(gfs[0]?.type ?? '');
    // ogrinfo -json names: "Point", "Multi Polygon"/"MultiPolygon", "3D Polygon", "Polygon Z", "Unknown (any)", …
    const flat = t.replace(/\s+/g, '').toLowerCase();
    if (/m$|measured|zm/.test(flat) && !/^(multi)?(point|linestring|polygon)$/.test(flat)) return `geometry type ${t}`;
    if (/curve|surface|tin|triangle|polyhedral|circular|compound/.test(flat)) return `geometry type ${t}`;
    const is3d = /^3d|z$|25d$/.test(flat);
    if (is3d && !FIXED_DIMENSION_DRIVERS.has(driver)) return `3D geometry from ${driver}`;
    // Mixed layers: FlatGeobuf keeps one dimension per layer; only MapInfo (always 2D) is safe.
    if (/unknown|^geometry|collection/.test(flat) && driver !== 'MapInfo File') return `geometry type ${t} from ${driver}`;
  }
  return null;
}

/** `-nlt` for the FlatGeobuf export: a layer of any type (each feature keeps its own), with the layer's dimension. */
export function fgbLayerType(layer: any): string {
  const gf = Array.isArray(layer.geometryFields) ? layer.geometryFields[0] : undefined;
  const flat = String(gf?.type ?? '')
    .replace(/\s+/g, '')
    .toLowerCase();
  return /^3d|z$|25d$/.test(flat) ? 'GEOMETRY25D' : 'GEOMETRY';
}

// --- ring orientation --------------------------------------------------------------------

/** OGRLinearRing::isClockwise on positions [from, to) of the xy vector at byte offset `at`. */
function isClockwise(dv: DataView, at: number, from: number, to: number): boolean {
  const n = to - from;
  if (n < 2) return true;
  const X = (i: number) => dv.getFloat64(at + 16 * (from + i), true);
  const Y = (i: number) => dv.getFloat64(at + 16 * (from + i) + 8, true);
  let fallback = false;
  let v = 0;
  for (let i = 1; i < n - 1; i++) {
    const yi = Y(i);
    const yv = Y(v);
    if (yi < yv || (yi === yv && X(i) > X(v))) {
      v = i;
      fallback = false;
    } else if (yi === yv && X(i) === X(v)) {
      fallback = true;
    }
  }
  const EPS = 1e-5;
  let next = v - 1;
  if (next < 0) next = n - 1 - 1;
  if (Math.abs(X(next) - X(v)) < EPS && Math.abs(Y(next) - Y(v)) < EPS) fallback = true;
  const dx0 = X(next) - X(v);
  const dy0 = Y(next) - Y(v);
  next = v + 1;
  if (next >= n - 1) next = 0;
  if (Math.abs(X(next) - X(v)) < EPS && Math.abs(Y(next) - Y(v)) < EPS) fallback = true;
  const dx1 = X(next) - X(v);
  const dy1 = Y(next) - Y(v);
  const cross = dx1 * dy0 - dx0 * dy1;
  if (!fallback) {
    if (cross > 0) return false;
    if (cross < 0) return true;
  }
  let sum = X(0) * (Y(1) - Y(n - 1));
  for (let i = 1; i < n - 1; i++) sum += X(i) * (Y(i + 1) - Y(i - 1));
  sum += X(n - 1) * (Y(0) - Y(n - 2));
  return sum < 0;
}

// --- FlatGeobuf access ---------------------------------------------------------------------

interface Col {
  key: string;
  type: ColumnType;
}

interface FgbHeader {
  geometryType: GeometryType;
  hasZ: boolean;
  hasM: boolean;
  columns: Col[];
  featuresCount: number;
}

/** A vector of a flatbuffer table: absolute byte offset and element count (len -1: absent). */
interface Vec {
  at: number;
  len: number;
}

function vec(bb: flatbuffers.ByteBuffer, pos: number, slot: number, out: Vec): Vec {
  const o = bb.__offset(pos, slot);
  if (!o) {
    out.at = 0;
    out.len = -1;
  } else {
    out.at = bb.__vector(pos + o);
    out.len = bb.__vector_len(pos + o);
  }
  return out;
}

/** Problem found while checking or rendering: the layer must go through GDAL's GeoJSON writer. */
export class FgbUnsupported extends Error {}

const CURVES = new Set<GeometryType>([
  GeometryType.CircularString,
  GeometryType.CompoundCurve,
  GeometryType.CurvePolygon,
  GeometryType.MultiCurve,
  GeometryType.MultiSurface,
  GeometryType.Curve,
  GeometryType.Surface,
  GeometryType.PolyhedralSurface,
  GeometryType.TIN,
  GeometryType.Triangle,
]);

const GEOJSON_TYPE: Partial<Record<GeometryType, string>> = {
  [GeometryType.Point]: 'Point',
  [GeometryType.LineString]: 'LineString',
  [GeometryType.Polygon]: 'Polygon',
  [GeometryType.MultiPoint]: 'MultiPoint',
  [GeometryType.MultiLineString]: 'MultiLineString',
  [GeometryType.MultiPolygon]: 'MultiPolygon',
  [GeometryType.GeometryCollection]: 'GeometryCollection',
};

/** Extent of the written (rounded) coordinates. */
export class Extent {
  minX = Infinity;
  minY = Infinity;
  maxX = -Infinity;
  maxY = -Infinity;
  value(): number[] | null {
    return this.minX <= this.maxX ? [this.minX, this.minY, this.maxX, this.maxY] : null;
  }
}

class Renderer {
  /** View over the whole read buffer (set per chunk by renderFgb). */
  dv!: DataView;
  buf!: Buffer;
  bb!: flatbuffers.ByteBuffer;
  // Extent of the raw coordinates; rounded once at the end (the rounding is monotonic).
  minX = Infinity;
  minY = Infinity;
  maxX = -Infinity;
  maxY = -Infinity;
  private readonly xy: Vec = { at: 0, len: -1 };
  private readonly z: Vec = { at: 0, len: -1 };
  private readonly ends: Vec = { at: 0, len: -1 };

  /** The last feature's FID as text when the first column holds it (`fidColumn`), else null. */
  id: string | null = null;

  constructor(
    private readonly header: FgbHeader,
    /** Check only (no text): the first pass over a layer. */
    private readonly dry: boolean,
    /** The first column is the source FID (FID_COLUMN): it becomes the feature's `id`, not a property. */
    private readonly fidColumn = false,
  ) {}

  private coord(i: number, hasZ: boolean): string {
    const dv = this.dv;
    const x = dv.getFloat64(this.xy.at + 16 * i, true);
    const y = dv.getFloat64(this.xy.at + 16 * i + 8, true);
    if (!Number.isFinite(x) || !Number.isFinite(y)) throw new FgbUnsupported('non-finite coordinate');
    if (x < this.minX) this.minX = x;
    if (x > this.maxX) this.maxX = x;
    if (y < this.minY) this.minY = y;
    if (y > this.maxY) this.maxY = y;
    if (hasZ) {
      const zv = dv.getFloat64(this.z.at + 8 * i, true);
      if (!Number.isFinite(zv)) throw new FgbUnsupported('non-finite coordinate');
      return this.dry ? '' : `[${formatCoord(x)},${formatCoord(y)},${formatCoord(zv)}]`;
    }
    return this.dry ? '' : `[${formatCoord(x)},${formatCoord(y)}]`;
  }

  private run(from: number, to: number, reverse: boolean, hasZ: boolean): string {
    let out = '[';
    if (reverse) {
      for (let i = to - 1; i >= from; i--) {
        out += this.coord(i, hasZ);
        if (i > from) out += ',';
      }
    } else {
      for (let i = from; i < to; i++) {
        if (i > from) out += ',';
        out += this.coord(i, hasZ);
      }
    }
    return `${out}]`;
  }

  /** Loads xy (and z) of a geometry table; returns the number of positions. */
  private load(g: Geometry): { n: number; hasZ: boolean } {
    const pos = (g as any).bb_pos as number;
    vec(this.bb, pos, 6, this.xy);
    if (this.xy.len <= 0 || this.xy.len % 2) throw new FgbUnsupported('empty geometry');
    const n = this.xy.len / 2;
    let hasZ = false;
    if (this.header.hasZ) {
      vec(this.bb, pos, 8, this.z);
      if (this.z.len !== n) throw new FgbUnsupported('z count differs');
      hasZ = true;
    }
    vec(this.bb, pos, 4, this.ends);
    return { n, hasZ };
  }

  private endAt(r: number, n: number): number {
    if (this.ends.len < 0) return n;
    return this.dv.getUint32(this.ends.at + 4 * r, true);
  }

  private polygonBody(g: Geometry): string {
    const { n, hasZ } = this.load(g);
    const rings = this.ends.len < 0 ? 1 : this.ends.len;
    if (rings === 0) throw new FgbUnsupported('polygon without rings');
    let out = '[';
    let from = 0;
    for (let r = 0; r < rings; r++) {
      const to = this.endAt(r, n);
      if (to <= from || to > n) throw new FgbUnsupported('bad ring');
      if (r) out += ',';
      if (this.dry) this.run(from, to, false, hasZ);
      else {
        const cw = isClockwise(this.dv, this.xy.at, from, to);
        out += this.run(from, to, r === 0 ? cw : !cw, hasZ);
      }
      from = to;
    }
    if (from !== n) throw new FgbUnsupported('positions after the last ring');
    return `${out}]`;
  }

  geometry(g: Geometry, declared: GeometryType): string {
    const t = declared === GeometryType.Unknown ? g.type() : declared;
    if (CURVES.has(t)) throw new FgbUnsupported('curve or surface geometry');
    const name = GEOJSON_TYPE[t];
    if (!name) throw new FgbUnsupported(`geometry type ${t}`);
    if (t === GeometryType.GeometryCollection || t === GeometryType.MultiPolygon) {
      const n = g.partsLength();
      if (!n) throw new FgbUnsupported('empty collection');
      const parts: string[] = [];
      for (let i = 0; i < n; i++) {
        const p = g.parts(i);
        if (!p) throw new FgbUnsupported('missing part');
        if (t === GeometryType.MultiPolygon) {
          const pt = p.type();
          if (pt !== GeometryType.Polygon && pt !== GeometryType.Unknown) throw new FgbUnsupported('multipolygon part is not a polygon');
          parts.push(this.polygonBody(p));
        } else parts.push(this.geometry(p, GeometryType.Unknown));
      }
      return t === GeometryType.MultiPolygon
        ? `{"type":"MultiPolygon","coordinates":[${parts.join(',')}]}`
        : `{"type":"GeometryCollection","geometries":[${parts.join(',')}]}`;
    }
    if (g.partsLength()) throw new FgbUnsupported('unexpected parts');
    if (t === GeometryType.Polygon) return `{"type":"Polygon","coordinates":${this.polygonBody(g)}}`;
    const { n, hasZ } = this.load(g);
    if (t === GeometryType.Point) {
      if (n !== 1 || this.ends.len >= 0) throw new FgbUnsupported('point with several positions');
      return `{"type":"Point","coordinates":${this.coord(0, hasZ)}}`;
    }
    if (t === GeometryType.LineString || t === GeometryType.MultiPoint) {
      if (this.ends.len >= 0) throw new FgbUnsupported('unexpected ends');
      return `{"type":"${name}","coordinates":${this.run(0, n, false, hasZ)}}`;
    }
    // MultiLineString
    const lines = this.ends.len < 0 ? 1 : this.ends.len;
    if (lines === 0) throw new FgbUnsupported('multilinestring without lines');
    let out = '[';
    let from = 0;
    for (let r = 0; r < lines; r++) {
      const to = this.endAt(r, n);
      if (to <= from || to > n) throw new FgbUnsupported('bad line');
      if (r) out += ',';
      out += this.run(from, to, false, hasZ);
      from = to;
    }
    if (from !== n) throw new FgbUnsupported('positions after the last line');
    return `{"type":"MultiLineString","coordinates":${out}]}`;
  }

  properties(f: Feature, values: (string | null)[]): string {
    const cols = this.header.columns;
    const p: Vec = vec(this.bb, (f as any).bb_pos as number, 6, { at: 0, len: -1 });
    if (p.len > 0) {
      const dv = this.dv;
      const endAt = p.at + p.len;
      let o = p.at;
      while (o < endAt) {
        if (o + 2 > endAt) throw new FgbUnsupported('truncated properties');
        const ci = dv.getUint16(o, true);
        o += 2;
        const c = cols[ci];
        if (!c) throw new FgbUnsupported('property of an unknown column');
        let v: string;
        switch (c.type) {
          case ColumnType.Bool:
            v = dv.getUint8(o) ? 'true' : 'false';
            o += 1;
            break;
          case ColumnType.Byte:
            v = String(dv.getInt8(o));
            o += 1;
            break;
          case ColumnType.UByte:
            v = String(dv.getUint8(o));
            o += 1;
            break;
          case ColumnType.Short:
            v = String(dv.getInt16(o, true));
            o += 2;
            break;
          case ColumnType.UShort:
            v = String(dv.getUint16(o, true));
            o += 2;
            break;
          case ColumnType.Int:
            v = String(dv.getInt32(o, true));
            o += 4;
            break;
          case ColumnType.UInt:
            v = String(dv.getUint32(o, true));
            o += 4;
            break;
          case ColumnType.Long:
            v = this.dry ? '' : dv.getBigInt64(o, true).toString();
            o += 8;
            break;
          case ColumnType.Double: {
            const d = dv.getFloat64(o, true);
            // GDAL leaves non-finite reals out of the properties (with a warning): not rendered here.
            if (!Number.isFinite(d)) throw new FgbUnsupported('non-finite real');
            v = this.dry ? '' : formatReal(d);
            o += 8;
            break;
          }
          case ColumnType.String: {
            const len = dv.getUint32(o, true);
            o += 4;
            if (o + len > endAt) throw new FgbUnsupported('truncated properties');
            if (len > 0) {
              const a = this.buf[o];
              const b = this.buf[o + len - 1];
              // GDAL's writer turns "{…}" / "[…]" strings that parse as JSON into JSON values.
              if ((a === 0x7b && b === 0x7d) || (a === 0x5b && b === 0x5d)) throw new FgbUnsupported('JSON-like string');
            }
            v = this.dry ? '' : JSON.stringify(this.buf.toString('utf8', o, o + len));
            o += len;
            break;
          }
          default:
            throw new FgbUnsupported(`column type ${c.type}`);
        }
        if (o > endAt) throw new FgbUnsupported('truncated properties');
        values[ci] = v;
      }
    }
    if (this.dry) {
      // OGR SQL's FID is a 32-bit field: a larger FID (a seamless MapInfo table's) arrives clamped.
      if (this.fidColumn && (values[0] === null || values[0] === '2147483647' || values[0] === '-2147483648')) throw new FgbUnsupported('FID beyond 32 bits');
      values.fill(null);
      return '';
    }
    let out = '{';
    const first = this.fidColumn ? 1 : 0;
    if (this.fidColumn) {
      this.id = values[0];
      values[0] = null;
    }
    for (let i = first; i < cols.length; i++) {
      if (i > first) out += ',';
      out += cols[i].key;
      out += values[i] ?? 'null';
      values[i] = null;
    }
    return `${out}}`;
  }
}

function readHeader(buf: Uint8Array, len: number): { header: FgbHeader; end: number } | null {
  if (len < 12) return null;
  for (let i = 0; i < MAGIC.length; i++) if (buf[i] !== MAGIC[i]) throw new FgbUnsupported('not a FlatGeobuf file');
  const size = new DataView(buf.buffer, buf.byteOffset, 12).getUint32(8, true);
  if (len < 12 + size) return null;
  const bb = new flatbuffers.ByteBuffer(buf.subarray(0, 12 + size));
  bb.setPosition(8);
  const h = Header.getSizePrefixedRootAsHeader(bb);
  if (h.indexNodeSize() !== 0 && Number(h.featuresCount()) > 0) throw new FgbUnsupported('spatial index present');
  const columns: Col[] = [];
  for (let i = 0; i < h.columnsLength(); i++) {
    const c = h.columns(i)!;
    columns.push({ key: `${JSON.stringify(c.name() ?? '')}:`, type: c.type() });
  }
  return {
    header: { geometryType: h.geometryType(), hasZ: h.hasZ(), hasM: h.hasM(), columns, featuresCount: Number(h.featuresCount()) },
    end: 12 + size,
  };
}

/**
 * FlatGeobuf keeps no FID (a feature's is its index): the export selects the source FID into a
 * first column of this name (`fidSelect`), and the renderer gives it back as the feature's `id`.
 */
export const FID_COLUMN = 'docparse_fid';

/**
 * OGR SQL selecting the layer's FID into FID_COLUMN, then every field and the geometry; null
 * when the layer name cannot be quoted or a field already has that name (the layer then takes
 * the GeoJSONSeq writer, which keeps FIDs itself).
 */
export function fidSelect(layer: any): string | null {
  const name = String(layer.name);
  if (name.includes('"') || /[\x00-\x1f]/.test(name)) return null;
  if ((Array.isArray(layer.fields) ? layer.fields : []).some((f: any) => String(f?.name).toLowerCase() === FID_COLUMN)) return null;
  return `SELECT FID AS "${FID_COLUMN}", * FROM "${name}"`;
}

/**
 * Reads the FlatGeobuf file in 1 MiB chunks and calls `onFeature` with each feature's GeoJSON
 * text (one line, no newline); `afterChunk` runs between chunks (flushing output).
 * `noGeometry`: the source layer has no geometry field (features carry geometry null).
 * Throws FgbUnsupported on anything that would not render with GDAL's meaning.
 */
export async function renderFgb(
  file: string,
  noGeometry: boolean,
  onFeature: ((line: string) => void) | null,
  afterChunk: (() => Promise<void>) | null,
  extent: Extent,
  fidColumn = false,
): Promise<{ header: FgbHeader; count: number }> {
  const fh = await open(file, 'r');
  try {
    let buf = Buffer.alloc(CHUNK);
    let start = 0;
    let end = 0;
    let eof = false;
    let header: FgbHeader | null = null;
    let renderer: Renderer | null = null;
    let values: (string | null)[] = [];
    let bb = new flatbuffers.ByteBuffer(buf);
    const feat = new Feature();
    const geom = new Geometry();
    let count = 0;
    for (;;) {
      // Parse what is buffered.
      if (!header) {
        const r = readHeader(buf.subarray(start), end - start);
        if (r) {
          header = r.header;
          start += r.end;
          if (header.hasM) throw new FgbUnsupported('measured geometries');
          if (CURVES.has(header.geometryType)) throw new FgbUnsupported('curve or surface layer');
          if (fidColumn && header.columns[0]?.key !== `${JSON.stringify(FID_COLUMN)}:`) throw new FgbUnsupported('no FID column');
          renderer = new Renderer(header, onFeature === null, fidColumn);
          values = new Array(header.columns.length).fill(null);
        }
      }
      if (header && renderer) {
        const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
        renderer.dv = dv;
        renderer.buf = buf;
        renderer.bb = bb;
        while (end - start >= 4) {
          const size = dv.getUint32(start, true);
          if (end - start < 4 + size) break;
          if (size < 8) throw new FgbUnsupported('bad feature size');
          bb.setPosition(start);
          Feature.getSizePrefixedRootAsFeature(bb, feat);
          const g = feat.geometry(geom);
          let gtext: string;
          if (!g) {
            // FlatGeobuf writes null and empty geometries alike: only a layer without geometry is unambiguous.
            if (!noGeometry) throw new FgbUnsupported('null or empty geometry');
            gtext = 'null';
          } else {
            if (noGeometry) throw new FgbUnsupported('geometry in a layer without geometry');
            gtext = renderer.geometry(g, header.geometryType);
          }
          const props = renderer.properties(feat, values);
          if (onFeature) {
            // GDAL's GeoJSONSeq writer with -preserve_fid: "id" after "type", when the feature has an FID
            const id = renderer.id !== null && renderer.id !== 'null' ? `"id":${renderer.id},` : '';
            onFeature(`{"type":"Feature",${id}"properties":${props},"geometry":${gtext}}`);
          }
          count++;
          start += 4 + size;
        }
      }
      if (afterChunk) await afterChunk();
      if (eof) break;
      // Keep the unparsed tail; grow for a feature larger than the buffer.
      if (start > 0) {
        buf.copyWithin(0, start, end);
        end -= start;
        start = 0;
      }
      let need = CHUNK;
      if (header && end >= 4) need = Math.max(CHUNK, 4 + new DataView(buf.buffer, buf.byteOffset).getUint32(0, true) + CHUNK);
      else if (!header && end >= 12) need = Math.max(CHUNK, 12 + new DataView(buf.buffer, buf.byteOffset).getUint32(8, true) + CHUNK);
      if (need > buf.length) {
        const nb = Buffer.alloc(need);
        buf.copy(nb, 0, 0, end);
        buf = nb;
        bb = new flatbuffers.ByteBuffer(buf);
      }
      const { bytesRead } = await fh.read(buf, end, buf.length - end, null);
      if (bytesRead === 0) eof = true;
      end += bytesRead;
    }
    if (!header) throw new FgbUnsupported('truncated file (no header)');
    if (end - start !== 0) throw new FgbUnsupported('truncated feature at the end');
    if (renderer && renderer.minX <= renderer.maxX) {
      // Extent of the written coordinates: the rounding is monotonic, so rounding the raw extent gives the same.
      extent.minX = Number(formatCoord(renderer.minX));
      extent.minY = Number(formatCoord(renderer.minY));
      extent.maxX = Number(formatCoord(renderer.maxX));
      extent.maxY = Number(formatCoord(renderer.maxY));
    }
    return { header, count };
  } finally {
    await fh.close();
  }
}
