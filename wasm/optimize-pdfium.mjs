// Build step (npm run build): re-optimises the installed @embedpdf/pdfium WASM with binaryen's
// wasm-opt (a dev dependency, itself WASM: nothing is downloaded) into dist/wasm/pdfium.wasm.
// The package's binary leaves inlining to V8, which does little of it; binaryen's -O3 with
// larger inlining limits makes page parsing and text-page building ≈ 15 % faster (bench/pdf,
// same-process interleaved A/B) with byte-identical results on the PDF corpus.
//
// The output sits next to a manifest naming the source's and the output's SHA-256, the
// optimiser's version and its flags; the loader (src/formats/pdf/pdfium-loader.ts) uses the
// optimised file only when both match, so a dependency update never meets a stale build and a
// damaged file is never run.
// Up to date: nothing is done. Without binaryen (a production-only install), or if wasm-opt
// fails, the service keeps the package's own binary and this step says so (the build goes on).
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outDir = path.join(root, 'dist', 'wasm');
const out = path.join(outDir, 'pdfium.wasm');
const manifestPath = path.join(outDir, 'pdfium.json');

// Keep in step with src/formats/pdf/pdfium-loader.ts (it reads the manifest, not these).
// Feature flags: what the package's binary already uses (emscripten's defaults); inlining
// limits: function size in binary instructions for "always", "flexible" and "one caller".
const FLAGS = [
  '-O3',
  '--enable-mutable-globals',
  '--enable-sign-ext',
  '--enable-nontrapping-float-to-int',
  '--enable-bulk-memory',
  '-aimfs=40',
  '-fimfs=300',
  '-ocimfs=80',
];

const sha256 = (file) => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
const source = require.resolve('@embedpdf/pdfium/pdfium.wasm');
const sourceSha256 = sha256(source);

let wasmOpt, optimizer;
try {
  const pkg = require.resolve('binaryen/package.json');
  wasmOpt = path.join(path.dirname(pkg), 'bin', 'wasm-opt');
  optimizer = `binaryen@${JSON.parse(fs.readFileSync(pkg, 'utf8')).version}`;
} catch {
  console.log('optimize-pdfium: binaryen is not installed (production install?): PDFium runs from the package binary');
  process.exit(0);
}

const wanted = { sourceSha256, optimizer, flags: FLAGS };
try {
  const have = JSON.parse(fs.readFileSync(manifestPath, 'utf8'));
  const outOk = fs.existsSync(out) && have.outputSha256 === sha256(out);
  if (have.sourceSha256 === wanted.sourceSha256 && have.optimizer === wanted.optimizer && JSON.stringify(have.flags) === JSON.stringify(FLAGS) && outOk) {
    console.log('optimize-pdfium: dist/wasm/pdfium.wasm is up to date');
    process.exit(0);
  }
} catch {
  // no manifest yet
}

fs.mkdirSync(outDir, { recursive: true });
fs.rmSync(manifestPath, { force: true });
const tmp = `${out}.${process.pid}.tmp`;
console.log(`optimize-pdfium: ${optimizer} wasm-opt ${FLAGS.join(' ')} (one-off, 1–2 minutes)…`);
const t0 = Date.now();
const r = spawnSync(process.execPath, [wasmOpt, ...FLAGS, source, '-o', tmp], { stdio: ['ignore', 'inherit', 'inherit'] });
if (r.status !== 0) {
  fs.rmSync(tmp, { force: true });
  console.error(`optimize-pdfium: wasm-opt failed (${r.error?.message ?? `exit ${r.status}`}); PDFium runs from the package binary`);
  process.exit(0);
}
// The result must still be a module the engine accepts, with the package's imports and exports.
const before = new WebAssembly.Module(fs.readFileSync(source));
const after = new WebAssembly.Module(fs.readFileSync(tmp));
const shape = (m) => JSON.stringify([WebAssembly.Module.imports(m), WebAssembly.Module.exports(m)]);
if (shape(before) !== shape(after)) {
  fs.rmSync(tmp, { force: true });
  console.error('optimize-pdfium: the optimised module has different imports or exports; PDFium runs from the package binary');
  process.exit(0);
}
fs.renameSync(tmp, out);
const outputSha256 = sha256(out);
fs.writeFileSync(
  manifestPath,
  `${JSON.stringify({ ...wanted, outputSha256, source: path.relative(root, source), builtAt: new Date().toISOString() }, null, 2)}\n`,
);
console.log(`optimize-pdfium: wrote dist/wasm/pdfium.wasm in ${Math.round((Date.now() - t0) / 1000)} s`);
