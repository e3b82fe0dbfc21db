// A small WKT reader producing GeoJSON geometries: POINT, LINESTRING, POLYGON, MULTI*,
// GEOMETRYCOLLECTION, with Z / M / ZM (M values are dropped: GeoJSON has no measure), EMPTY,
// EWKT's "SRID=n;" prefix, and the SQL/MM curve and surface types, which GeoJSON cannot
// hold and are linearised the way GDAL does for GeoJSON output (arcs in steps of 4°):
// CIRCULARSTRING, COMPOUNDCURVE → LineString; CURVEPOLYGON, TRIANGLE → Polygon;
// MULTICURVE → MultiLineString; MULTISURFACE, POLYHEDRALSURFACE, TIN → MultiPolygon.

export type Position = number[];

export type Geometry =
  | { type: 'Point'; coordinates: Position }
  | { type: 'LineString' | 'MultiPoint'; coordinates: Position[] }
  | { type: 'Polygon' | 'MultiLineString'; coordinates: Position[][] }
  | { type: 'MultiPolygon'; coordinates: Position[][][] }
  | { type: 'GeometryCollection'; geometries: Geometry[] };

export class WktError extends Error {}

const KEYWORDS = new Set([
  'POINT',
  'LINESTRING',
  'POLYGON',
  'MULTIPOINT',
  'MULTILINESTRING',
  'MULTIPOLYGON',
  'GEOMETRYCOLLECTION',
  'CIRCULARSTRING',
  'COMPOUNDCURVE',
  'CURVEPOLYGON',
  'MULTICURVE',
  'MULTISURFACE',
  'TRIANGLE',
  'TIN',
  'POLYHEDRALSURFACE',
]);

const WKT_PREFIX =
  /^\s*(?:SRID=\d+;\s*)?(?:POINT|LINESTRING|POLYGON|MULTIPOINT|MULTILINESTRING|MULTIPOLYGON|GEOMETRYCOLLECTION|CIRCULARSTRING|COMPOUNDCURVE|CURVEPOLYGON|MULTICURVE|MULTISURFACE|TRIANGLE|TIN|POLYHEDRALSURFACE)\s*(?:ZM|Z|M)?\s*(?:\(|EMPTY\s*$)/i;

/** Cheap test used while sampling: does the value start like a WKT geometry? */
export function looksLikeWkt(v: string): boolean {
  let i = 0;
  while (i < v.length && v.charCodeAt(i) <= 32) i++;
  const c = v.charCodeAt(i) | 32;
  // p l m g c t s(RID)
  if (c !== 112 && c !== 108 && c !== 109 && c !== 103 && c !== 99 && c !== 116 && c !== 115) return false;
  return WKT_PREFIX.test(v.length > 64 ? v.slice(0, 64) : v);
}

/** Cheap test used while sampling: does the value look like a GeoJSON geometry object? */
export function looksLikeGeoJson(v: string): boolean {
  let i = 0;
  while (i < v.length && v.charCodeAt(i) <= 32) i++;
  if (v.charCodeAt(i) !== 123) return false;
  return v.includes('"type"') && (v.includes('"coordinates"') || v.includes('"geometries"'));
}

const STEP = (4 * Math.PI) / 180;

class Reader {
  i = 0;
  constructor(readonly s: string) {}

  ws(): void {
    const s = this.s;
    while (this.i < s.length && s.charCodeAt(this.i) <= 32) this.i++;
  }

  peek(): number {
    this.ws();
    return this.i < this.s.length ? this.s.charCodeAt(this.i) : -1;
  }

  isWordStart(): boolean {
    const c = this.peek() | 32;
    return c >= 97 && c <= 122;
  }

  word(): string {
    this.ws();
    const s = this.s;
    const a = this.i;
    while (this.i < s.length) {
      const c = s.charCodeAt(this.i) | 32;
      if (c < 97 || c > 122) break;
      this.i++;
    }
    return s.slice(a, this.i).toUpperCase();
  }

  expect(ch: number): void {
    if (this.peek() !== ch) this.fail(`expected '${String.fromCharCode(ch)}'`);
    this.i++;
  }

  /** Consumes ch when it is next. */
  maybe(ch: number): boolean {
    if (this.peek() === ch) {
      this.i++;
      return true;
    }
    return false;
  }

  number(): number {
    this.ws();
    const s = this.s;
    const a = this.i;
    while (this.i < s.length) {
      const c = s.charCodeAt(this.i);
      // digits + - . e E
      if ((c >= 48 && c <= 57) || c === 43 || c === 45 || c === 46 || c === 101 || c === 69) this.i++;
      else break;
    }
    if (this.i === a) this.fail('expected a number');
    const n = Number(s.slice(a, this.i));
    if (!Number.isFinite(n)) this.fail('bad number');
    return n;
  }

  fail(msg: string): never {
    throw new WktError(`${msg} at offset ${this.i}`);
  }
}

/** Dimensions flag: 0 = infer from count, 1 = Z, 2 = M, 3 = ZM. */
type Dims = number;

function position(r: Reader, dims: Dims): Position {
  const x = r.number();
  const y = r.number();
  let n3: number | undefined;
  const c = r.peek();
  if (c !== 44 && c !== 41 && c !== -1) {
    n3 = r.number();
    const c2 = r.peek();
    if (c2 !== 44 && c2 !== 41 && c2 !== -1) r.number(); // M of XYZM: dropped
  }
  if (n3 === undefined || dims === 2) return [x, y];
  return [x, y, n3];
}

function positionList(r: Reader, dims: Dims): Position[] {
  r.expect(40);
  const out: Position[] = [position(r, dims)];
  while (r.maybe(44)) out.push(position(r, dims));
  r.expect(41);
  return out;
}

/** Reads an optional Z / M / ZM word and EMPTY; returns [dims, empty]. */
function tags(r: Reader, inherited: Dims): [Dims, boolean] {
  let dims = inherited;
  if (r.isWordStart()) {
    const save = r.i;
    const w = r.word();
    if (w === 'EMPTY') return [dims, true];
    if (w === 'Z') dims = 1;
    else if (w === 'M') dims = 2;
    else if (w === 'ZM') dims = 3;
    else r.i = save;
    if (r.isWordStart()) {
      const save2 = r.i;
      if (r.word() === 'EMPTY') return [dims, true];
      r.i = save2;
    }
  }
  return [dims, false];
}

/** Keyword with dimensions possibly glued on (POINTZ, LINESTRINGM, POLYGONZM). */
function keyword(r: Reader): [string, Dims] {
  const w = r.word();
  if (KEYWORDS.has(w)) return [w, 0];
  if (w.endsWith('ZM') && KEYWORDS.has(w.slice(0, -2))) return [w.slice(0, -2), 3];
  if (w.endsWith('Z') && KEYWORDS.has(w.slice(0, -1))) return [w.slice(0, -1), 1];
  if (w.endsWith('M') && KEYWORDS.has(w.slice(0, -1))) return [w.slice(0, -1), 2];
  return r.fail(w ? `unknown geometry type ${w}` : 'expected a geometry type');
}

function arc(p0: Position, p1: Position, p2: Position, out: Position[]): void {
  const [x0, y0] = p0;
  const [x1, y1] = p1;
  const [x2, y2] = p2;
  const z = p0.length > 2 && p2.length > 2;
  if (x0 === x2 && y0 === y2) {
    // Full circle through p0 and the diametrically opposite p1.
    const cx = (x0 + x1) / 2;
    const cy = (y0 + y1) / 2;
    const rr = Math.hypot(x0 - cx, y0 - cy);
    const a0 = Math.atan2(y0 - cy, x0 - cx);
    const steps = Math.ceil((2 * Math.PI) / STEP);
    for (let k = 1; k < steps; k++) {
      const a = a0 + (2 * Math.PI * k) / steps;
      out.push(z ? [cx + rr * Math.cos(a), cy + rr * Math.sin(a), p0[2]] : [cx + rr * Math.cos(a), cy + rr * Math.sin(a)]);
    }
    out.push(p2);
    return;
  }
  const d = 2 * (x0 * (y1 - y2) + x1 * (y2 - y0) + x2 * (y0 - y1));
  if (Math.abs(d) < 1e-12 * (Math.abs(x0) + Math.abs(y0) + 1)) {
    out.push(p1, p2); // collinear: straight segments
    return;
  }
  const s0 = x0 * x0 + y0 * y0;
  const s1 = x1 * x1 + y1 * y1;
  const s2 = x2 * x2 + y2 * y2;
  const cx = (s0 * (y1 - y2) + s1 * (y2 - y0) + s2 * (y0 - y1)) / d;
  const cy = (s0 * (x2 - x1) + s1 * (x0 - x2) + s2 * (x1 - x0)) / d;
  const rr = Math.hypot(x0 - cx, y0 - cy);
  const a0 = Math.atan2(y0 - cy, x0 - cx);
  let a2 = Math.atan2(y2 - cy, x2 - cx);
  const ccw = (x1 - x0) * (y2 - y0) - (y1 - y0) * (x2 - x0) > 0;
  if (ccw) while (a2 <= a0) a2 += 2 * Math.PI;
  else while (a2 >= a0) a2 -= 2 * Math.PI;
  const steps = Math.max(1, Math.ceil(Math.abs(a2 - a0) / STEP));
  for (let k = 1; k < steps; k++) {
    const t = k / steps;
    const a = a0 + (a2 - a0) * t;
    const x = cx + rr * Math.cos(a);
    const y = cy + rr * Math.sin(a);
    out.push(z ? [x, y, p0[2] + (p2[2] - p0[2]) * t] : [x, y]);
  }
  out.push(p2);
}

function linearizeCircular(pts: Position[]): Position[] {
  if (pts.length < 3 || pts.length % 2 === 0) throw new WktError('CIRCULARSTRING needs an odd number (≥3) of points');
  const out: Position[] = [pts[0]];
  for (let k = 0; k + 2 < pts.length; k += 2) arc(pts[k], pts[k + 1], pts[k + 2], out);
  return out;
}

/** A curve member: "(x y, ...)", LINESTRING(...), CIRCULARSTRING(...) or COMPOUNDCURVE(...). */
function curve(r: Reader, dims: Dims): Position[] | null {
  if (r.peek() === 40) return positionList(r, dims);
  const [kw, d0] = keyword(r);
  const [d, empty] = tags(r, d0 || dims);
  if (empty) return null;
  switch (kw) {
    case 'LINESTRING':
      return positionList(r, d);
    case 'CIRCULARSTRING':
      return linearizeCircular(positionList(r, d));
    case 'COMPOUNDCURVE':
      return compound(r, d);
    default:
      return r.fail(`${kw} is not a curve`);
  }
}

function samePoint(a: Position, b: Position): boolean {
  return a[0] === b[0] && a[1] === b[1];
}

/** Polygon body "((ring), (ring))" whose rings may be curves. */
function polygonBody(r: Reader, dims: Dims): Position[][] {
  r.expect(40);
  const rings: Position[][] = [];
  do {
    const ring = curve(r, dims);
    if (ring) rings.push(ring);
  } while (r.maybe(44));
  r.expect(41);
  return rings;
}

/** A surface member: polygon body, POLYGON(...), CURVEPOLYGON(...) or TRIANGLE(...). */
function surface(r: Reader, dims: Dims): Position[][] | null {
  if (r.peek() === 40) return polygonBody(r, dims);
  const [kw, d0] = keyword(r);
  const [d, empty] = tags(r, d0 || dims);
  if (empty) return null;
  if (kw !== 'POLYGON' && kw !== 'CURVEPOLYGON' && kw !== 'TRIANGLE') r.fail(`${kw} is not a surface`);
  const rings = polygonBody(r, d);
  return rings.length ? rings : null;
}

function readGeometry(r: Reader): Geometry | null {
  const [kw, d0] = keyword(r);
  const [dims, empty] = tags(r, d0);
  if (empty) return null;
  switch (kw) {
    case 'POINT': {
      r.expect(40);
      const p = position(r, dims);
      r.expect(41);
      return { type: 'Point', coordinates: p };
    }
    case 'LINESTRING':
      return { type: 'LineString', coordinates: positionList(r, dims) };
    case 'CIRCULARSTRING':
      return { type: 'LineString', coordinates: linearizeCircular(positionList(r, dims)) };
    case 'COMPOUNDCURVE': {
      const pts = compound(r, dims);
      return pts ? { type: 'LineString', coordinates: pts } : null;
    }
    case 'POLYGON':
    case 'TRIANGLE':
    case 'CURVEPOLYGON': {
      const rings = polygonBody(r, dims);
      return rings.length ? { type: 'Polygon', coordinates: rings } : null;
    }
    case 'MULTIPOINT': {
      r.expect(40);
      const pts: Position[] = [];
      do {
        if (r.isWordStart()) {
          if (r.word() !== 'EMPTY') r.fail('expected EMPTY');
          continue;
        }
        if (r.maybe(40)) {
          pts.push(position(r, dims));
          r.expect(41);
        } else pts.push(position(r, dims));
      } while (r.maybe(44));
      r.expect(41);
      return pts.length ? { type: 'MultiPoint', coordinates: pts } : null;
    }
    case 'MULTILINESTRING':
    case 'MULTICURVE': {
      r.expect(40);
      const lines: Position[][] = [];
      do {
        const c = memberOrEmpty(r) ? null : curve(r, dims);
        if (c) lines.push(c);
      } while (r.maybe(44));
      r.expect(41);
      return lines.length ? { type: 'MultiLineString', coordinates: lines } : null;
    }
    case 'MULTIPOLYGON':
    case 'MULTISURFACE':
    case 'POLYHEDRALSURFACE':
    case 'TIN': {
      r.expect(40);
      const polys: Position[][][] = [];
      do {
        const s = memberOrEmpty(r) ? null : surface(r, dims);
        if (s) polys.push(s);
      } while (r.maybe(44));
      r.expect(41);
      return polys.length ? { type: 'MultiPolygon', coordinates: polys } : null;
    }
    case 'GEOMETRYCOLLECTION': {
      r.expect(40);
      const geoms: Geometry[] = [];
      do {
        const g = readGeometry(r);
        if (g) geoms.push(g);
      } while (r.maybe(44));
      r.expect(41);
      return geoms.length ? { type: 'GeometryCollection', geometries: geoms } : null;
    }
    default:
      return r.fail(`unsupported geometry type ${kw}`);
  }
}

/** COMPOUNDCURVE body after its keyword and tags. */
function compound(r: Reader, dims: Dims): Position[] | null {
  r.expect(40);
  const out: Position[] = [];
  do {
    const part = curve(r, dims);
    if (!part) continue;
    const skipFirst = out.length > 0 && samePoint(out[out.length - 1], part[0]);
    for (let k = skipFirst ? 1 : 0; k < part.length; k++) out.push(part[k]);
  } while (r.maybe(44));
  r.expect(41);
  return out.length ? out : null;
}

/** Consumes a bare EMPTY member inside a multi geometry. */
function memberOrEmpty(r: Reader): boolean {
  if (!r.isWordStart()) return false;
  const save = r.i;
  if (r.word() === 'EMPTY') return true;
  r.i = save;
  return false;
}

export interface WktResult {
  geometry: Geometry | null;
  srid: number | null;
}

/** Parses WKT/EWKT; geometry is null for EMPTY. Throws WktError on malformed text. */
export function parseWkt(text: string): WktResult {
  const r = new Reader(text);
  r.ws();
  let srid: number | null = null;
  if ((text.charCodeAt(r.i) | 32) === 115 && /^srid=/i.test(text.slice(r.i, r.i + 5))) {
    const semi = text.indexOf(';', r.i);
    if (semi < 0) r.fail('SRID without ;');
    srid = Number(text.slice(r.i + 5, semi));
    r.i = semi + 1;
  }
  const geometry = readGeometry(r);
  if (r.peek() !== -1) r.fail('unexpected text after geometry');
  return { geometry, srid };
}

const GEOJSON_TYPES = new Set(['Point', 'LineString', 'Polygon', 'MultiPoint', 'MultiLineString', 'MultiPolygon']);

/** Parses a GeoJSON geometry (or Feature) cell; null for empty; throws on invalid. */
export function parseGeoJsonGeometry(text: string): Geometry | null {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new WktError('invalid JSON');
  }
  return checkGeoJson(v, 0);
}

function checkGeoJson(v: unknown, depth: number): Geometry | null {
  if (!v || typeof v !== 'object' || depth > 8) throw new WktError('not a GeoJSON geometry');
  const o = v as { type?: unknown; coordinates?: unknown; geometries?: unknown; geometry?: unknown };
  if (o.type === 'Feature') return o.geometry == null ? null : checkGeoJson(o.geometry, depth + 1);
  if (o.type === 'GeometryCollection') {
    if (!Array.isArray(o.geometries)) throw new WktError('GeometryCollection without geometries');
    const geoms = (o.geometries as unknown[]).map((g) => checkGeoJson(g, depth + 1)).filter((g): g is Geometry => !!g);
    return geoms.length ? { type: 'GeometryCollection', geometries: geoms } : null;
  }
  if (typeof o.type !== 'string' || !GEOJSON_TYPES.has(o.type)) throw new WktError('not a GeoJSON geometry type');
  if (!Array.isArray(o.coordinates)) throw new WktError('geometry without coordinates');
  if (o.coordinates.length === 0) return null;
  checkCoords(o.coordinates, o.type === 'Point' ? 0 : o.type === 'LineString' || o.type === 'MultiPoint' ? 1 : o.type === 'MultiPolygon' ? 3 : 2);
  return { type: o.type, coordinates: o.coordinates } as Geometry;
}

function checkCoords(c: unknown[], depth: number): void {
  if (depth === 0) {
    if (c.length < 2 || typeof c[0] !== 'number' || typeof c[1] !== 'number' || !Number.isFinite(c[0]) || !Number.isFinite(c[1]))
      throw new WktError('bad position');
    return;
  }
  for (const e of c) {
    if (!Array.isArray(e)) throw new WktError('bad coordinates nesting');
    checkCoords(e, depth - 1);
  }
}

/** Running bounding box over geometries. */
export class Bounds {
  minX = Infinity;
  minY = Infinity;
  maxX = -Infinity;
  maxY = -Infinity;

  addPoint(x: number, y: number): void {
    if (x < this.minX) this.minX = x;
    if (x > this.maxX) this.maxX = x;
    if (y < this.minY) this.minY = y;
    if (y > this.maxY) this.maxY = y;
  }

  add(g: Geometry): void {
    if (g.type === 'GeometryCollection') {
      for (const m of g.geometries) this.add(m);
      return;
    }
    this.walk(g.coordinates as unknown[]);
  }

  private walk(c: unknown[]): void {
    if (typeof c[0] === 'number') {
      this.addPoint(c[0], c[1] as number);
      return;
    }
    for (const e of c) this.walk(e as unknown[]);
  }

  get empty(): boolean {
    return this.minX > this.maxX;
  }

  toArray(): [number, number, number, number] | null {
    return this.empty ? null : [this.minX, this.minY, this.maxX, this.maxY];
  }
}
