// Where the time of a large GIS export goes, stage by stage, ours (gdal3.js in WASM) next to
// native GDAL (Debian gdal-bin) doing the same step. Usage:
//   node bench/gis/stages.mjs [--runs=3] [--big=100000] [--zip=path/to/file.zip] [--only=a,b]
// Every stage reports median wall ms and CPU ms (user+sys; for native, the child's rusage).
// The zipped shapefile is the same synthetic one bench/gis/run.mjs makes (polygons, EPSG:3857)
// unless --zip is given.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fmt, median, option, table, timed } from '../lib/harness.mjs';
import { makeBig } from './lib.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const RUNS = Math.max(1, option('runs', 3));
const BIG = option('big', 100000);
const zipArg = process.argv.find((a) => a.startsWith('--zip='))?.slice(6);
const only = process.argv
  .find((a) => a.startsWith('--only='))
  ?.slice(7)
  .split(',');

const { extractZip } = await import(path.join(ROOT, 'dist/formats/gis/zip.js'));
const { parseGis } = await import(path.join(ROOT, 'dist/formats/gis/index.js'));
const { withGdal } = await import(path.join(ROOT, 'dist/formats/gis/engine.js'));
const { writeArtifact } = await import(path.join(ROOT, 'dist/pipeline/thread.js'));

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'dp-gis-stages-'));
const now = () => performance.now();

function native(argv) {
  const t = now();
  const r = spawnSync('/usr/bin/time', ['-f', '%U %S', ...argv], { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = now() - t;
  const m = /([\d.]+) ([\d.]+)\s*$/.exec(r.stderr);
  return { ms, cpu: m ? (Number(m[1]) + Number(m[2])) * 1000 : NaN };
}

// --- inputs ---------------------------------------------------------------------------
const makeTo = process.argv.find((a) => a.startsWith('--make='))?.slice(7);
if (makeTo) {
  // Only write the synthetic zip (to reuse it across runs and profiles), then stop.
  const z = makeBig(BIG, path.join(work, 'big'));
  fs.copyFileSync(z, path.resolve(makeTo));
  fs.rmSync(work, { recursive: true, force: true });
  console.log(path.resolve(makeTo));
  process.exit(0);
}
const zip = zipArg ? path.resolve(zipArg) : makeBig(BIG, path.join(work, 'big'));
const xdir = path.join(work, 'x');
fs.mkdirSync(xdir);
execFileSync('unzip', ['-q', '-o', zip, '-d', xdir]);
const shp = fs.readdirSync(xdir).find((f) => /\.shp$/i.test(f));
const layer = shp.replace(/\.shp$/i, '');
const shpAbs = path.join(xdir, shp);

await withGdal(async () => {});

const stages = [];
const stage = (name, fn) => {
  if (!only || only.some((o) => name.includes(o))) stages.push({ name, fn, runs: [] });
};
const BASE = ['-f', 'GeoJSONSeq', '-lco', 'RS=NO', '-lco', 'COORDINATE_PRECISION=7', '-skipfailures'];

function gdalStage(name, build) {
  stage(name, async () => {
    const out = path.join(work, 'o');
    fs.rmSync(out, { recursive: true, force: true });
    fs.mkdirSync(out);
    return withGdal(async (s) => {
      s.mount(work);
      const r = await timed(async () => build(s));
      return r;
    });
  });
}

stage('ours: unzip (yauzl, guarded) into scratch', async () => {
  const d = path.join(work, 'uz');
  fs.rmSync(d, { recursive: true, force: true });
  fs.mkdirSync(d);
  return timed(() => extractZip(zip, d));
});
stage('native: unzip -q', async () => {
  const d = path.join(work, 'uzn');
  fs.rmSync(d, { recursive: true, force: true });
  return native(['unzip', '-q', zip, '-d', d]);
});
gdalStage('ours: open (GDALOpenEx) + close', (s) => s.close(s.openVector(s.virtualPath(`x/${shp}`))));
gdalStage('ours: open + info (-json)', (s) => {
  const ds = s.openVector(s.virtualPath(`x/${shp}`));
  s.vectorInfo(ds);
  s.close(ds);
});
stage('native: ogrinfo -ro -so -al', async () => native(['ogrinfo', '-ro', '-so', '-al', shpAbs]));
const exp = (label, args, dest = 'o/out.geojsonl') =>
  gdalStage(`ours: ogr2ogr ${label}`, (s) => {
    const ds = s.openVector(s.virtualPath(`x/${shp}`));
    s.vectorTranslate(dest.startsWith('/') ? dest : s.virtualPath(dest), ds, [...args, layer]);
    s.close(ds);
  });
const nexp = (label, args, ext = 'geojsonl') =>
  stage(`native: ogr2ogr ${label}`, async () => {
    const out = path.join(work, `n.${ext}`);
    fs.rmSync(out, { force: true });
    return native(['ogr2ogr', ...args, out, shpAbs, layer]);
  });
exp('GeoJSONSeq -t_srs 4326 (as shipped, NODEFS)', [...BASE, '-t_srs', 'EPSG:4326']);
nexp('GeoJSONSeq -t_srs 4326 (same options)', [...BASE, '-t_srs', 'EPSG:4326']);
exp('GeoJSONSeq -a_srs 4326 (no reprojection)', [...BASE, '-a_srs', 'EPSG:4326']);
nexp('GeoJSONSeq -a_srs 4326 (no reprojection)', [...BASE, '-a_srs', 'EPSG:4326']);
exp('GeoJSON -t_srs 4326 (what native is timed on)', ['-f', 'GeoJSON', '-t_srs', 'EPSG:4326'], 'o/out.geojson');
nexp('GeoJSON -t_srs 4326 (the bench baseline)', ['-f', 'GeoJSON', '-t_srs', 'EPSG:4326'], 'geojson');
exp('GeoJSONSeq -t_srs 4326 to /vsimem', [...BASE, '-t_srs', 'EPSG:4326'], '/vsimem/out.geojsonl');
exp('CSV (no geometry) no reprojection', ['-f', 'CSV'], 'o/out.csv');
nexp('CSV (no geometry) no reprojection', ['-f', 'CSV'], 'csv');
exp('FlatGeobuf -t_srs 4326 (cheap writer)', ['-f', 'FlatGeobuf', '-t_srs', 'EPSG:4326'], 'o/out.fgb');
nexp('FlatGeobuf -t_srs 4326 (cheap writer)', ['-f', 'FlatGeobuf', '-t_srs', 'EPSG:4326'], 'fgb');
stage('ours: whole job (writeArtifact + parseGis)', async () => {
  const dir = fs.mkdtempSync(path.join(work, 'job-'));
  const r = await timed(() =>
    writeArtifact(
      {
        documentId: 'stages',
        fileName: path.basename(zip),
        format: 'shapefile',
        options: {},
        customMetadata: null,
        inputPath: zip,
        artifactPath: path.join(dir, 'artifact.json'),
        tempDir: dir,
      },
      async () => parseGis,
    ),
  );
  if (!r.value.ok) throw new Error(r.value.message);
  fs.rmSync(dir, { recursive: true, force: true });
  return r;
});

for (let i = 0; i < RUNS + 1; i++) {
  for (const st of stages) {
    const r = await st.fn();
    if (i > 0) st.runs.push(r); // first round is a warm-up
  }
}
const med = (st, k) => median(st.runs.map((r) => r[k]));
console.log(`- ${new Date().toISOString()} · uptime: ${spawnSync('uptime').stdout.toString().trim()}`);
console.log(`- input: ${path.basename(zip)} (${fmt(fs.statSync(zip).size / 1e6, 1)} MB), layer ${layer}; medians of ${RUNS} runs after a warm-up`);
console.log('');
console.log(
  table(
    ['stage', 'wall ms', 'CPU ms'],
    stages.map((st) => [st.name, fmt(med(st, 'ms'), 1), fmt(med(st, 'cpu'), 1)]),
  ),
);
fs.rmSync(work, { recursive: true, force: true });
