// Speed of the PDF parser vs native and JS baselines, one thread each, same files, same run.
//   node bench/pdf/speed.mjs [runs=3] [--no-ocr] [--warm=3] [--cold] [--no-pin]
// Steady state of a long-running worker: before timing, the in-process contenders (ours in
// each mode, pdf.js) get --warm untimed passes over all files (V8 tiers PDFium's WASM up to
// optimised code in the background and JITs the JS over the first few passes; the cold
// passes' times are reported as warmUpMs), pdftotext one (file cache). --cold keeps the old
// single-file warm-up. The timed passes are interleaved file by file (round r, file f: ours
// SingleColumn, pdftotext, pdf.js, PDFium floor, ours MultiColumn, ours Advanced, pdftotext
// -layout, starting one contender later on each file; a contender's pass = the sum over the
// files): this machine's speed swings by up to 40 % over seconds (a native pdftotext loop
// alternates between ≈ 600 and ≈ 930 ms), so contenders timed whole passes apart saw different
// machines; contenders timed on one file within milliseconds of each other see the same one.
// PDFium floor: what any parser built on PDFium's text page cannot avoid (FPDF_LoadPage,
// FPDFText_LoadPage, one read of each character's code, object and box, closing): pdf.js over
// it bounds the SingleColumn ratio from above.
// Wall time is the headline (medians); CPU time (ours: this process; pdf.js: its own process;
// pdftotext: its children's user+sys from /proc/self/stat) is reported too, being less
// sensitive to other processes competing for the cores.
// Ours: dist/ parser in this process (one thread), full artifact JSON written to /tmp; PDFium is
// the binary the service would run (result.pdfium: the build's re-optimised one unless
// DOCPARSE_PDFIUM_OPTIMIZED=false).
// pdftotext / pdftotext -layout (poppler-utils, native), spawned once per file.
// pdf.js (pdfjs-dist legacy build, no worker) in a child process of its own (pdfjs-child.mjs):
// getTextContent on every page.
// OCR: ours (Ocr mode, 300 DPI; after one untimed pass) vs native pdftoppm -r 300 + tesseract
// (OMP_THREAD_LIMIT=1, same eng model), alternating run by run.
import { execFileSync, fork, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeArtifact } from '../../dist/pipeline/thread.js';
import { parsePdf } from '../../dist/formats/pdf/index.js';
import { getPdfium, pdfiumBinary } from '../../dist/formats/pdf/pdfium-loader.js';
import { PdfDocument } from '../../dist/formats/pdf/document.js';
import { HAS_TASKSET, median, raisePriority } from '../lib/harness.mjs';
import { CORPUS, textPdfs } from './corpus.mjs';

const RUNS = Number(process.argv[2] ?? 3) || 3;
const noOcr = process.argv.includes('--no-ocr');
const cold = process.argv.includes('--cold');
const WARM = Number(process.argv.find((a) => a.startsWith('--warm='))?.slice(7) ?? 3);
const TEXT = textPdfs();
const totalPages = TEXT.reduce((s, f) => s + f.pages, 0);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pdfbench-'));
// Every output goes to a new file, as the service writes each job's artifact to its own path
// (overwriting one file would time the truncation of the previous multi-MB artifact); the
// files are removed after each timed pass, outside the timing.
let outSeq = 0;
const outFile = (ext) => path.join(tmp, `out-${outSeq++}.${ext}`);
function removeOutputs() {
  for (const f of fs.readdirSync(tmp)) if (f.startsWith('out-')) fs.rmSync(path.join(tmp, f), { force: true });
}

/** CPU ms of this process (all its threads). */
const selfCpu = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};
/** CPU ms of waited-for children (cutime + cstime, clock ticks of 10 ms). */
const childCpu = () => {
  const f = fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  return (Number(f[13]) + Number(f[14])) * 10;
};
/**
 * Times `fn` once: wall ms and CPU ms — of this process, of its waited-for children (`clock`
 * 'children'), or as `fn` reports them ('reported': the pdf.js child times itself).
 */
async function once(fn, clock = 'self') {
  const cpu = clock === 'children' ? childCpu : selfCpu;
  const c0 = cpu();
  const t0 = performance.now();
  const reported = await fn();
  const t = clock === 'reported' ? reported : { wall: performance.now() - t0, cpu: cpu() - c0 };
  removeOutputs();
  return t;
}
/**
 * Runs the contenders (each `fn(files)`) in rounds, interleaved file by file; per contender:
 * wall and CPU medians and runs (a run = the sum over the files of one round).
 */
async function rounds(contenders, files = TEXT) {
  const entries = Object.entries(contenders);
  const acc = Object.fromEntries(entries.map(([k]) => [k, { wall: [], cpu: [] }]));
  for (let i = 0; i < RUNS; i++) {
    const sum = Object.fromEntries(entries.map(([k]) => [k, { wall: 0, cpu: 0 }]));
    for (let f = 0; f < files.length; f++) {
      for (let j = 0; j < entries.length; j++) {
        const [k, [fn, clock]] = entries[(j + f + i) % entries.length];
        const t = await once(() => fn([files[f]]), clock);
        sum[k].wall += t.wall;
        sum[k].cpu += t.cpu;
      }
    }
    for (const [k] of entries) {
      acc[k].wall.push(sum[k].wall);
      acc[k].cpu.push(sum[k].cpu);
    }
  }
  return Object.fromEntries(
    Object.entries(acc).map(([k, { wall, cpu }]) => [
      k,
      { median: median(wall), runs: wall.map((t) => Math.round(t)), cpuMedian: median(cpu), cpuRuns: cpu.map((t) => Math.round(t)) },
    ]),
  );
}

async function ours(mode, files = TEXT) {
  for (const { file } of files) {
    const out = outFile('json');
    const r = await writeArtifact(
      {
        documentId: 'b',
        fileName: file,
        format: 'pdf',
        options: { pdfMode: mode },
        customMetadata: null,
        inputPath: path.join(CORPUS, file),
        artifactPath: out,
        tempDir: tmp,
      },
      async () => parsePdf,
    );
    if (!r.ok) throw new Error(`${file}: ${r.message}`);
  }
}
function pdftotext(layout, files = TEXT) {
  for (const { file } of files) spawnSync('pdftotext', [...(layout ? ['-layout'] : []), path.join(CORPUS, file), outFile('txt')], { stdio: 'ignore' });
}
// Before the pdf.js child is started, which inherits the raised priority and the core.
const priority = raisePriority();
// One thread each, literally: this process (all its threads) and every contender it starts
// (pdf.js's process, pdftotext, pdftoppm, tesseract) run on one core. Unpinned, a contender's
// helper threads take the other core: V8's garbage collector gives pdf.js ≈ 10 % more CPU time
// than wall time (ours ≈ 3 %), so wall-clock ratios would measure more than one thread of it.
// --no-pin leaves the affinity alone; BENCH_PDF_CPU picks the core (default 1).
const PIN_CPU = process.env.BENCH_PDF_CPU ?? '1';
const pinning = process.argv.includes('--no-pin')
  ? 'none (--no-pin)'
  : HAS_TASKSET && spawnSync('taskset', ['-a', '-p', '-c', PIN_CPU, String(process.pid)], { stdio: 'ignore' }).status === 0
    ? `every contender on cpu ${PIN_CPU} (taskset)`
    : 'none (taskset failed or missing)';
// pdf.js runs in a child process of its own (bench/pdf/pdfjs-child.mjs says why), which times
// each request itself; null when pdfjs-dist is not installed.
const pdfjs = await new Promise((resolve) => {
  const child = fork(new URL('./pdfjs-child.mjs', import.meta.url), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  child.once('message', (m) => resolve(m.ready ? child : null));
  child.once('exit', () => resolve(null));
});
let requestSeq = 0;
/** pdf.js over `files` in the child: its own wall and CPU ms. */
function pdfjsText(files = TEXT) {
  const id = requestSeq++;
  return new Promise((resolve, reject) => {
    const onMessage = (m) => {
      if (m.id !== id) return;
      pdfjs.off('message', onMessage);
      if (m.error) reject(new Error(`pdf.js: ${m.error}`));
      else resolve({ wall: m.wall, cpu: m.cpu });
    };
    pdfjs.on('message', onMessage);
    pdfjs.send({ id, files: files.map(({ file }) => ({ path: path.join(CORPUS, file), out: outFile('txt') })) });
  });
}

/** The PDFium floor (see the header), on the same PDFium binary and file reader as ours. */
async function pdfiumFloor(files = TEXT) {
  const pdfium = await getPdfium();
  const { ex } = pdfium;
  for (const { file } of files) {
    const doc = PdfDocument.open(pdfium, path.join(CORPUS, file));
    const box = doc.scratch.ptr;
    for (let i = 0; i < doc.pageCount; i++) {
      const page = ex.FPDF_LoadPage(doc.handle, i);
      const text = ex.FPDFText_LoadPage(page);
      const n = ex.FPDFText_CountChars(text);
      for (let c = 0; c < n; c++) {
        ex.FPDFText_GetUnicode(text, c);
        ex.FPDFText_GetTextObject(text, c);
        ex.FPDFText_GetLooseCharBox(text, c, box);
      }
      ex.FPDFText_ClosePage(text);
      ex.FPDF_ClosePage(page);
    }
    doc.close();
  }
}

const result = {
  date: new Date().toISOString(),
  uptime: execFileSync('uptime', { encoding: 'utf8' }).trim(),
  priority,
  pinning,
  pdfium: pdfiumBinary(),
  runs: RUNS,
  files: TEXT.length,
  pages: totalPages,
  node: process.version,
  warmUp: cold ? 'one file (SingleColumn, pdf.js)' : `${WARM} untimed passes over all files (ours in each mode, pdf.js, the PDFium floor), 1 for pdftotext`,
};
// Warm-up (engine instantiation is per thread, once).
if (cold) {
  await ours('SingleColumn', TEXT.slice(0, 1));
  if (pdfjs) await pdfjsText(TEXT.slice(0, 1));
} else {
  const warm = { singleColumn: [], multiColumn: [], advanced: [], pdfjs: [], pdfiumFloor: [] };
  for (let i = 0; i < WARM; i++) {
    for (const [k, m] of [
      ['singleColumn', 'SingleColumn'],
      ['multiColumn', 'MultiColumn'],
      ['advanced', 'Advanced'],
    ])
      warm[k].push(Math.round((await once(() => ours(m))).wall));
    if (pdfjs) warm.pdfjs.push(Math.round((await once(() => pdfjsText(), 'reported')).wall));
    warm.pdfiumFloor.push(Math.round((await once(() => pdfiumFloor())).wall));
  }
  pdftotext(false);
  pdftotext(true);
  result.warmUpMs = warm;
}

const pps = (ms) => Math.round((totalPages / (ms / 1000)) * 10) / 10;
const contenders = {
  singleColumn: [(files) => ours('SingleColumn', files)],
  pdftotext: [(files) => pdftotext(false, files), 'children'],
  ...(pdfjs ? { pdfjs: [(files) => pdfjsText(files), 'reported'] } : {}),
  pdfiumFloor: [(files) => pdfiumFloor(files)],
  multiColumn: [(files) => ours('MultiColumn', files)],
  advanced: [(files) => ours('Advanced', files)],
  pdftotextLayout: [(files) => pdftotext(true, files), 'children'],
};
const t = await rounds(contenders);
const ratio = (base, ours, key = 'median') => +(base[key] / ours[key]).toFixed(2);
result.text = {
  ...Object.fromEntries(Object.entries(t).map(([k, v]) => [k, { ms: v, pagesPerSec: pps(v.median) }])),
  ...(pdfjs ? {} : { pdfjs: 'pdfjs-dist not installed' }),
  ratios: {
    singleVsPdftotext: ratio(t.pdftotext, t.singleColumn),
    singleVsPdfjs: pdfjs ? ratio(t.pdfjs, t.singleColumn) : null,
    pdfiumFloorVsPdfjs: pdfjs ? ratio(t.pdfjs, t.pdfiumFloor) : null,
    singleColumnOverFloor: ratio(t.singleColumn, t.pdfiumFloor),
    multiVsPdftotextLayout: ratio(t.pdftotextLayout, t.multiColumn),
    advancedVsPdftotextLayout: ratio(t.pdftotextLayout, t.advanced),
  },
  cpuRatios: {
    singleVsPdftotext: ratio(t.pdftotext, t.singleColumn, 'cpuMedian'),
    singleVsPdfjs: pdfjs ? ratio(t.pdfjs, t.singleColumn, 'cpuMedian') : null,
    pdfiumFloorVsPdfjs: pdfjs ? ratio(t.pdfjs, t.pdfiumFloor, 'cpuMedian') : null,
    multiVsPdftotextLayout: ratio(t.pdftotextLayout, t.multiColumn, 'cpuMedian'),
    advancedVsPdftotextLayout: ratio(t.pdftotextLayout, t.advanced, 'cpuMedian'),
  },
};
// Largest text file alone (117 pages): per-file process start-up matters less.
const big = [{ file: 'pysample__GeoTopo-komprimiert.pdf', pages: 117 }];
const tb = await rounds(
  {
    ours: [(files) => ours('SingleColumn', files)],
    pdftotext: [(files) => pdftotext(false, files), 'children'],
    ...(pdfjs ? { pdfjs: [(files) => pdfjsText(files), 'reported'] } : {}),
  },
  big,
);
result.largest = {
  file: big[0].file,
  pages: 117,
  ours: tb.ours,
  pdftotext: tb.pdftotext,
  pdfjs: tb.pdfjs ?? null,
  ratioVsPdftotext: ratio(tb.pdftotext, tb.ours),
  ratioVsPdfjs: tb.pdfjs ? ratio(tb.pdfjs, tb.ours) : null,
  cpuRatioVsPdftotext: ratio(tb.pdftotext, tb.ours, 'cpuMedian'),
  cpuRatioVsPdfjs: tb.pdfjs ? ratio(tb.pdfjs, tb.ours, 'cpuMedian') : null,
};

if (!noOcr) {
  const scan = [{ file: 'generated__scanned-3p.pdf', pages: 3 }];
  const ocrRuns = Math.max(3, Math.min(RUNS, 5));
  // One untimed pass first, as for the text contenders (the steady state of a worker that has
  // run OCR before): the first creates the thread's Tesseract engine, and V8 tiers its WASM up
  // in the background on the same pinned core during it and the next pass. Reported as warmUpMs.
  let ocrWarmUpMs = null;
  if (!cold) {
    const t0 = performance.now();
    await ours('Ocr', scan);
    ocrWarmUpMs = Math.round(performance.now() - t0);
  }
  // Ours and the native pipeline alternate, so both see the same machine.
  const tOurs = [],
    tNative = [],
    tTessOnly = [];
  for (let i = 0; i < ocrRuns; i++) {
    const t = performance.now();
    await ours('Ocr', scan);
    tOurs.push(performance.now() - t);
    const t0 = performance.now();
    execFileSync('pdftoppm', ['-r', '300', '-png', path.join(CORPUS, scan[0].file), path.join(tmp, 'scan')]);
    const t1 = performance.now();
    for (let p = 1; p <= 3; p++)
      execFileSync('tesseract', [path.join(tmp, `scan-${p}.png`), path.join(tmp, `o${p}`)], {
        env: { ...process.env, OMP_THREAD_LIMIT: '1' },
        stdio: 'ignore',
      });
    const t2 = performance.now();
    tNative.push(t2 - t0);
    tTessOnly.push(t2 - t1);
  }
  const sp = (ms) => +(ms / 3000).toFixed(2);
  result.ocr = {
    file: scan[0].file,
    pages: 3,
    oursSecPerPage: sp(median(tOurs)),
    nativeRenderPlusTesseractSecPerPage: sp(median(tNative)),
    nativeTesseractOnlySecPerPage: sp(median(tTessOnly)),
    runsMs: { ours: tOurs.map(Math.round), native: tNative.map(Math.round), tesseractOnly: tTessOnly.map(Math.round) },
    warmUpMs: ocrWarmUpMs,
    ratioVsNative: +(median(tOurs) / median(tNative)).toFixed(2),
    ratioVsTesseractOnly: +(median(tOurs) / median(tTessOnly)).toFixed(2),
  };
}

// Peak RSS per thread: run `node bench/pdf/rss-child.mjs <file> <mode>` from a shell (a child
// forked from this large process would inherit its ru_maxrss).
pdfjs?.kill();
fs.rmSync(tmp, { recursive: true, force: true });
console.log(JSON.stringify(result, null, 2));
