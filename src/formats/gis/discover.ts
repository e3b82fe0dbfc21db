// Finds the datasets in an extracted folder tree: every shapefile, MapInfo table, file
// geodatabase, GeoPackage, GeoJSON, KML, GML, GPX and FlatGeobuf, in subfolders too. Each
// is reported once, with the sidecar files it has and lacks.
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { readFileHead } from '../kit/file-head.js';

export type GisFormat = 'shapefile' | 'mapinfo' | 'filegdb' | 'geopackage' | 'geojson' | 'kml' | 'kmz' | 'gml' | 'gpx' | 'flatgeobuf';

export interface DatasetSource {
  /** Path relative to the scan root, with '/' separators (a folder for a .gdb). */
  relPath: string;
  format: GisFormat;
  /** Shapefile sidecars, by lower-case extension, as found (relative paths). */
  sidecars: Record<string, string>;
  /** Problems worth a warning before opening. */
  notes: string[];
}

export interface Discovery {
  sources: DatasetSource[];
  /** Files that look like parts of a dataset but cannot be read alone (e.g. a .dbf without .shp). */
  orphans: string[];
  /** Archives inside the archive (not opened). */
  nested: string[];
}

const BY_EXT: Record<string, GisFormat> = {
  shp: 'shapefile',
  tab: 'mapinfo',
  mif: 'mapinfo',
  gpkg: 'geopackage',
  geojson: 'geojson',
  json: 'geojson',
  kml: 'kml',
  gml: 'gml',
  gpx: 'gpx',
  fgb: 'flatgeobuf',
};

const SHP_SIDECARS = ['shx', 'dbf', 'prj', 'cpg', 'qpj', 'sbn', 'sbx', 'shp.xml'];

function isJunk(name: string): boolean {
  return name === '__MACOSX' || name.startsWith('._') || name === '.DS_Store' || name === 'Thumbs.db';
}

/** A folder is a file geodatabase when named *.gdb or holding the a00000001 catalog table. */
function isGdbFolder(name: string, entries: string[]): boolean {
  return /\.gdb$/i.test(name) || entries.some((e) => /^a00000001\.gdbtable$/i.test(e));
}

function ext(name: string): string {
  const lower = name.toLowerCase();
  if (lower.endsWith('.shp.xml')) return 'shp.xml';
  const i = lower.lastIndexOf('.');
  return i < 0 ? '' : lower.slice(i + 1);
}

function stem(name: string): string {
  const lower = name.toLowerCase();
  if (lower.endsWith('.shp.xml')) return name.slice(0, -8);
  const i = name.lastIndexOf('.');
  return i < 0 ? name : name.slice(0, i);
}

export async function discoverDatasets(root: string): Promise<Discovery> {
  const out: Discovery = { sources: [], orphans: [], nested: [] };
  await walk(root, '', out, 0);
  out.sources.sort((a, b) => (a.relPath < b.relPath ? -1 : a.relPath > b.relPath ? 1 : 0));
  return out;
}

async function walk(root: string, rel: string, out: Discovery, depth: number): Promise<void> {
  if (depth > 32) return;
  const dir = path.join(root, rel);
  const dirents = (await readdir(dir, { withFileTypes: true })).filter((d) => !isJunk(d.name));
  const names = dirents.map((d) => d.name);
  const join = (n: string) => (rel ? `${rel}/${n}` : n);

  if (isGdbFolder(rel ? path.basename(rel) : '', names)) {
    // A geodatabase zipped without its folder has its tables at the archive root.
    out.sources.push({ relPath: rel || '.', format: 'filegdb', sidecars: {}, notes: [] });
    return;
  }

  // Group files by stem (case-insensitive) for shapefile sidecars.
  const byStem = new Map<string, Map<string, string>>();
  for (const d of dirents) {
    if (!d.isFile()) continue;
    const key = stem(d.name).toLowerCase();
    let m = byStem.get(key);
    if (!m) byStem.set(key, (m = new Map()));
    m.set(ext(d.name), d.name);
  }

  for (const d of dirents) {
    if (d.isDirectory()) {
      await walk(root, join(d.name), out, depth + 1);
      continue;
    }
    if (!d.isFile()) continue;
    const e = ext(d.name);
    if (e === 'zip' || e === 'kmz' || e === '7z' || e === 'rar' || e === 'gz' || e === 'tar') {
      out.nested.push(join(d.name));
      continue;
    }
    const group = byStem.get(stem(d.name).toLowerCase())!;
    if (e === 'dbf' && !group.has('shp')) {
      out.orphans.push(join(d.name));
      continue;
    }
    if ((e === 'shx' || e === 'prj') && !group.has('shp') && !group.has('dbf')) {
      out.orphans.push(join(d.name));
      continue;
    }
    const format = BY_EXT[e];
    if (!format) continue;
    if (format === 'geojson' && e === 'json' && !(await looksLikeGeoJson(path.join(dir, d.name)))) continue;
    const src: DatasetSource = { relPath: join(d.name), format, sidecars: {}, notes: [] };
    if (format === 'shapefile') {
      for (const s of SHP_SIDECARS) {
        const f = group.get(s);
        if (f) src.sidecars[s] = join(f);
      }
    }
    out.sources.push(src);
  }
}

async function looksLikeGeoJson(file: string): Promise<boolean> {
  const text = (await readFileHead(file, 4096)).toString('utf8').replace(/^\uFEFF/, '');
  return /^\s*[{[]/.test(text) && /"type"\s*:\s*"(FeatureCollection|Feature|Point|LineString|Polygon|Multi\w+|GeometryCollection)"/.test(text);
}
