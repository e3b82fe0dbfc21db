// Correctness gate of the FlatGeobuf route: runs every corpus file (bad_* included) and every
// --zip twice in one process, DOCPARSE_GIS_FGB=0 (GDAL's GeoJSONSeq writer for every layer)
// and =1 (FlatGeobuf route where eligible), and compares the artifacts and result parts:
// everything equal after JSON.parse, except coordinates, equal within --tol (default 1e-7),
// and the WGS 84 extents (same tolerance). Prints each difference; exit code 1 if any.
// Usage: node bench/gis/compare-fgb.mjs [--zip=x.zip ...] [--tol=1e-7]
// DOCPARSE_GIS_MAX_INLINE_FEATURES is honoured (set it low to compare the result parts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { corpusFormat as formatOf } from './lib.mjs';
import { corpusDir } from '../../test/helpers/corpus-dir.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CORPUS = corpusDir('gis');
const extra = process.argv.filter((a) => a.startsWith('--zip=')).map((a) => path.resolve(a.slice(6)));
const TOL = Number(process.argv.find((a) => a.startsWith('--tol='))?.slice(6) ?? 1e-7);
const only = process.argv.find((a) => a.startsWith('--only='))?.slice(7);

const { parseGis, fgbRouteStats } = await import(path.join(ROOT, 'dist/formats/gis/index.js'));
const { writeArtifact } = await import(path.join(ROOT, 'dist/pipeline/thread.js'));
const { DEFAULT_PARSER_SETTINGS } = await import(path.join(ROOT, 'dist/formats/settings.js'));

async function run(file, fgb) {
  // DOCPARSE_GIS_FGB on or off, as the parser receives it.
  const settings = { ...DEFAULT_PARSER_SETTINGS, gis: { ...DEFAULT_PARSER_SETTINGS.gis, flatGeobuf: fgb } };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dp-gis-cmp-'));
  try {
    const r = await writeArtifact(
      {
        documentId: 'cmp',
        fileName: path.basename(file),
        format: formatOf(path.basename(file)),
        options: {},
        customMetadata: null,
        inputPath: file,
        artifactPath: path.join(dir, 'artifact.json'),
        tempDir: dir,
      },
      async () => parseGis,
      settings,
    );
    if (!r.ok) return { ok: false, code: r.code, message: r.message };
    const a = JSON.parse(fs.readFileSync(path.join(dir, 'artifact.json'), 'utf8'));
    const parts = (r.parts ?? []).map((p) => ({
      name: p.name,
      features: fs
        .readFileSync(p.path, 'utf8')
        .split('\n')
        .filter((l) => l.length)
        .map((l) => JSON.parse(l.replace(/^\x1e/, ''))),
    }));
    return { ok: true, artifact: a, parts };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const diffs = [];
function cmp(a, b, where, coords) {
  if (diffs.length > 200) return;
  if (typeof a === 'number' && typeof b === 'number') {
    if (coords ? !(Math.abs(a - b) <= TOL) : a !== b) diffs.push(`${where}: ${a} vs ${b}`);
    return;
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) {
      diffs.push(`${where}: ${JSON.stringify(a)?.slice(0, 200)} vs ${JSON.stringify(b)?.slice(0, 200)}`);
      return;
    }
    for (let i = 0; i < a.length; i++) cmp(a[i], b[i], `${where}[${i}]`, coords);
    return;
  }
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a).sort();
    const kb = Object.keys(b).sort();
    if (ka.join('\0') !== kb.join('\0')) {
      diffs.push(`${where}: keys ${ka} vs ${kb}`);
      return;
    }
    for (const k of ka) {
      const c = coords || k === 'coordinates' || (k === 'wgs84' && where.endsWith('.extent'));
      cmp(a[k], b[k], `${where}.${k}`, c);
    }
    return;
  }
  if (a !== b) diffs.push(`${where}: ${JSON.stringify(a)?.slice(0, 200)} vs ${JSON.stringify(b)?.slice(0, 200)}`);
}

const inputs = [
  ...fs
    .readdirSync(CORPUS)
    .filter((f) => formatOf(f))
    .sort()
    .map((f) => path.join(CORPUS, f)),
  ...extra,
].filter((f) => !only || path.basename(f).includes(only));
let features = 0;
for (const file of inputs) {
  const used0 = fgbRouteStats.used;
  const fb0 = fgbRouteStats.fallbacks.length;
  const old = await run(file, false);
  const neu = await run(file, true);
  const name = path.basename(file);
  const before = diffs.length;
  cmp(old, neu, name, false);
  const n = old.ok ? old.artifact.content.datasets.reduce((s, d) => s + d.features.length, 0) + old.parts.reduce((s, p) => s + p.features.length, 0) : 0;
  features += n;
  console.log(
    `${name}: ${old.ok ? 'ok' : 'failed'}; ${n} features; FlatGeobuf route for ${fgbRouteStats.used - used0} layers; fallbacks: ${fgbRouteStats.fallbacks.slice(fb0).join(' | ') || '-'}; ${diffs.length - before} differences`,
  );
}
for (const d of diffs) console.log(`DIFF ${d}`);
console.log(`${inputs.length} files, ${features} features compared, ${fgbRouteStats.used} layers through FlatGeobuf, ${diffs.length} differences`);
process.exit(diffs.length ? 1 : 0);
