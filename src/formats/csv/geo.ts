// Finding the geometry of a Spatial CSV: a WKT or GeoJSON column (by sampled values, helped by
// its name), else a longitude/latitude column pair (by name and value range), else — only for
// files without a header — an adjacent pair of decimal columns whose ranges fit lat/lon.
import type { ColumnProfile } from './columns.js';

export type GeometrySource =
  { kind: 'lonlat'; lonColumn: string; latColumn: string; lonIndex: number; latIndex: number } | { kind: 'wkt' | 'geojson'; column: string; index: number };

const PREFIXES =
  '(?:intpt|decimal|geo|gps|cent|center|centre|centroid|pt|point|loc|location|wgs|wgs84|start|end|from|to|src|dst|pickup|dropoff|origin|dest|home|site|stop|station|y|x)';
const LAT_TOKEN = [
  [/^(?:lat|latitude)$/, 3],
  [/^(?:lat|latitude)(?:\d+|dd|deg|degrees|wgs84|y)$/, 2],
  [new RegExp(`^${PREFIXES}(?:lat|latitude)$`), 2],
  [/latitude$/, 2],
  [/^(?:y|ycoord|ycoordinate|posy|pointy)$/, 1],
] as const;
const LON_TOKEN = [
  [/^(?:lon|lng|long|longitude)$/, 3],
  [/^(?:lon|lng|long|longitude)(?:\d+|dd|deg|degrees|wgs84|x)$/, 2],
  [new RegExp(`^${PREFIXES}(?:lon|lng|long|longitude)$`), 2],
  [/longitude$/, 2],
  [/^(?:x|xcoord|xcoordinate|posx|pointx)$/, 1],
] as const;

function tokens(name: string): string[] {
  return name
    .replace(/([a-z])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

interface NameMatch {
  score: number;
  /** The name without its lat/lon part, to pair start_lat with start_lon. */
  stem: string;
}

function matchName(name: string, table: typeof LAT_TOKEN | typeof LON_TOKEN): NameMatch | null {
  const toks = tokens(name);
  let best: NameMatch | null = null;
  toks.forEach((t, i) => {
    for (const [re, score] of table) {
      if (re.test(t)) {
        const s = score + (toks.length === 1 ? 0.5 : 0);
        if (!best || s > best.score) {
          const stemTok = t.replace(/(?:lat|latitude|lon|lng|long|longitude|x|y)(?:\d+|dd|deg|degrees|wgs84)?$/, '');
          const rest = [...toks.slice(0, i), stemTok, ...toks.slice(i + 1)].filter(Boolean).join('_');
          best = { score: s, stem: rest };
        }
        break;
      }
    }
  });
  return best;
}

function numericIn(p: ColumnProfile, limit: number): boolean {
  const t = p.type;
  if (t !== 'integer' && t !== 'number') return p.seen === 0 && !p.isString; // all null: by name alone
  return p.min >= -limit && p.max <= limit;
}

const GEOM_NAME = /^(?:wkt|geom|geometry|the_geom|shape|wkt_geom|geojson|geo_json|wkb_geometry|footprint|boundary|coordinates)$/i;

export interface FoundGeometry {
  source: GeometrySource;
  note?: string;
}

export function findGeometry(names: string[], profiles: ColumnProfile[], hasHeader: boolean): FoundGeometry | null {
  // 1. A geometry column: most sampled values parse as WKT / GeoJSON.
  let geomBest: { score: number; kind: 'wkt' | 'geojson'; index: number } | null = null;
  names.forEach((name, index) => {
    const p = profiles[index];
    if (!p || p.geomChecked === 0) return;
    for (const kind of ['wkt', 'geojson'] as const) {
      const hits = kind === 'wkt' ? p.wktHits : p.geojsonHits;
      const ratio = hits / p.geomChecked;
      if (ratio < 0.8) continue;
      const score = ratio + (GEOM_NAME.test(name.trim()) ? 1 : 0);
      if (!geomBest || score > geomBest.score) geomBest = { score, kind, index };
    }
  });
  const g = geomBest as { kind: 'wkt' | 'geojson'; index: number } | null;
  if (g) return { source: { kind: g.kind, column: names[g.index], index: g.index } };

  // 2. A longitude/latitude pair by name and range.
  const lats: Array<{ index: number } & NameMatch> = [];
  const lons: Array<{ index: number } & NameMatch> = [];
  names.forEach((name, index) => {
    const p = profiles[index];
    if (!p) return;
    const la = matchName(name, LAT_TOKEN);
    if (la && numericIn(p, 90)) lats.push({ index, ...la });
    const lo = matchName(name, LON_TOKEN);
    if (lo && numericIn(p, 180)) lons.push({ index, ...lo });
  });
  let pair: { lat: number; lon: number; score: number } | null = null;
  for (const la of lats) {
    for (const lo of lons) {
      if (la.index === lo.index) continue;
      const score = la.score + lo.score + (la.stem === lo.stem ? 2 : 0) - Math.abs(la.index - lo.index) * 1e-6;
      if (!pair || score > pair.score) pair = { lat: la.index, lon: lo.index, score };
    }
  }
  const pr = pair as { lat: number; lon: number } | null;
  if (pr) {
    return {
      source: { kind: 'lonlat', lonColumn: names[pr.lon], latColumn: names[pr.lat], lonIndex: pr.lon, latIndex: pr.lat },
    };
  }

  // 3. No header: adjacent decimal columns whose values fit latitude then longitude.
  if (!hasHeader) {
    const fits = (i: number, limit: number): boolean => {
      const p = profiles[i];
      return !!p && p.type === 'number' && p.min >= -limit && p.max <= limit;
    };
    for (let i = 0; i + 1 < names.length; i++) {
      let lat = -1;
      let lon = -1;
      if (fits(i, 90) && fits(i + 1, 180)) [lat, lon] = [i, i + 1];
      else if (fits(i, 180) && fits(i + 1, 90)) [lon, lat] = [i, i + 1];
      if (lat < 0) continue;
      return {
        source: { kind: 'lonlat', lonColumn: names[lon], latColumn: names[lat], lonIndex: lon, latIndex: lat },
        note: `The file has no header: columns ${names[lat]} and ${names[lon]} were taken as latitude and longitude from their value ranges.`,
      };
    }
  }
  return null;
}
