// GIS bench: the gdal3.js (WASM) parser against native GDAL (Debian gdal-bin) on the same
// files. Usage: `node bench/gis/run.mjs [--runs=5] [--big=100000] [--no-build] [--write]`.
//
// - info:   ours = open + `ogrinfo -json` (GDALVectorInfo) per dataset in a warm thread-like
//           process; native = one `ogrinfo -ro -so -al <dataset>` process per dataset.
// - export: ours = the whole job as the worker runs it (unzip, discovery, info, GeoJSONSeq
//           export reprojected to WGS 84, artifact JSON written); native = one
//           `ogr2ogr -f GeoJSON -t_srs EPSG:4326` process per layer on pre-extracted files
//           (native gets the extraction for free).
// - big:    a synthetic zipped shapefile of --big polygons in EPSG:3857, same two measures,
//           plus this process's peak RSS during our export, plus the GDAL step alone on both
//           sides (open + `ogr2ogr -f GeoJSONSeq -t_srs EPSG:4326` with the parser's options),
//           which shows how much of our time is GDAL's own WASM work, the same for the
//           FlatGeobuf step the parser now runs, and the whole job with that route off
//           (DOCPARSE_GIS_FGB=0) in the same run.
//           bench/gis/stages.mjs breaks that step down further.
// --write appends bench/gis/NOTES.md and writes bench/results/gis.md.
// Medians of --runs runs (≥3). GDAL start-up (once per worker thread) is reported separately.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fmt, machine, median, option, table, timed } from '../lib/harness.mjs';
import { makeBig } from './lib.mjs';
import { corpusDir } from '../../test/helpers/corpus-dir.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CORPUS = corpusDir('gis');
const RUNS = Math.max(3, option('runs', 5));
const BIG = option('big', 100000);

if (!process.argv.includes('--no-build')) spawnSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
for (const tool of ['ogrinfo', 'ogr2ogr', 'unzip', 'zip']) {
  if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) {
    console.error(`${tool} is missing: apt-get install -y gdal-bin unzip zip`);
    process.exit(2);
  }
}
const nativeVersion = execFileSync('ogrinfo', ['--version']).toString().trim();

const { parseGis } = await import(path.join(ROOT, 'dist/formats/gis/index.js'));
const { discoverDatasets } = await import(path.join(ROOT, 'dist/formats/gis/discover.js'));
const { withGdal, GDAL_VERSION } = await import(path.join(ROOT, 'dist/formats/gis/engine.js'));
const { writeArtifact } = await import(path.join(ROOT, 'dist/pipeline/thread.js'));
const { DEFAULT_PARSER_SETTINGS } = await import(path.join(ROOT, 'dist/formats/settings.js'));

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'dp-gis-bench-'));
const now = () => performance.now();

function formatOf(file) {
  if (/^(shp_|mixed_|big_)/.test(file)) return 'shapefile';
  if (file.startsWith('mapinfo_')) return 'mapinfo';
  if (file.startsWith('fgdb_')) return 'filegdb';
  if (file.startsWith('gpkg_')) return 'geopackage';
  if (file.startsWith('geojson_')) return 'geojson';
  if (file.startsWith('kml_')) return 'kml';
  return null;
}

// --- inputs -------------------------------------------------------------------------------
const files = fs.readdirSync(CORPUS).filter((f) => formatOf(f));

async function extracted(file) {
  const dir = path.join(work, 'x', file);
  fs.mkdirSync(dir, { recursive: true });
  if (file.endsWith('.zip')) execFileSync('unzip', ['-q', '-o', path.join(CORPUS, file), '-d', dir]);
  else fs.copyFileSync(path.join(CORPUS, file), path.join(dir, file));
  const found = await discoverDatasets(dir);
  return found.sources.map((s) => ({ abs: path.join(dir, s.relPath), rel: s.relPath, format: s.format, dir }));
}

// --- measures -----------------------------------------------------------------------------
// Every measure returns { ms, cpu }: wall time and CPU time (user+sys, ms). The machine is
// shared, so CPU time is the steadier figure. Native commands run from one shell script whose
// `times` built-in reports the CPU its children used.
const q = (s) => `'${String(s).replace(/'/g, `'\\''`)}'`;

function runScript(cmds) {
  const script = path.join(work, 'cmds.sh');
  fs.writeFileSync(script, ['export SHAPE_RESTORE_SHX=YES', ...cmds, 'times'].join('\n') + '\n');
  const t = now();
  const r = spawnSync('sh', [script], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  const ms = now() - t;
  const lines = r.stdout.trim().split('\n');
  const secs = (lines[lines.length - 1] ?? '').match(/(\d+)m([\d.]+)s/g) ?? [];
  const cpu = secs
    .map((x) => {
      const m = /(\d+)m([\d.]+)s/.exec(x);
      return (Number(m[1]) * 60 + Number(m[2])) * 1000;
    })
    .reduce((a, b) => a + b, 0);
  return { ms, cpu };
}

function nativeInfo(sources) {
  return runScript(sources.map((s) => `ogrinfo -ro -so -al ${q(s.abs)} >/dev/null 2>&1`));
}

function layersOf(src) {
  const r = spawnSync('ogrinfo', ['-ro', '-so', '-q', src.abs], { encoding: 'utf8', env: { ...process.env, SHAPE_RESTORE_SHX: 'YES' } });
  return [...(r.stdout ?? '').matchAll(/^(?:\d+|Layer): (.+?)(?: \([^)]*\))?$/gm)].map((m) => m[1]);
}

function nativeExport(sources, layerLists) {
  const out = path.join(work, 'native-out.geojson');
  const cmds = [];
  sources.forEach((s, i) => {
    for (const layer of layerLists[i]) cmds.push(`rm -f ${q(out)}; ogr2ogr -f GeoJSON -t_srs EPSG:4326 ${q(out)} ${q(s.abs)} ${q(layer)} >/dev/null 2>&1`);
  });
  return runScript(cmds);
}

async function oursInfo(sources) {
  return timed(async () => {
    for (const s of sources) {
      await withGdal(async (g) => {
        g.mount(s.dir);
        const ds = g.openVector(g.virtualPath(path.relative(s.dir, s.abs)));
        try {
          g.vectorInfo(ds);
        } finally {
          g.close(ds);
        }
      });
    }
  });
}

/** `fgb`: the FlatGeobuf route on (the default) or off (DOCPARSE_GIS_FGB=0), as the parser receives it. */
async function oursExport(file, format, fgb = true) {
  const dir = fs.mkdtempSync(path.join(work, 'job-'));
  const settings = { ...DEFAULT_PARSER_SETTINGS, gis: { ...DEFAULT_PARSER_SETTINGS.gis, flatGeobuf: fgb } };
  const {
    ms,
    cpu,
    value: r,
  } = await timed(() =>
    writeArtifact(
      {
        documentId: 'bench',
        fileName: path.basename(file),
        format,
        options: {},
        customMetadata: null,
        inputPath: file,
        artifactPath: path.join(dir, 'artifact.json'),
        tempDir: dir,
      },
      async () => parseGis,
      settings,
    ),
  );
  fs.rmSync(dir, { recursive: true, force: true });
  if (!r.ok) throw new Error(`${file}: ${r.message}`);
  return { ms, cpu, bytes: r.artifactBytes, units: r.documentUnits };
}

// --- run ----------------------------------------------------------------------------------
const m = machine();
const t0 = now();
await withGdal(async () => {});
const startupMs = now() - t0;

const corpus = [];
for (const f of files) {
  const sources = await extracted(f);
  corpus.push({ file: f, format: formatOf(f), sources, layers: sources.map(layersOf) });
}
const allSources = corpus.flatMap((c) => c.sources);

// warm-up (file cache, JIT)
nativeInfo(allSources);
await oursInfo(allSources);

const infoNative = [];
const infoOurs = [];
for (let i = 0; i < RUNS; i++) {
  infoNative.push(nativeInfo(allSources));
  infoOurs.push(await oursInfo(allSources));
}

const exportNative = [];
const exportOurs = [];
const perFile = new Map();
for (let i = 0; i < RUNS; i++) {
  exportNative.push(
    nativeExport(
      allSources,
      corpus.flatMap((c) => c.layers),
    ),
  );
  const total = { ms: 0, cpu: 0 };
  for (const c of corpus) {
    const r = await oursExport(path.join(CORPUS, c.file), c.format);
    total.ms += r.ms;
    total.cpu += r.cpu;
    const p = perFile.get(c.file) ?? { ms: [], cpu: [], units: r.units, bytes: r.bytes };
    p.ms.push(r.ms);
    p.cpu.push(r.cpu);
    perFile.set(c.file, p);
  }
  exportOurs.push(total);
}

// big file
const bigDir = path.join(work, 'big');
const big = { zip: makeBig(BIG, bigDir), dir: bigDir };
const bigSrc = [{ abs: path.join(big.dir, 'big_parcels.shp'), dir: big.dir }];
const bigInfoNative = [];
const bigInfoOurs = [];
const bigExpNative = [];
const bigExpOurs = [];
// The GDAL step alone, ours and native, with the options the parser uses: where the floor is.
const SEQ = ['-f', 'GeoJSONSeq', '-lco', 'RS=NO', '-lco', 'COORDINATE_PRECISION=7', '-skipfailures', '-t_srs', 'EPSG:4326'];
// The step the FlatGeobuf route runs instead (src/formats/gis/index.ts, fgb.ts).
const FGB = ['-f', 'FlatGeobuf', '-lco', 'SPATIAL_INDEX=NO', '-skipfailures', '-nlt', 'GEOMETRY', '-t_srs', 'EPSG:4326'];
const bigStepNative = [];
const bigStepOurs = [];
const bigFgbStepNative = [];
const bigFgbStepOurs = [];
const bigExpSeqOurs = [];
function nativeStep(args = SEQ, ext = 'geojsonl') {
  const out = path.join(work, `native-step.${ext}`);
  return runScript([`rm -f ${q(out)}; ogr2ogr ${args.map(q).join(' ')} ${q(out)} ${q(bigSrc[0].abs)} big_parcels >/dev/null 2>&1`]);
}
async function oursStep(args = SEQ, ext = 'geojsonl') {
  fs.mkdirSync(path.join(big.dir, 'step'), { recursive: true });
  const r = await withGdal(async (g) => {
    g.mount(big.dir);
    return timed(async () => {
      const ds = g.openVector(g.virtualPath('big_parcels.shp'));
      try {
        g.vectorTranslate(g.virtualPath(`step/out.${ext}`), ds, [...args, 'big_parcels']);
      } finally {
        g.close(ds);
      }
    });
  });
  fs.rmSync(path.join(big.dir, 'step'), { recursive: true, force: true });
  return r;
}
let peakRss = 0;
let bigBytes = 0;
const rssBefore = process.memoryUsage().rss;
for (let i = 0; i < RUNS; i++) {
  bigInfoNative.push(nativeInfo(bigSrc));
  bigInfoOurs.push(await oursInfo(bigSrc));
  bigExpNative.push(nativeExport(bigSrc, [['big_parcels']]));
  bigStepNative.push(nativeStep());
  bigStepOurs.push(await oursStep());
  bigFgbStepNative.push(nativeStep(FGB, 'fgb'));
  bigFgbStepOurs.push(await oursStep(FGB, 'fgb'));
  // Same run, whole job with the FlatGeobuf route off (every layer through GDAL's GeoJSONSeq writer).
  bigExpSeqOurs.push(await oursExport(big.zip, 'shapefile', false));
  const timer = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 20);
  const r = await oursExport(big.zip, 'shapefile');
  clearInterval(timer);
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
  bigBytes = r.bytes;
  bigExpOurs.push(r);
}

const med = (xs, k) => median(xs.map((x) => x[k]));
const ratio = (a, b, k) => (med(a, k) / med(b, k)).toFixed(2);
const row = (label, ours, native) => [
  label,
  fmt(med(ours, 'ms'), 1),
  fmt(med(native, 'ms'), 1),
  ratio(ours, native, 'ms'),
  fmt(med(ours, 'cpu'), 1),
  fmt(med(native, 'cpu'), 1),
  ratio(ours, native, 'cpu'),
];
const HEAD = ['measure', 'ours wall ms', 'native wall ms', 'wall ratio', 'ours CPU ms', 'native CPU ms', 'CPU ratio'];
const layerCount = corpus.reduce((n, c) => n + c.layers.flat().length, 0);
const lines = [];
lines.push('# GIS bench: gdal3.js parser vs native GDAL');
lines.push('');
lines.push(`- date (UTC): ${m.date}`);
lines.push(`- command: \`node bench/gis/run.mjs --runs=${RUNS} --big=${BIG}\``);
lines.push(`- machine: ${m.nproc} × ${m.cpuModel}; node ${m.node}`);
lines.push(`- uptime at start: \`${m.uptime}\``);
lines.push(`- ours: ${GDAL_VERSION}; native: ${nativeVersion} (Debian gdal-bin)`);
lines.push(
  `- corpus: ${files.length} readable files of the corpus's gis folder (bad_* excluded), ${allSources.length} datasets, ${layerCount} layers; medians of ${RUNS} runs after one warm-up`,
);
lines.push(`- GDAL WASM start-up (once per worker thread, not in the figures below): ${fmt(startupMs)} ms`);
lines.push('');
lines.push('## Corpus totals');
lines.push('');
lines.push(
  table(HEAD, [
    row('info: all datasets (ours in-process; native one `ogrinfo -ro -so -al` per dataset)', infoOurs, infoNative),
    row('export: whole job per file (ours) vs `ogr2ogr -f GeoJSON -t_srs EPSG:4326` per layer (native)', exportOurs, exportNative),
  ]),
);
lines.push('');
lines.push(`## Large file: ${fmt(BIG)} polygons, zipped shapefile in EPSG:3857 (${fmt(fs.statSync(big.zip).size / 1e6, 1)} MB zip)`);
lines.push('');
lines.push(
  table(HEAD, [
    row('info', bigInfoOurs, bigInfoNative),
    row('export to GeoJSON in WGS 84 (ours: unzip + info + export + artifact)', bigExpOurs, bigExpNative),
    row('same, FlatGeobuf route off (DOCPARSE_GIS_FGB=0: GDAL writes the GeoJSON) vs native export', bigExpSeqOurs, bigExpNative),
    row(
      'GDAL step alone, both sides: open + `ogr2ogr -f FlatGeobuf -lco SPATIAL_INDEX=NO -nlt GEOMETRY -t_srs EPSG:4326` (the route the parser takes)',
      bigFgbStepOurs,
      bigFgbStepNative,
    ),
    row("GDAL step alone, both sides: open + `ogr2ogr -f GeoJSONSeq -t_srs EPSG:4326` with the parser's options (fallback route)", bigStepOurs, bigStepNative),
  ]),
);
lines.push('');
lines.push(
  `Whole job vs native export: ${ratio(bigExpOurs, bigExpNative, 'cpu')}× CPU, ${ratio(bigExpOurs, bigExpNative, 'ms')}× wall (target 1.2×); with the FlatGeobuf route off ${ratio(bigExpSeqOurs, bigExpNative, 'cpu')}× CPU. Our FlatGeobuf GDAL step alone is ${ratio(bigFgbStepOurs, bigExpNative, 'cpu')}× the native export in CPU, the GeoJSONSeq step ${ratio(bigStepOurs, bigExpNative, 'cpu')}×.`,
);
lines.push('');
lines.push(
  `Artifact ${fmt(bigBytes / 1e6, 1)} MB; this process's RSS ${fmt(rssBefore / 1e6)} MB before the big runs (GDAL loaded), peak ${fmt(peakRss / 1e6)} MB during them.`,
);
lines.push('');
lines.push('## Per file (ours, whole job)');
lines.push('');
lines.push(
  table(
    ['file', 'units', 'artifact KB', 'median wall ms', 'median CPU ms'],
    corpus.map((c) => {
      const p = perFile.get(c.file);
      return [c.file, String(p.units), fmt(p.bytes / 1024, 1), fmt(median(p.ms), 1), fmt(median(p.cpu), 1)];
    }),
  ),
);
lines.push('');
lines.push(`- uptime at end: \`${spawnSync('uptime').stdout.toString().trim()}\``);
const md = lines.join('\n') + '\n';
process.stdout.write(md);
if (process.argv.includes('--write')) {
  const out = path.join(ROOT, 'bench/results/gis.md');
  const notes = path.join(path.dirname(fileURLToPath(import.meta.url)), 'NOTES.md');
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, md + (fs.existsSync(notes) ? '\n' + fs.readFileSync(notes, 'utf8') : ''));
}
fs.rmSync(work, { recursive: true, force: true });
