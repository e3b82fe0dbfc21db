// Speed of the PDF parser vs native and JS baselines, one thread each, same files, same run.
//   node bench/pdf/speed.mjs [runs=3] [--no-ocr]
// Ours: dist/ parser in this process (one thread), full artifact JSON written to /tmp.
// pdftotext / pdftotext -layout (poppler-utils, native), spawned once per file.
// pdf.js (pdfjs-dist legacy build, in-process, no worker): getTextContent on every page.
// OCR: ours (Ocr mode, 300 DPI) vs native pdftoppm -r 300 + tesseract (OMP_THREAD_LIMIT=1, same eng model).
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeArtifact } from '../../dist/pipeline/thread.js';
import { parsePdf } from '../../dist/formats/pdf/index.js';

const CORPUS = '/work/shared/corpus/pdf';
const RUNS = Number(process.argv[2] ?? 3) || 3;
const noOcr = process.argv.includes('--no-ocr');
const rows = fs.readFileSync(path.join(CORPUS, 'MANIFEST.tsv'), 'utf8').trim().split('\n').slice(1).map((l) => l.split('\t'));
const skip = (what, pages) => pages === 'unreadable' || /^Encrypted|^Ocr/.test(what);
const TEXT = rows.filter(([, , , , what, pages]) => !skip(what, pages)).map(([f, , , , , p]) => ({ file: f, pages: Number(p) }));
const totalPages = TEXT.reduce((s, f) => s + f.pages, 0);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pdfbench-'));

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
async function timeIt(fn) {
  const ts = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    await fn();
    ts.push(performance.now() - t0);
  }
  return { median: median(ts), runs: ts.map((t) => Math.round(t)) };
}

async function ours(mode, files = TEXT) {
  for (const { file } of files) {
    const out = path.join(tmp, 'a.json');
    const r = await writeArtifact({ documentId: 'b', fileName: file, format: 'pdf', options: { pdfMode: mode }, customMetadata: null, inputPath: path.join(CORPUS, file), artifactPath: out, tempDir: tmp }, async () => parsePdf);
    if (!r.ok) throw new Error(`${file}: ${r.message}`);
  }
}
function pdftotext(layout, files = TEXT) {
  for (const { file } of files) spawnSync('pdftotext', [...(layout ? ['-layout'] : []), path.join(CORPUS, file), path.join(tmp, 'p.txt')], { stdio: 'ignore' });
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
    fs.writeFileSync(path.join(tmp, 'j.txt'), text);
  }
}

const result = { date: new Date().toISOString(), uptime: execFileSync('uptime', { encoding: 'utf8' }).trim(), runs: RUNS, files: TEXT.length, pages: totalPages, node: process.version };
// Warm-up (engine instantiation is per thread, once): one file each.
await ours('SingleColumn', TEXT.slice(0, 1));
if (pdfjs) await pdfjsText(TEXT.slice(0, 1));

const pps = (ms) => Math.round((totalPages / (ms / 1000)) * 10) / 10;
const single = await timeIt(() => ours('SingleColumn'));
const p2t = await timeIt(() => pdftotext(false));
const pjs = pdfjs ? await timeIt(() => pdfjsText()) : null;
const multi = await timeIt(() => ours('MultiColumn'));
const adv = await timeIt(() => ours('Advanced'));
const p2tl = await timeIt(() => pdftotext(true));
result.text = {
  singleColumn: { ms: single, pagesPerSec: pps(single.median) },
  pdftotext: { ms: p2t, pagesPerSec: pps(p2t.median) },
  pdfjs: pjs ? { ms: pjs, pagesPerSec: pps(pjs.median) } : 'pdfjs-dist not installed',
  multiColumn: { ms: multi, pagesPerSec: pps(multi.median) },
  advanced: { ms: adv, pagesPerSec: pps(adv.median) },
  pdftotextLayout: { ms: p2tl, pagesPerSec: pps(p2tl.median) },
  ratios: {
    singleVsPdftotext: +(p2t.median / single.median).toFixed(2),
    singleVsPdfjs: pjs ? +(pjs.median / single.median).toFixed(2) : null,
    multiVsPdftotextLayout: +(p2tl.median / multi.median).toFixed(2),
    advancedVsPdftotextLayout: +(p2tl.median / adv.median).toFixed(2),
  },
};
// Largest text file alone (117 pages): per-file process start-up matters less.
const big = [{ file: 'pysample__GeoTopo-komprimiert.pdf', pages: 117 }];
const bigOurs = await timeIt(() => ours('SingleColumn', big));
const bigP2t = await timeIt(() => pdftotext(false, big));
const bigPjs = pdfjs ? await timeIt(() => pdfjsText(big)) : null;
result.largest = { file: big[0].file, pages: 117, ours: bigOurs, pdftotext: bigP2t, pdfjs: bigPjs, ratioVsPdftotext: +(bigP2t.median / bigOurs.median).toFixed(2), ratioVsPdfjs: bigPjs ? +(bigPjs.median / bigOurs.median).toFixed(2) : null };

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
