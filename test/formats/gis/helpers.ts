// GIS test helpers: MANIFEST ground-truth parsing, the format of each corpus file, schema
// validation of artifacts, and a tiny ZIP writer for crafted archives (zip bombs, '..').
import { Value } from '@sinclair/typebox/value';
import { GisContent } from '../../../src/formats/gis/schema.js';

export interface TruthLayer {
  /** Member path inside the ZIP (null for a single file or a folder-less entry). */
  member: string | null;
  name: string;
  geometryType: string;
  /** null when the native tool printed '?'. */
  count: number | null;
  /** 'EPSG:n', 'noCRS' or 'CRS:<name>'. */
  crs: string;
}

export interface Truth {
  file: string;
  nativeLayers: number | null;
  nativeDriver: string[];
  native: TruthLayer[];
  /** True when the native list was cut ("…(+n)"). */
  nativeTruncated: boolean;
  wasmLayers: number | null;
  /** name → counts (a name may occur more than once). */
  wasm: { name: string; count: number }[];
}

const ENTRY = /^(.*):([A-Za-z0-9()]+):(\d+|\?):(EPSG:\d+|noCRS|CRS:.*)$/;

function parseEntries(member: string | null, text: string, out: TruthLayer[]): boolean {
  let truncated = false;
  for (const piece of text.split('; ')) {
    const p = piece.trim();
    if (/^…\(\+\d+\)$/.test(p)) {
      truncated = true;
      continue;
    }
    const m = ENTRY.exec(p);
    if (m) out.push({ member, name: m[1], geometryType: m[2], count: m[3] === '?' ? null : Number(m[3]), crs: m[4] });
  }
  return truncated;
}

export function parseTruth(row: Record<string, string>): Truth {
  const [nativePart, wasmPart = ''] = row.ground_truth.split(' || ');
  const t: Truth = { file: row.file, nativeLayers: null, nativeDriver: [], native: [], nativeTruncated: false, wasmLayers: null, wasm: [] };
  const segs = nativePart.split(' | ');
  const head = segs[0];
  const lm = /layers=(\d+)/.exec(head);
  if (lm) t.nativeLayers = Number(lm[1]);
  const inline = /\[([^\]]+)\] (.*)$/.exec(head);
  if (inline && !/\/vsizip root open/.test(head.slice(0, inline.index))) {
    t.nativeDriver.push(inline[1]);
    t.nativeTruncated = parseEntries(null, inline[2], t.native) || t.nativeTruncated;
  }
  for (const seg of segs.slice(1)) {
    const m = /^(\S.*?) \[([^\]]+)\] (.*)$/.exec(seg);
    if (!m) continue;
    t.nativeDriver.push(m[2]);
    t.nativeTruncated = parseEntries(m[1], m[3], t.native) || t.nativeTruncated;
  }
  const wl = /layers=(\d+)/.exec(wasmPart);
  if (wl) t.wasmLayers = Number(wl[1]);
  const wb = /\[(.*)\]\s*$/.exec(wasmPart);
  if (wb) {
    for (const p of wb[1].split('; ')) {
      const m = /^(.*):(\d+)$/.exec(p.trim());
      if (m) t.wasm.push({ name: m[1], count: Number(m[2]) });
    }
  }
  return t;
}

/** ogrinfo's text geometry names (3DPoint, MeasuredPolygon, Unknown(any)) in ogrinfo -json spelling. */
export function jsonGeometryType(native: string): string {
  if (native === 'Unknown(any)') return 'Geometry';
  let m = /^3DMeasured(.+)$/.exec(native);
  if (m) return `${m[1]}ZM`;
  m = /^3D(.+)$/.exec(native);
  if (m) return `${m[1]}Z`;
  m = /^Measured(.+)$/.exec(native);
  if (m) return `${m[1]}M`;
  return native;
}

/** The format a client would route each corpus file to (documentType or detection). */
export function formatOf(file: string): string {
  if (/^(shp_|bad_shp|bad_badzip|mixed_)/.test(file)) return 'shapefile';
  if (file.startsWith('mapinfo_')) return 'mapinfo';
  if (file.startsWith('fgdb_')) return 'filegdb';
  if (file.startsWith('gpkg_')) return 'geopackage';
  if (file.startsWith('geojson_')) return 'geojson';
  if (/^(kml_|bad_kml)/.test(file)) return 'kml';
  throw new Error(`no format for ${file}`);
}

/** Schema errors of a content value (empty when valid). */
export function contentErrors(content: unknown): string[] {
  if (Value.Check(GisContent, content)) return [];
  return [...Value.Errors(GisContent, content)].slice(0, 10).map((e) => `${e.path}: ${e.message}`);
}

export { makeZip, type ZipMember } from '../../helpers/zip.js';
