// GIS family parser: shapefile, mapinfo, filegdb, geopackage, geojson, kml, kmz, gml, gpx,
// flatgeobuf — all through GDAL (gdal3.js, WASM), one job at a time per thread.
//
// 1. The upload is placed in the job's scratch folder (prepare.ts): a ZIP is extracted through the archive
//    guard (zip bombs, path traversal), any other file is linked under a name GDAL can recognise.
// 2. Every dataset in the tree is found (subfolders too) and opened on its own; every layer
//    of it is one logical dataset = one Document Unit.
// 3. Per layer: `ogrinfo -json` gives name, geometry type, CRS (WKT2, PROJJSON, EPSG), feature
//    count, extent and fields; `ogr2ogr -f GeoJSONSeq -t_srs EPSG:4326` writes the features to
//    disk, and they are copied into the artifact line by line (memory bounded by one feature),
//    up to DOCPARSE_GIS_MAX_INLINE_FEATURES per job (default 100000).
//    Faster route where it is safe (fgb.ts): GDAL writes FlatGeobuf instead (same -t_srs and
//    options) and the GeoJSON text is written here by GDAL's GeoJSONSeq rules; the layer goes
//    back to the GeoJSONSeq writer on any doubt. DOCPARSE_GIS_FGB=false turns the route off.
import { createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { mkdir, open, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { CompletenessCounter } from '../kit/completeness.js';
import type { JsonWriter } from '../kit/json-writer.js';
import type { Provenance } from '../kit/provenance.js';
import { ExtractionError, type FormatParser, type ParseInput, type ParseOutcome } from '../kit/types.js';
import { discoverDatasets, type DatasetSource, type GisFormat } from './discover.js';
import { GDAL_VERSION, GdalError, withGdal, type GdalSession } from './engine.js';
import { Extent, FgbUnsupported, fgbIneligible, fgbLayerType, fidSelect, renderFgb } from './fgb.js';
import { readFileHead } from '../kit/file-head.js';
import { nameGeodatabaseFolders, prepareInput, type Prepared } from './prepare.js';

export { GisContent } from './schema.js';

const MAX_WARNINGS_PER_DATASET = 20;

const DRIVER_FORMAT: Record<string, GisFormat> = {
  'ESRI Shapefile': 'shapefile',
  'MapInfo File': 'mapinfo',
  OpenFileGDB: 'filegdb',
  GPKG: 'geopackage',
  GeoJSON: 'geojson',
  KML: 'kml',
  GML: 'gml',
  GPX: 'gpx',
  FlatGeobuf: 'flatgeobuf',
};

// ---------------------------------------------------------------------------------------

interface CrsInfo {
  name: string | null;
  epsg: number | null;
  authority: string | null;
  wkt: string;
  projjson: Record<string, unknown> | null;
  type: string | null;
}

const WKT_TYPES: Record<string, string> = {
  PROJCRS: 'ProjectedCRS',
  PROJCS: 'ProjectedCRS',
  GEOGCRS: 'GeographicCRS',
  GEOGCS: 'GeographicCRS',
  GEODCRS: 'GeodeticCRS',
  ENGCRS: 'EngineeringCRS',
  LOCAL_CS: 'EngineeringCRS',
  BOUNDCRS: 'BoundCRS',
  COMPOUNDCRS: 'CompoundCRS',
  VERTCRS: 'VerticalCRS',
};

function crsOf(cs: any): CrsInfo | null {
  if (!cs || typeof cs.wkt !== 'string' || !cs.wkt) return null;
  const pj = cs.projjson && typeof cs.projjson === 'object' ? cs.projjson : null;
  const core = pj?.type === 'BoundCRS' && pj.source_crs ? pj.source_crs : pj;
  const id = core?.id ?? (Array.isArray(core?.ids) ? core.ids[0] : undefined);
  const authority = id?.authority && id?.code !== undefined ? `${id.authority}:${id.code}` : null;
  const epsg = id?.authority === 'EPSG' && Number.isInteger(Number(id.code)) ? Number(id.code) : null;
  let name: string | null = typeof core?.name === 'string' ? core.name : null;
  let type: string | null = typeof pj?.type === 'string' ? pj.type : null;
  if (!pj) {
    const m = /^\s*(\w+)\s*\[\s*"([^"]*)"/.exec(cs.wkt);
    if (m) {
      name = m[2];
      type = WKT_TYPES[m[1].toUpperCase()] ?? null;
    }
  }
  return { name, epsg, authority, wkt: cs.wkt, projjson: pj, type };
}

/** Whether features can be reprojected to WGS 84 (an Earth CRS). */
function reprojectable(crs: CrsInfo | null): boolean {
  if (!crs) return false;
  const t = crs.type ?? '';
  if (/Engineering/i.test(t)) return false;
  if (/LOCAL_CS|ENGCRS|EngineeringCRS/i.test(crs.wkt.slice(0, 40))) return false;
  return true;
}

function pickFields(fields: any[]): Record<string, unknown>[] {
  return (fields ?? []).map((f) => {
    const o: Record<string, unknown> = { name: String(f.name), type: String(f.type) };
    if (f.subType) o.subType = String(f.subType);
    if (Number.isInteger(f.width)) o.width = f.width;
    if (Number.isInteger(f.precision)) o.precision = f.precision;
    if (typeof f.nullable === 'boolean') o.nullable = f.nullable;
    if (f.alternativeName) o.alternativeName = String(f.alternativeName);
    if (f.domainName) o.domainName = String(f.domainName);
    return o;
  });
}

class BBox {
  minX = Infinity;
  minY = Infinity;
  maxX = -Infinity;
  maxY = -Infinity;
  add(coords: unknown): void {
    if (!Array.isArray(coords)) return;
    if (typeof coords[0] === 'number') {
      const x = coords[0] as number;
      const y = coords[1] as number;
      if (Number.isFinite(x) && Number.isFinite(y)) {
        if (x < this.minX) this.minX = x;
        if (x > this.maxX) this.maxX = x;
        if (y < this.minY) this.minY = y;
        if (y > this.maxY) this.maxY = y;
      }
      return;
    }
    for (const c of coords) this.add(c);
  }
  addGeometry(g: any): void {
    if (!g || typeof g !== 'object') return;
    if (g.type === 'GeometryCollection') for (const x of g.geometries ?? []) this.addGeometry(x);
    else this.add(g.coordinates);
  }
  value(): number[] | null {
    return this.minX <= this.maxX ? [this.minX, this.minY, this.maxX, this.maxY] : null;
  }
}

/**
 * GDAL's words as the user reads them: the paths of the job's scratch folder that GDAL quotes
 * (`/dp/gis-in/…`) become the upload's own file or member names, its quotes plain ones.
 */
function gdalText(m: string, job: JobState): string {
  let t = m.replace(/^(ERROR|Warning) \d+:\s*/i, '');
  if (job.upload) t = t.split(`/dp/gis-in/${job.upload.stored}`).join(job.upload.name);
  return t
    .replace(/\/dp\/gis-in\//g, '')
    .replace(/\/dp\/gis-out\/[^\s'"`]*/g, 'the converted copy')
    .replace(/`([^`']*)'/g, '"$1"')
    .replace(/[.\s]+$/, '');
}

/** A dataset's path as the user knows it (a single upload by its own name). */
function shownPath(relPath: string, job: JobState): string {
  return job.upload && relPath === job.upload.stored ? job.upload.name : relPath;
}

/** GDAL messages that are artefacts of our own export step, not facts about the data. */
const NOISE = [/^No SRS set on layer/i, /does not natively support .* type for field/i, /^Pointer '\w+' is NULL/i];

function gdalWarnings(lines: string[], job: JobState): string[] {
  const seen = new Set<string>();
  for (const l of lines) {
    let m = gdalText(l, job);
    const internal = /^Error occurred in .*\/([^/]+) at line (\d+)$/.exec(m);
    if (internal) m = `internal read error (${internal[1]}:${internal[2]})`;
    if (m && !NOISE.some((re) => re.test(m))) seen.add(m);
  }
  return [...seen].slice(0, MAX_WARNINGS_PER_DATASET);
}

async function encodingNote(root: string, src: DatasetSource): Promise<string | null> {
  try {
    if (src.format === 'shapefile' && src.sidecars.cpg) {
      const t = (await readFile(path.join(root, src.sidecars.cpg), 'latin1')).trim();
      return t || null;
    }
    if (src.format === 'mapinfo') {
      const head = (await readFileHead(path.join(root, src.relPath), 4096)).toString('latin1');
      const m = /^\s*!?charset\s+"?([\w-]+)"?/im.exec(head);
      return m ? m[1] : null;
    }
  } catch {
    /* best effort */
  }
  return null;
}

interface JobState {
  /** Files of features past the cap, served as result parts. */
  parts: { name: string; path: string }[];
  tempDir: string;
  /** Features inlined per job, all datasets together (settings.gis.maxInlineFeatures). */
  cap: number;
  /** Eligible layers through GDAL's FlatGeobuf writer (settings.gis.flatGeobuf). */
  flatGeobuf: boolean;
  inlined: number;
  truncated: boolean;
  units: number;
  totalFeatures: number;
  drivers: Set<string>;
  outSeq: number;
  /** A single (not zipped) upload: its name in the scratch folder and its own. */
  upload: { stored: string; name: string } | null;
  /** Where the upload sits in its container (ParseInput.within): every provenance starts from it. */
  within: Provenance | undefined;
  /** Layers and features found against emitted (the artifact's completeness block). */
  completeness: CompletenessCounter;
}

/** Features past the per-job cap: a result part (GeoJSON text sequence) opened on the first one, served with the result. */
class Spill {
  private out: WriteStream | null = null;
  private name: string | null = null;
  private buf = '';

  constructor(private readonly job: JobState) {}

  keep(line: string): void {
    if (!this.out) {
      const name = `features-${this.job.parts.length + 1}.geojsonseq`;
      const file = path.join(this.job.tempDir, name);
      this.out = createWriteStream(file);
      this.name = name;
      this.job.parts.push({ name, path: file });
    }
    this.buf += `\x1e${line}\n`;
  }

  /** Writes what is buffered (waits for the stream to drain when it is full). */
  async flush(): Promise<void> {
    if (!this.out || !this.buf) return;
    const chunk = this.buf;
    this.buf = '';
    if (!this.out.write(chunk)) await once(this.out, 'drain');
  }

  /** Flushes and closes the part; its name, or null when no feature went past the cap. */
  async finish(): Promise<string | null> {
    if (!this.out) return null;
    await this.flush();
    this.out.end();
    await once(this.out, 'finish');
    return this.name;
  }
}

/** Bytes read from GDAL's output per step: large reads, few calls, whole lines split in bulk. */
const READ_CHUNK = 1024 * 1024;

/** What a feature streamer reports: features inlined and spilled to the result part, their WGS 84 extent (null when not reprojected), features left out as not valid JSON, the part's name. */
interface StreamedFeatures {
  inlined: number;
  omitted: number;
  bbox: number[] | null;
  bad: number;
  part: string | null;
}

/**
 * Copies GDAL's GeoJSONSeq output into the artifact. The file is read in 1 MiB chunks and
 * split into lines here (no readline, no per-line await); every line is still parsed once,
 * to check it and to take the WGS 84 extent, and copied as is when it is complete. Memory
 * stays bounded by one chunk plus the writer's buffer.
 */
async function streamFeatures(file: string, content: JsonWriter, job: JobState, reprojected: boolean): Promise<StreamedFeatures> {
  const bbox = new BBox();
  let inlined = 0;
  let omitted = 0;
  let bad = 0;
  const spill = new Spill(job);
  const take = (raw: string) => {
    const line = raw.charCodeAt(0) === 0x1e ? raw.slice(1) : raw;
    if (!line.trim()) return;
    const inline = job.inlined < job.cap;
    if (!inline && !reprojected) {
      omitted++;
      spill.keep(line);
      return;
    }
    let f: any;
    try {
      f = JSON.parse(line);
    } catch {
      bad++;
      return;
    }
    if (reprojected) bbox.addGeometry(f.geometry);
    if (inline) {
      // The line was valid JSON: copy it as is unless a member must be filled in.
      if (f.properties !== undefined && f.geometry !== undefined) content.raw(line);
      else {
        if (f.properties === undefined) f.properties = null;
        if (f.geometry === undefined) f.geometry = null;
        content.value(f);
      }
      inlined++;
      job.inlined++;
    } else {
      omitted++;
      spill.keep(line);
    }
  };
  content.key('features').beginArray();
  const fh = await open(file, 'r');
  try {
    const buf = Buffer.allocUnsafe(READ_CHUNK);
    const decoder = new StringDecoder('utf8');
    let rest = '';
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, READ_CHUNK, null);
      const text = rest + (bytesRead > 0 ? decoder.write(buf.subarray(0, bytesRead)) : decoder.end());
      // Line ends as readline sees them (\n, \r\n or a lone \r); GDAL writes \n.
      const lines = text.includes('\r') ? text.split(/\r?\n|\r/) : text.split('\n');
      rest = bytesRead > 0 ? (lines.pop() as string) : '';
      for (const raw of lines) take(raw);
      await content.maybeFlush();
      await spill.flush();
      if (bytesRead === 0) break;
    }
  } finally {
    await fh.close();
  }
  content.endArray();
  if (omitted > 0) job.truncated = true;
  return { inlined, omitted, bbox: reprojected ? bbox.value() : null, bad, part: await spill.finish() };
}

/**
 * Copies the features of a FlatGeobuf file GDAL wrote (already checked by a dry pass of
 * `renderFgb`) into the artifact as GeoJSON text, with the same cap and result-part
 * behaviour as `streamFeatures`. The extent is taken from the written coordinates.
 */
async function streamFgbFeatures(file: string, noGeometry: boolean, content: JsonWriter, job: JobState, reprojected: boolean): Promise<StreamedFeatures> {
  const extent = new Extent();
  let inlined = 0;
  let omitted = 0;
  const spill = new Spill(job);
  const take = (line: string) => {
    if (job.inlined < job.cap) {
      content.raw(line);
      inlined++;
      job.inlined++;
      return;
    }
    omitted++;
    spill.keep(line);
  };
  content.key('features').beginArray();
  await renderFgb(
    file,
    noGeometry,
    take,
    async () => {
      await content.maybeFlush();
      await spill.flush();
    },
    extent,
    true,
  );
  content.endArray();
  if (omitted > 0) job.truncated = true;
  return { inlined, omitted, bbox: reprojected ? extent.value() : null, bad: 0, part: await spill.finish() };
}

/** Layers that took the FlatGeobuf route, and why others fell back (for tests and the bench). */
export const fgbRouteStats = { used: 0, fallbacks: [] as string[] };

async function writeLayer(
  s: GdalSession,
  ds: number,
  layer: any,
  src: DatasetSource,
  driver: string,
  encoding: string | null,
  preWarnings: string[],
  content: JsonWriter,
  job: JobState,
  tempDir: string,
): Promise<void> {
  const warnings = [...preWarnings];
  const gf = Array.isArray(layer.geometryFields) ? layer.geometryFields[0] : undefined;
  const crs = crsOf(gf?.coordinateSystem ?? layer.layerCrs);
  const featureCount = Number.isInteger(layer.featureCount) && layer.featureCount >= 0 ? layer.featureCount : 0;
  const layerName = String(layer.name);
  const metadata: Record<string, unknown> = {};
  if (layer.metadata && typeof layer.metadata === 'object' && Object.keys(layer.metadata).length) metadata.gdal = layer.metadata;
  if (Array.isArray(layer.geometryFields) && layer.geometryFields.length > 1) {
    metadata.geometryFields = layer.geometryFields.map((g: any) => ({ name: g.name, type: g.type }));
    warnings.push(`The layer has ${layer.geometryFields.length} geometry fields; the features carry the first (${gf?.name || 'unnamed'}).`);
  }
  if (layer.fidColumnName) metadata.fidColumn = layer.fidColumnName;
  if (layer.usedDomains) metadata.domains = layer.usedDomains;
  let enc = encoding;
  const shpEnc = layer.metadata?.SHAPEFILE?.SOURCE_ENCODING;
  if (!enc && typeof shpEnc === 'string' && shpEnc) enc = shpEnc;

  // Features carry no provenance of their own: their "id" is the FID, and a feature's
  // provenance is its layer's with `feature: id` (docs/formats/gis.md: cheap at a million features).
  const provenance: Provenance = { ...job.within, layer: layerName };
  content
    .beginObject()
    .field('name', layerName)
    .field('provenance', provenance)
    .field('source', src.relPath)
    .field('format', src.format)
    .field('driver', driver)
    .field('geometryType', gf ? String(gf.type) : 'None')
    .field('geometryColumn', gf ? (gf.name ? String(gf.name) : null) : null)
    .field('crs', crs)
    .field('featureCount', featureCount)
    .field('fields', pickFields(layer.fields))
    .field('encoding', enc ?? null)
    .field('metadata', metadata);

  // Export the features to GeoJSONSeq on disk, then copy them in.
  let reprojected = reprojectable(crs) && !!gf;
  let outHost = '';
  let fgbHost = '';
  let fgbLog: string[] = [];
  let exported = false;
  if (featureCount > 0 || !Number.isInteger(layer.featureCount)) {
    // -preserve_fid: each feature's "id" is its FID as ogrinfo prints it (its provenance, see docs/formats/gis.md).
    const base = ['-f', 'GeoJSONSeq', '-lco', 'RS=NO', '-lco', 'COORDINATE_PRECISION=7', '-skipfailures', '-preserve_fid'];
    const toWgs84 = ['-t_srs', 'EPSG:4326'];
    // Without reprojection: declare the coordinates as WGS 84 so the GeoJSON writer keeps them as they are.
    const asIs = ['-a_srs', 'EPSG:4326'];
    const attempts: { args: string[]; wgs84: boolean }[] = [];
    if (reprojected) attempts.push({ args: toWgs84, wgs84: true });
    attempts.push({ args: asIs, wgs84: false });
    // Multipatch / TIN / polyhedral surfaces have no GeoJSON form: retry as MultiPolygon.
    const forceable = /Geometry|Collection|Surface|TIN|Polyhedral/i.test(gf ? String(gf.type) : '');
    if (forceable) {
      if (reprojected) attempts.push({ args: [...toWgs84, '-nlt', 'MULTIPOLYGON'], wgs84: true });
      attempts.push({ args: [...asIs, '-nlt', 'MULTIPOLYGON'], wgs84: false });
    }
    let lastError = '';
    // FlatGeobuf route: GDAL writes a binary file, the GeoJSON text is written here (fgb.ts).
    // Any doubt (GDAL error, count mismatch, something fgb.ts cannot render the way GDAL's
    // GeoJSON writer would) sends the layer through the GeoJSONSeq attempts below.
    // DOCPARSE_GIS_FGB=false turns the route off: every layer through GDAL's GeoJSONSeq writer.
    const fidSql = fidSelect(layer);
    if (job.flatGeobuf && fgbIneligible(layer, driver) === null && fidSql !== null) {
      const outRel = `gis-out/${++job.outSeq}.fgb`;
      const host = path.join(tempDir, outRel);
      const first = attempts[0];
      const before = s.drainLog();
      try {
        s.vectorTranslate(s.virtualPath(outRel), ds, [
          '-f',
          'FlatGeobuf',
          '-lco',
          'SPATIAL_INDEX=NO',
          '-skipfailures',
          '-nlt',
          fgbLayerType(layer),
          ...first.args,
          '-dialect',
          'OGRSQL',
          '-sql',
          fidSql,
        ]);
        const msgs = s.drainLog();
        if (msgs.some((m) => /^ERROR/i.test(m.trim()))) throw new FgbUnsupported('GDAL reported an error');
        const check = await renderFgb(host, !gf, null, null, new Extent(), true);
        if (check.count !== check.header.featuresCount || check.count !== featureCount) throw new FgbUnsupported('feature count differs');
        fgbLog = [...before, ...msgs];
        fgbHost = host;
        exported = true;
        fgbRouteStats.used++;
      } catch (err) {
        if (!(err instanceof FgbUnsupported) && !(err instanceof GdalError)) throw err;
        s.drainLog();
        fgbLog = before;
        if (fgbRouteStats.fallbacks.length < 1000) fgbRouteStats.fallbacks.push(`${layerName}: ${(err as Error).message}`);
        await rm(host, { force: true });
      }
    }
    for (let i = 0; i < attempts.length && !exported; i++) {
      if (outHost) await rm(outHost, { force: true });
      // A fresh name per attempt: a failed attempt may leave a file GDAL will not overwrite.
      const outRel = `gis-out/${++job.outSeq}.geojsonl`;
      outHost = path.join(tempDir, outRel);
      try {
        s.vectorTranslate(s.virtualPath(outRel), ds, [...base, ...attempts[i].args, layerName]);
        exported = true;
        if (reprojected && !attempts[i].wgs84) {
          reprojected = false;
          warnings.push(
            `The features could not be reprojected to WGS 84 (${lastError || 'no transformation'}); they are given in the layer's own coordinates (featuresCrs "native").`,
          );
        }
        if (attempts[i].args.includes('-nlt'))
          warnings.push('Geometries with no GeoJSON form (multipatch, TIN, polyhedral surface) were converted to MultiPolygon.');
      } catch (err) {
        const msgs = gdalWarnings((err as GdalError).gdalMessages ?? [], job).filter((m) => !/failed to create/i.test(m));
        lastError = msgs[0] ?? gdalText((err as Error).message, job);
      }
    }
    if (!exported) {
      warnings.push(`The features could not be exported: ${lastError}.`);
      if (featureCount > 0) job.completeness.missed('features', 'failed', `The features could not be exported: ${lastError}.`, provenance, featureCount);
    }
    if (!exported) reprojected = false;
  }
  if (!reprojected && crs === null && gf && featureCount > 0 && !warnings.some((w) => w.startsWith('The .prj file is missing'))) {
    warnings.push('The layer has no coordinate system (e.g. no .prj): features are given in the file\'s own coordinates, not WGS 84 (featuresCrs "native").');
  }
  let stats: StreamedFeatures = { inlined: 0, omitted: 0, bbox: null, bad: 0, part: null };
  if (exported && fgbHost) {
    stats = await streamFgbFeatures(fgbHost, !gf, content, job, reprojected);
    await rm(fgbHost, { force: true });
  } else if (exported) {
    stats = await streamFeatures(outHost, content, job, reprojected);
    await rm(outHost, { force: true });
  } else {
    content.key('features').beginArray().endArray();
  }
  if (stats.bad) warnings.push(`${stats.bad} exported features were not valid JSON and were left out.`);
  if (stats.omitted) {
    warnings.push(
      `Only ${stats.inlined} of the ${stats.inlined + stats.omitted} features were inlined: the per-job cap DOCPARSE_GIS_MAX_INLINE_FEATURES=${job.cap} was reached; the rest are in the result part ${stats.part}.`,
    );
  }
  const exportedCount = stats.inlined + stats.omitted;
  // Features in the result part are emitted too: the artifact holds them, past the inline cap.
  job.completeness.emitted('layers', 1, exportedCount === 0 ? 1 : 0).emitted('features', exportedCount);
  if (exported && exportedCount < featureCount) {
    const missing = `GDAL counts ${featureCount} features but returned ${exportedCount} when reading them; ${featureCount - exportedCount} are missing from features (e.g. KML placemarks without geometry, MapInfo records GDAL skips, unreadable records).`;
    warnings.push(missing);
    job.completeness.missed('features', 'failed', missing, provenance, featureCount - exportedCount);
  }
  for (const w of gdalWarnings([...fgbLog, ...s.drainLog()], job)) warnings.push(`GDAL: ${w}`);

  const native = Array.isArray(gf?.extent) && gf.extent.length >= 4 ? gf.extent.slice(0, 4).map(Number) : null;
  content
    .field('featuresCrs', reprojected ? 'EPSG:4326' : 'native')
    .field('featuresInlined', stats.inlined)
    .field('featuresTruncated', stats.omitted > 0)
    .field('featuresOmitted', stats.omitted);
  if (stats.part) content.field('featuresPart', stats.part);
  content
    .field('extent', { native: native && native.every(Number.isFinite) ? native : null, wgs84: reprojected ? stats.bbox : null })
    .field('warnings', warnings.slice(0, MAX_WARNINGS_PER_DATASET + 5))
    .endObject();
  await content.maybeFlush();
  job.units++;
  job.totalFeatures += featureCount;
}

/** "Layer SRS WKT:" blocks of plain ogrinfo output, by layer name. */
export function layerWktsFromText(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const lines = text.split(/\r?\n/);
  let name: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const m = /^Layer name: (.*)$/.exec(lines[i]);
    if (m) {
      name = m[1];
      continue;
    }
    if (name !== null && /^Layer SRS WKT:\s*$/.test(lines[i])) {
      const buf: string[] = [];
      for (i++; i < lines.length && !/^(Data axis to CRS axis mapping|Coordinate epoch|Geometry Column|FID Column|\w[\w ]*: )/.test(lines[i]); i++)
        buf.push(lines[i]);
      i--;
      const wkt = buf.join('\n').trim();
      if (wkt && wkt !== '(unknown)') out.set(name, wkt);
      name = null;
    }
  }
  return out;
}

/** Notes and config for a shapefile's missing sidecars. */
function shapefileChecks(src: DatasetSource): { notes: string[]; restoreShx: boolean } {
  const notes: string[] = [];
  const restoreShx = !src.sidecars.shx;
  if (restoreShx) notes.push('The .shx index is missing: it was rebuilt from the .shp.');
  if (!src.sidecars.dbf) notes.push('The .dbf attribute table is missing: features have no attributes.');
  if (!src.sidecars.prj) notes.push('The .prj file is missing: the coordinate system is unknown.');
  return { notes, restoreShx };
}

async function processSource(
  s: GdalSession,
  root: string,
  src: DatasetSource,
  content: JsonWriter,
  job: JobState,
  tempDir: string,
  failures: { source: string; format: string; error: string }[],
  warnings: string[],
): Promise<void> {
  const pre: string[] = [];
  let restoreShx = false;
  if (src.format === 'shapefile') {
    const c = shapefileChecks(src);
    pre.push(...c.notes);
    restoreShx = c.restoreShx;
  }
  const encoding = await encodingNote(root, src);
  s.drainLog();
  let ds = 0;
  try {
    if (restoreShx) s.setConfig('SHAPE_RESTORE_SHX', 'YES');
    try {
      ds = s.openVector(s.virtualPath(`gis-in/${src.relPath}`));
    } finally {
      if (restoreShx) s.setConfig('SHAPE_RESTORE_SHX', null);
    }
    const info = s.vectorInfo(ds);
    const driver = String(info.driverShortName ?? '');
    job.drivers.add(driver);
    const format = DRIVER_FORMAT[driver] ?? src.format;
    const openWarnings = gdalWarnings(s.drainLog(), job).map((w) => `GDAL: ${w}`);
    let layers: any[] = Array.isArray(info.layers) ? info.layers : [];
    // GPX always exposes five fixed layers (waypoints, routes, tracks, route_points,
    // track_points): only those holding features are datasets of the document.
    if (driver === 'GPX' && layers.some((l) => l.featureCount > 0)) layers = layers.filter((l) => l.featureCount > 0);
    // ogrinfo -json reads the CRS from the geometry field; some drivers (MIF) set it on the layer only.
    const lacking = layers.filter((l) => !(Array.isArray(l.geometryFields) && l.geometryFields[0]?.coordinateSystem));
    if (lacking.length) {
      try {
        const text = s.vectorInfoText(ds, ['-so', '-al', '-nomd', '-wkt_format', 'WKT2']);
        const wkts = layerWktsFromText(text);
        for (const l of lacking) {
          const wkt = wkts.get(String(l.name));
          if (wkt) l.layerCrs = { wkt, projjson: null };
        }
      } catch {
        /* keep without CRS */
      }
      s.drainLog();
    }
    if (layers.length === 0) {
      failures.push({ source: src.relPath, format, error: 'The dataset opened but holds no layer.' });
      warnings.push(`${shownPath(src.relPath, job)}: the dataset holds no layer; nothing to report.`);
      return;
    }
    const domains = info.domains && typeof info.domains === 'object' ? (info.domains as Record<string, unknown>) : {};
    for (const layer of layers) {
      // Field domains (coded values, ranges) the layer's fields use, from the dataset's catalogue.
      const used: Record<string, unknown> = {};
      for (const f of Array.isArray(layer.fields) ? layer.fields : []) {
        if (f?.domainName && domains[f.domainName] !== undefined) used[f.domainName] = domains[f.domainName];
      }
      if (Object.keys(used).length) layer.usedDomains = used;
      await writeLayer(s, ds, layer, { ...src, format }, driver, encoding, [...pre, ...openWarnings], content, job, tempDir);
    }
  } catch (err) {
    if (!(err instanceof GdalError)) throw err;
    const msg = gdalText(err.message, job);
    failures.push({ source: src.relPath, format: src.format, error: msg });
    warnings.push(`${shownPath(src.relPath, job)} could not be read: ${msg}.`);
    // Its layers are unknown: the source counts as one layer that failed.
    job.completeness.missed('layers', 'failed', `${shownPath(src.relPath, job)} could not be read: ${msg}.`, { ...job.within });
  } finally {
    s.close(ds);
  }
}

function describeEmpty(input: ParseInput, prepared: Prepared, orphans: string[], nested: string[]): string {
  if (prepared.archive) {
    const parts = [`The ZIP archive holds no GIS dataset GDAL can read (${prepared.archive.files} files`];
    if (orphans.length) parts.push(`; ${orphans.slice(0, 5).join(', ')} without the .shp they belong to`);
    if (nested.length) parts.push(`; nested archives are not opened: ${nested.slice(0, 5).join(', ')}`);
    return `${parts.join('')}). Expected e.g. a .shp with its .shx/.dbf, a MapInfo .tab/.mif, a .gdb folder or a .gpkg.`;
  }
  return `The file is not a readable ${input.format} dataset.`;
}

export const parseGis: FormatParser = async (input: ParseInput, content: JsonWriter): Promise<ParseOutcome> => {
  const warnings: string[] = [];
  const prepared = await prepareInput(input, warnings);
  const found = await discoverDatasets(prepared.root);
  await nameGeodatabaseFolders(prepared.root, found.sources, input.fileName);
  if (found.sources.length === 0) throw new ExtractionError(describeEmpty(input, prepared, found.orphans, found.nested));
  for (const o of found.orphans) warnings.push(`${o} was ignored: it is not part of a complete dataset (no matching .shp).`);
  for (const n of found.nested) warnings.push(`${n} is an archive inside the archive and was not opened.`);
  await mkdir(path.join(input.tempDir, 'gis-out'), { recursive: true });

  const job: JobState = {
    parts: [],
    tempDir: input.tempDir,
    cap: input.settings.gis.maxInlineFeatures,
    flatGeobuf: input.settings.gis.flatGeobuf,
    inlined: 0,
    truncated: false,
    units: 0,
    totalFeatures: 0,
    drivers: new Set(),
    outSeq: 0,
    upload: prepared.stored ? { stored: prepared.stored, name: input.fileName || prepared.stored } : null,
    within: input.within,
    completeness: new CompletenessCounter().kind('layers').kind('features'),
  };
  const failures: { source: string; format: string; error: string }[] = [];

  await withGdal(async (s) => {
    s.mount(input.tempDir);
    content.beginObject().key('datasets').beginArray();
    let i = 0;
    for (const src of found.sources) {
      await processSource(s, prepared.root, src, content, job, input.tempDir, failures, warnings);
      input.progress(++i / found.sources.length);
    }
    content.endArray();
    if (job.units === 0) {
      const reasons = failures.map((f) => `${f.source}: ${f.error}`).join('; ');
      throw new ExtractionError(
        found.sources.length === 1 && !prepared.archive
          ? `The file could not be read as ${input.format}: ${failures[0]?.error ?? 'no layer'}.`
          : `No dataset in the upload could be read (${reasons}).`,
      );
    }
    content
      .field('datasetCount', job.units)
      .field('sourceCount', found.sources.length)
      .field('failedSources', failures)
      .field('maxInlineFeatures', job.cap)
      .field('featuresTruncated', job.truncated)
      .endObject();
  });

  if (job.truncated) {
    warnings.push(
      `Features were inlined up to the per-job cap of ${job.cap} (DOCPARSE_GIS_MAX_INLINE_FEATURES); datasets marked featuresTruncated list fewer features than featureCount.`,
    );
  }
  const metadata: Record<string, unknown> = {
    engine: GDAL_VERSION,
    datasetCount: job.units,
    sourceCount: found.sources.length,
    featureCount: job.totalFeatures,
    drivers: [...job.drivers].filter(Boolean).sort(),
    featuresInlined: job.inlined,
    featuresTruncated: job.truncated,
    maxInlineFeatures: job.cap,
  };
  if (prepared.archive)
    metadata.archive = { entries: prepared.archive.entries, files: prepared.archive.files, uncompressedBytes: prepared.archive.uncompressedBytes };
  return { documentFormat: input.format, documentUnits: job.units, metadata, warnings, parts: job.parts, completeness: job.completeness.result() };
};
