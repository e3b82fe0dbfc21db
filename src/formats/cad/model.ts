// The engine-neutral drawing model both readers (LibreDWG for DWG, our own group-code reader
// for DXF) produce, and the helpers they share. writer.ts turns it into the artifact content.
//
// Geometry is compact (documented in schema.ts): points are [x, y] or [x, y, z] arrays
// (z left out when 0), angles in radians, coordinates in drawing units (see `units`).
import { stat } from 'node:fs/promises';
import { ExtractionError } from '../kit/types.js';

export type Pt = number[];

export interface CadGeometry {
  kind: string;
  [k: string]: unknown;
}

export interface CadText {
  kind: 'TEXT' | 'MTEXT' | 'ATTRIB' | 'ATTDEF' | 'DIMENSION' | 'MULTILEADER' | 'TOLERANCE' | 'ACAD_TABLE';
  /** Raw string as stored (MTEXT keeps its formatting codes). */
  text: string;
  /** Text with MTEXT formatting codes and %%-codes resolved. */
  plainText: string;
  position: Pt | null;
  height: number | null;
  rotation: number | null;
  layer: string;
  /** Owner: *Model_Space, a *Paper_Space layout block or a named block. */
  block: string;
  handle: string | null;
  /** ATTRIB/ATTDEF tag. */
  tag?: string;
  /** ATTRIB: handle of the INSERT it belongs to. */
  insertHandle?: string | null;
}

export interface CadEntity {
  handle: string | null;
  type: string;
  layer: string;
  block: string;
  color: number | null;
  lineType: string | null;
  geometry: CadGeometry;
}

export interface CadLayer {
  name: string;
  colorIndex: number | null;
  trueColor: string | null;
  lineType: string | null;
  lineWeight: number | null;
  on: boolean;
  frozen: boolean;
  locked: boolean;
  plot: boolean | null;
}

export interface CadBlock {
  name: string;
  handle: string | null;
  flags: number;
  anonymous: boolean;
  xref: boolean;
  basePoint: Pt | null;
  description: string | null;
  /** Layout this block record belongs to (model and paper space blocks only). */
  layout: string | null;
  entityCount: number;
  entityCounts: Record<string, number>;
  /** INSERT entities (anywhere in the drawing) that reference this block. */
  references: number;
}

export interface CadLayout {
  name: string;
  tabOrder: number | null;
  block: string | null;
  limits: { min: Pt; max: Pt } | null;
  extents: { min: Pt; max: Pt } | null;
}

export interface CadDimension {
  handle: string | null;
  layer: string;
  block: string;
  dimensionType: string;
  /** Value measured by the CAD program (drawing units; radians for angular ones). */
  measurement: number | null;
  /** Override text ('' or '<>' mean the measurement is shown). */
  text: string;
  style: string | null;
  definitionPoint: Pt | null;
  textPosition: Pt | null;
  /** Anonymous block holding the dimension's rendered geometry. */
  geometryBlock: string | null;
}

export interface CadDocument {
  format: 'dwg' | 'dxf';
  engine: string;
  fileVersion: { code: string | null; release: string | null };
  codepage: string | null;
  units: { insUnits: number | null; name: string; measurement: 'metric' | 'imperial' | null };
  extents: { min: Pt; max: Pt } | null;
  headerVariables: Record<string, unknown>;
  layers: CadLayer[];
  blocks: CadBlock[];
  layouts: CadLayout[];
  /** Entities of model and paper space (the block records *Model_Space and *Paper_Space*), ATTRIBs included. */
  entityCounts: Record<string, number>;
  entityCount: number;
  /** DWG only: every entity object in the file by DXF name, as the engine decoded it. */
  fileEntityCounts?: Record<string, number>;
  texts: CadText[];
  dimensions: CadDimension[];
  /** Every entity: model space, paper spaces and block definitions (`block` says which). */
  entities: CadEntity[];
  /** Entities the file holds that are not in `entities`, by type, with why (completeness). */
  skippedEntities?: SkippedEntities[];
  warnings: string[];
}

export interface SkippedEntities {
  type: string;
  count: number;
  reason: string;
}

/** $INSUNITS codes (DXF reference). */
const INSUNITS = [
  'Unitless',
  'Inches',
  'Feet',
  'Miles',
  'Millimeters',
  'Centimeters',
  'Meters',
  'Kilometers',
  'Microinches',
  'Mils',
  'Yards',
  'Angstroms',
  'Nanometers',
  'Microns',
  'Decimeters',
  'Decameters',
  'Hectometers',
  'Gigameters',
  'Astronomical units',
  'Light years',
  'Parsecs',
  'US Survey Feet',
  'US Survey Inch',
  'US Survey Yard',
  'US Survey Mile',
];

export function unitsOf(insUnits: unknown, measurement: unknown): CadDocument['units'] {
  const n = typeof insUnits === 'number' && Number.isInteger(insUnits) ? insUnits : null;
  return {
    insUnits: n,
    name: n !== null && INSUNITS[n] ? INSUNITS[n] : 'Unitless',
    measurement: measurement === 1 ? 'metric' : measurement === 0 ? 'imperial' : null,
  };
}

export function isModelSpace(name: string): boolean {
  return /^\*model_space$/i.test(name);
}

export function isPaperSpace(name: string): boolean {
  return /^\*paper_space\d*$/i.test(name);
}

/** Rounds away float noise and makes a compact point; null when not a finite point. */
export function pt(p: unknown, dims: 2 | 3 = 3): Pt | null {
  if (!p || typeof p !== 'object') return null;
  const o = p as { x?: unknown; y?: unknown; z?: unknown };
  if (typeof o.x !== 'number' || typeof o.y !== 'number' || !Number.isFinite(o.x) || !Number.isFinite(o.y)) return null;
  const z = dims === 3 && typeof o.z === 'number' && Number.isFinite(o.z) && o.z !== 0 ? o.z : 0;
  return z !== 0 ? [o.x, o.y, z] : [o.x, o.y];
}

export function finite(n: unknown): number | null {
  return typeof n === 'number' && Number.isFinite(n) ? n : null;
}

/** Grows a bounding box over a point (used for DXF extents when $EXTMIN/$EXTMAX are missing). */
export class Extent {
  min = [Infinity, Infinity, Infinity];
  max = [-Infinity, -Infinity, -Infinity];
  add(p: Pt | null): void {
    if (!p) return;
    for (let i = 0; i < 3; i++) {
      const v = p[i] ?? 0;
      if (v < this.min[i]) this.min[i] = v;
      if (v > this.max[i]) this.max[i] = v;
    }
  }
  get value(): { min: Pt; max: Pt } | null {
    return Number.isFinite(this.min[0]) ? { min: this.min.slice(), max: this.max.slice() } : null;
  }
}

/** A header extent is valid when it is finite and min ≤ max (AutoCAD writes ±1e20 when empty). */
export function validExtent(min: Pt | null, max: Pt | null): { min: Pt; max: Pt } | null {
  if (!min || !max) return null;
  for (let i = 0; i < 2; i++) {
    if (!(min[i] <= max[i]) || Math.abs(min[i]) >= 1e19 || Math.abs(max[i]) >= 1e19) return null;
  }
  return { min, max };
}

/** \U+XXXX escapes used by DXF/DWG for characters outside the code page. */
export function decodeUnicodeEscapes(s: string): string {
  return s.indexOf('\\U+') < 0 && s.indexOf('\\M+') < 0 ? s : s.replace(/\\U\+([0-9A-Fa-f]{4})/g, (_, h) => String.fromCharCode(parseInt(h, 16)));
}

const PERCENT_CODES: Record<string, string> = { d: '°', p: '±', c: 'Ø', '%': '%' };

/** Resolves %%d, %%p, %%c, %%nnn and removes %%o/%%u toggles (TEXT control codes). */
export function resolvePercentCodes(s: string): string {
  if (s.indexOf('%%') < 0) return s;
  return s.replace(/%%(\d{3}|[dpcouDPCOU%])/g, (_, c: string) => {
    if (/^\d{3}$/.test(c)) return String.fromCharCode(parseInt(c, 10));
    const l = c.toLowerCase();
    return l === 'o' || l === 'u' ? '' : PERCENT_CODES[l];
  });
}

/**
 * MTEXT formatting → plain text: paragraphs (\P) become newlines, font/height/colour and
 * other inline codes are dropped, stacked fractions (\Sa^b;) become a/b, braces removed.
 */
export function mtextToPlain(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '\\') {
      const n = s[i + 1];
      if (n === undefined) break;
      switch (n) {
        case 'P':
          out += '\n';
          i++;
          break;
        case 'N':
          out += '\n';
          i++;
          break;
        case '~':
          out += '\u00a0';
          i++;
          break;
        case '\\':
        case '{':
        case '}':
          out += n;
          i++;
          break;
        case 'L':
        case 'l':
        case 'O':
        case 'o':
        case 'K':
        case 'k':
          i++;
          break;
        case 'S': {
          const end = s.indexOf(';', i + 2);
          const body = end < 0 ? s.slice(i + 2) : s.slice(i + 2, end);
          out += body
            .replace(/\\([#^/])/g, '$1')
            .split(/[\^#/]/)
            .map((x) => x.trim())
            .filter((x) => x)
            .join('/');
          i = end < 0 ? s.length : end;
          break;
        }
        case 'U':
          if (s[i + 2] === '+' && /^[0-9A-Fa-f]{4}$/.test(s.slice(i + 3, i + 7))) {
            out += String.fromCharCode(parseInt(s.slice(i + 3, i + 7), 16));
            i += 6;
          } else i++;
          break;
        default: {
          // \f…; \F…; \H…; \W…; \Q…; \T…; \A…; \C…; \c…; \p…; and unknown codes up to ';'
          if (/[fFHhWwQqTtAaCcp]/.test(n)) {
            const end = s.indexOf(';', i + 2);
            i = end < 0 ? s.length : end;
          } else {
            out += n;
            i++;
          }
        }
      }
    } else if (c === '{' || c === '}') {
      continue;
    } else {
      out += c;
    }
  }
  return resolvePercentCodes(out);
}

export function countInto(map: Record<string, number>, key: string): void {
  map[key] = (map[key] ?? 0) + 1;
}

/** Bulge-free polyline vertices plus the bulges when any is non-zero. */
export function polylineGeometry(
  vertices: { x: number; y: number; z?: number; bulge?: number }[],
  closed: boolean,
  extra: Record<string, unknown> = {},
): CadGeometry {
  const pts: Pt[] = [];
  const bulges: number[] = [];
  let anyBulge = false;
  for (const v of vertices) {
    const p = pt(v);
    if (!p) continue;
    pts.push(p);
    const b = typeof v.bulge === 'number' && Number.isFinite(v.bulge) ? v.bulge : 0;
    if (b !== 0) anyBulge = true;
    bulges.push(b);
  }
  const g: CadGeometry = { kind: 'polyline', closed, vertices: pts, ...extra };
  if (anyBulge) g.bulges = bulges;
  return g;
}

export const DIMENSION_TYPES = ['linear', 'aligned', 'angular', 'diameter', 'radius', 'angular3point', 'ordinate'];

export function dimensionTypeName(flags: unknown): string {
  const n = typeof flags === 'number' ? flags & 7 : -1;
  return DIMENSION_TYPES[n] ?? 'unknown';
}

/**
 * Refuses a drawing over `maxBytes` (settings.cad.maxBytes, DOCPARSE_CAD_MAX_BYTES): drawings
 * are decoded whole in memory (DWG inside WASM).
 */
export async function checkCadSize(filePath: string, maxBytes: number): Promise<void> {
  const { size } = await stat(filePath);
  if (size > maxBytes) {
    throw new ExtractionError(`the drawing is ${size} bytes, larger than the ${maxBytes}-byte limit for CAD files (DOCPARSE_CAD_MAX_BYTES)`);
  }
}
