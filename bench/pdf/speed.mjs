// Speed of the PDF parser vs native and JS baselines, one thread each, same files, same run.
//   node bench/pdf/speed.mjs [runs=3] [--no-ocr] [--warm=3] [--cold]
// Steady state of a long-running worker: before timing, the in-process contenders (ours in
// each mode, pdf.js) get --warm untimed passes over all files (V8 tiers PDFium's WASM up to
// optimised code in the background and JITs the JS over the first few passes; the cold
// passes' times are reported as warmUpMs), pdftotext one (file cache). --cold keeps the old
// single-file warm-up. The timed
// passes are interleaved (round r: ours SingleColumn, pdftotext, pdf.js, ours MultiColumn,
// ours Advanced, pdftotext -layout) so that load changes on a shared machine hit all alike.
// Wall time is the headline (medians); CPU time (ours and pdf.js: this process; pdftotext:
// its children's user+sys from /proc/self/stat) is reported too, being less sensitive to
// other processes competing for the cores.
// Ours: dist/ parser in this process (one thread), full artifact JSON written to /tmp; PDFium is
// the binary the service would run (result.pdfium: the build's re-optimised one unless
// DOCPARSE_PDFIUM_OPTIMIZED=false).
// pdftotext / pdftotext -layout (poppler-utils, native), spawned once per file.
// pdf.js (pdfjs-dist legacy build, in-process, no worker): getTextContent on every page.
// OCR: ours (Ocr mode, 300 DPI) vs native pdftoppm -r 300 + tesseract (OMP_THREAD_LIMIT=1, same eng model).
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeArtifact } from '../../dist/pipeline/thread.js';
import { parsePdf } from '../../dist/formats/pdf/index.js';
import { pdfiumBinary } from '../../dist/formats/pdf/pdfium-loader.js';
import { raisePriority } from '../lib/harness.mjs';
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

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
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
/** Times `fn` once: wall ms and CPU ms (of this process, or of its children). */
async function once(fn, children = false) {
  const cpu = children ? childCpu : selfCpu;
  const c0 = cpu();
  const t0 = performance.now();
  await fn();
  const t = { wall: performance.now() - t0, cpu: cpu() - c0 };
  removeOutputs();
  return t;
}
/** Runs the contenders in interleaved rounds; per contender: wall and CPU medians and runs. */
async function rounds(contenders) {
  const acc = Object.fromEntries(Object.keys(contenders).map((k) => [k, { wall: [], cpu: [] }]));
  for (let i = 0; i < RUNS; i++) {
    for (const [k, [fn, children]] of Object.entries(contenders)) {
      const t = await once(fn, children);
      acc[k].wall.push(t.wall);
      acc[k].cpu.push(t.cpu);
    }
  }
  return Object.fromEntries(
    Object.entries(acc).map(([k, { wall, cpu }]) => [k, { median: median(wall), runs: wall.map((t) => Math.round(t)), cpuMedian: median(cpu), cpuRuns: cpu.map((t) => Math.round(t)) }]),
  );
}

async function ours(mode, files = TEXT) {
  for (const { file } of files) {
    const out = outFile('json');
    const r = await writeArtifact({ documentId: 'b', fileName: file, format: 'pdf', options: { pdfMode: mode }, customMetadata: null, inputPath: path.join(CORPUS, file), artifactPath: out, tempDir: tmp }, async () => parsePdf);
    if (!r.ok) throw new Error(`${file}: ${r.message}`);
  }
}
function pdftotext(layout, files = TEXT) {
  for (const { file } of files) spawnSync('pdftotext', [...(layout ? ['-layout'] : []), path.join(CORPUS, file), outFile('txt')], { stdio: 'ignore' });
}
let pdfjs = null;
try {
  pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
} catch {}
async function pdfjsText(files = TEXT) {
  for (const { file } of files) {
    const data = new Uint8Array(fs.readFileSync(path.join(CORPUS, file)));
    const doc = await pdfjs.getDocument({ data, isEvalSupported: false, disableFontFace: true, verbosity: 0 }).promise;
    let text = '';
    for (let i = 1; i <= doc.numPages; i++) {
      const page = await doc.getPage(i);
      const tc = await page.getTextContent();
      text += tc.items.map((it) => it.str ?? '').join(' ');
      page.cleanup();
    }
    await doc.destroy();
    fs.writeFileSync(outFile('txt'), text);
  }
}

const priority = raisePriority();
const result = { date: new Date().toISOString(), uptime: execFileSync('uptime', { encoding: 'utf8' }).trim(), priority, pdfium: pdfiumBinary(), runs: RUNS, files: TEXT.length, pages: totalPages, node: process.version, warmUp: cold ? 'one file (SingleColumn, pdf.js)' : `${WARM} untimed passes over all files (ours in each mode, pdf.js), 1 for pdftotext` };
// Warm-up (engine instantiation is per thread, once).
if (cold) {
  await ours('SingleColumn', TEXT.slice(0, 1));
  if (pdfjs) await pdfjsText(TEXT.slice(0, 1));
} else {
  const warm = { singleColumn: [], multiColumn: [], advanced: [], pdfjs: [] };
  for (let i = 0; i < WARM; i++) {
    for (const [k, m] of [['singleColumn', 'SingleColumn'], ['multiColumn', 'MultiColumn'], ['advanced', 'Advanced']]) warm[k].push(Math.round((await once(() => ours(m))).wall));
    if (pdfjs) warm.pdfjs.push(Math.round((await once(() => pdfjsText())).wall));
  }
  pdftotext(false);
  pdftotext(true);
  result.warmUpMs = warm;
}

const pps = (ms) => Math.round((totalPages / (ms / 1000)) * 10) / 10;
const contenders = {
  singleColumn: [() => ours('SingleColumn')],
  pdftotext: [() => pdftotext(false), true],
  ...(pdfjs ? { pdfjs: [() => pdfjsText()] } : {}),
  multiColumn: [() => ours('MultiColumn')],
  advanced: [() => ours('Advanced')],
  pdftotextLayout: [() => pdftotext(true), true],
};
const t = await rounds(contenders);
const ratio = (base, ours, key = 'median') => +(base[key] / ours[key]).toFixed(2);
result.text = {
  ...Object.fromEntries(Object.entries(t).map(([k, v]) => [k, { ms: v, pagesPerSec: pps(v.median) }])),
  ...(pdfjs ? {} : { pdfjs: 'pdfjs-dist not installed' }),
  ratios: {
    singleVsPdftotext: ratio(t.pdftotext, t.singleColumn),
    singleVsPdfjs: pdfjs ? ratio(t.pdfjs, t.singleColumn) : null,
    multiVsPdftotextLayout: ratio(t.pdftotextLayout, t.multiColumn),
    advancedVsPdftotextLayout: ratio(t.pdftotextLayout, t.advanced),
  },
  cpuRatios: {
    singleVsPdftotext: ratio(t.pdftotext, t.singleColumn, 'cpuMedian'),
    singleVsPdfjs: pdfjs ? ratio(t.pdfjs, t.singleColumn, 'cpuMedian') : null,
    multiVsPdftotextLayout: ratio(t.pdftotextLayout, t.multiColumn, 'cpuMedian'),
    advancedVsPdftotextLayout: ratio(t.pdftotextLayout, t.advanced, 'cpuMedian'),
  },
};
// Largest text file alone (117 pages): per-file process start-up matters less.
const big = [{ file: 'pysample__GeoTopo-komprimiert.pdf', pages: 117 }];
const tb = await rounds({
  ours: [() => ours('SingleColumn', big)],
  pdftotext: [() => pdftotext(false, big), true],
  ...(pdfjs ? { pdfjs: [() => pdfjsText(big)] } : {}),
});
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
  const ocrRuns = Math.max(3, Math.min(RUNS, 3));
  const tOurs = [];
  for (let i = 0; i < ocrRuns; i++) {
    const t0 = performance.now();
    await ours('Ocr', scan);
    tOurs.push(performance.now() - t0);
  }
  const tNative = [], tTessOnly = [];
  for (let i = 0; i < ocrRuns; i++) {
    const t0 = performance.now();
    execFileSync('pdftoppm', ['-r', '300', '-png', path.join(CORPUS, scan[0].file), path.join(tmp, 'scan')]);
    const t1 = performance.now();
    for (let p = 1; p <= 3; p++) execFileSync('tesseract', [path.join(tmp, `scan-${p}.png`), path.join(tmp, `o${p}`)], { env: { ...process.env, OMP_THREAD_LIMIT: '1' }, stdio: 'ignore' });
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
    runsMs: { ours: tOurs.map(Math.round), native: tNative.map(Math.round) },
    ratioVsNative: +(median(tOurs) / median(tNative)).toFixed(2),
  };
}

// Peak RSS per thread: run `node bench/pdf/rss-child.mjs <file> <mode>` from a shell (a child
// forked from this large process would inherit its ru_maxrss).
fs.rmSync(tmp, { recursive: true, force: true });
console.log(JSON.stringify(result, null, 2));
