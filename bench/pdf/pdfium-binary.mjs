// The build's re-optimised PDFium (dist/wasm/pdfium.wasm, wasm/optimize-pdfium.mjs) against the
// @embedpdf/pdfium package binary: both instantiated in this one process and run page by page
// in alternation (which goes first alternates too), so load changes on a shared machine hit
// both alike. Per page: FPDF_LoadPage + FPDFText_LoadPage + close, on the 22 text PDFs of the
// corpus; the first 3 passes warm up (V8 tiers the WASM up in the background), the rest are timed.
//   npm run build && node bench/pdf/pdfium-binary.mjs [passes=12]
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { median, raisePriority } from '../lib/harness.mjs';
import { CORPUS, textPdfs } from './corpus.mjs';

const require = createRequire(import.meta.url);
const PASSES = Number(process.argv[2] ?? 12) || 12;
const WARM = 3;
const priority = raisePriority();
const TEXT = textPdfs();
const files = TEXT.map(({ file }) => fs.readFileSync(path.join(CORPUS, file)));

const binaries = { package: require.resolve('@embedpdf/pdfium/pdfium.wasm'), optimized: new URL('../../dist/wasm/pdfium.wasm', import.meta.url).pathname };
if (!fs.existsSync(binaries.optimized)) throw new Error('dist/wasm/pdfium.wasm is missing: run npm run build');
const { init } = await import('@embedpdf/pdfium');
const engines = [];
for (const [name, file] of Object.entries(binaries)) {
  const api = await init({ wasmBinary: fs.readFileSync(file), printErr: () => {}, print: () => {} });
  api.PDFiumExt_Init();
  engines.push({ name, ex: api.pdfium.wasmExports, ms: [] });
}

for (let pass = 0; pass < PASSES; pass++) {
  const t = engines.map(() => 0);
  for (const bytes of files) {
    const docs = engines.map(({ ex }) => {
      const ptr = ex.malloc(bytes.length);
      new Uint8Array(ex.memory.buffer).set(bytes, ptr);
      return { ptr, doc: ex.FPDF_LoadMemDocument(ptr, bytes.length, 0) };
    });
    const pages = engines[0].ex.FPDF_GetPageCount(docs[0].doc);
    for (let i = 0; i < pages; i++) {
      for (let j = 0; j < engines.length; j++) {
        const k = (i + j + pass) % engines.length;
        const { ex } = engines[k];
        const t0 = performance.now();
        const page = ex.FPDF_LoadPage(docs[k].doc, i);
        const text = ex.FPDFText_LoadPage(page);
        ex.FPDFText_ClosePage(text);
        ex.FPDF_ClosePage(page);
        t[k] += performance.now() - t0;
      }
    }
    docs.forEach(({ ptr, doc }, k) => {
      engines[k].ex.FPDF_CloseDocument(doc);
      engines[k].ex.free(ptr);
    });
  }
  if (pass >= WARM) t.forEach((ms, k) => engines[k].ms.push(ms));
}

const [pkg, opt] = engines;
const manifest = JSON.parse(fs.readFileSync(new URL('../../dist/wasm/pdfium.json', import.meta.url), 'utf8'));
console.log(
  JSON.stringify(
    {
      date: new Date().toISOString(),
      uptime: fs.readFileSync('/proc/loadavg', 'utf8').trim(),
      priority,
      files: TEXT.length,
      timedPasses: PASSES - WARM,
      optimizer: manifest.optimizer,
      flags: manifest.flags,
      packageMs: { median: Math.round(median(pkg.ms)), runs: pkg.ms.map(Math.round) },
      optimizedMs: { median: Math.round(median(opt.ms)), runs: opt.ms.map(Math.round) },
      speedup: +(median(pkg.ms) / median(opt.ms)).toFixed(3),
    },
    null,
    2,
  ),
);
