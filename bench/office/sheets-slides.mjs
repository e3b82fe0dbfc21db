// Spreadsheet and presentation parse time and artifact size (issue 32: spans, provenance and
// completeness added per sheet, slide and chunk block): the corpus XLSX and PPTX read directly,
// and a generated 20 000 × 10 workbook, with and without chunkHints. `--dist` picks the
// compiled tree, so a build of main and one of a branch are measured in the same conditions.
//
//   node bench/office/sheets-slides.mjs [--dist dist] [--rounds 5] [--set XLSX]   (--set: only sets whose name starts so)
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { corpusDir } from '../../test/helpers/corpus-dir.mjs';
import ExcelJS from 'exceljs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const dist = path.resolve(arg('dist', path.join(ROOT, 'dist')));
const rounds = Number(arg('rounds', 5));
const imp = (p) => import(pathToFileURL(path.join(dist, p)).href);
const office = await imp('formats/office/index.js');
const { JsonWriter } = await imp('formats/kit/json-writer.js');
const { loadConfig } = await imp('config.js');
const settings = loadConfig({ PATH: process.env.PATH ?? '' }).parsers;

const CORPUS = corpusDir('office');
const manifest = readFileSync(path.join(CORPUS, 'MANIFEST.tsv'), 'utf8').split('\n').filter(Boolean).slice(1);
const files = (re) =>
  manifest
    .map((l) => l.split('\t'))
    .filter((c) => re.test(c[0]) && /^\d+$/.test(c[5]) && !c[0].includes('strict'))
    .map((c) => path.join(CORPUS, c[0]));
const tmp = mkdtempSync(path.join(os.tmpdir(), 'sheets-slides-bench-'));
const wide = path.join(tmp, 'wide.xlsx');
{
  // Strings and numbers alternating, with a merged header row.
  const wb = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: wide });
  const ws = wb.addWorksheet('Data');
  ws.mergeCells('A1:J1');
  ws.getCell('A1').value = 'Wide sheet';
  for (let r = 2; r <= 20_001; r++) ws.addRow(Array.from({ length: 10 }, (_, c) => (c % 2 ? r * 10 + c : `r${r}c${c}`))).commit();
  await wb.commit();
}

/** Parses one file into a counted /dev/null; returns the artifact content's bytes. */
async function parse(file, format, options) {
  const out = createWriteStream('/dev/null');
  await once(out, 'open');
  const w = new JsonWriter(out);
  const dir = mkdtempSync(path.join(tmp, 'job-'));
  try {
    const o = await office.parseOffice({ filePath: file, fileName: path.basename(file), format, options, settings, tempDir: dir, progress() {} }, w);
    await w.finish();
    return w.bytesWritten + (o.chunks ? JSON.stringify(o.chunks).length : 0);
  } finally {
    out.end();
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const sets = [
  { name: `XLSX corpus (${files(/\.(xlsx|xlsm)$/).length} files)`, files: files(/\.(xlsx|xlsm)$/), format: 'xlsx' },
  { name: `PPTX corpus (${files(/\.(pptx|pptm)$/).length} files)`, files: files(/\.(pptx|pptm)$/), format: 'pptx' },
  { name: 'XLSX 20 000 × 10 generated', files: [wide], format: 'xlsx' },
];
console.log(
  `dist: ${dist}; rounds: ${rounds}; ${new Date().toISOString()}; load: ${os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);
console.log('| set | chunkHints | median pass (ms) | output bytes |');
console.log('|---|---|---|---|');
for (const s of sets.filter((x) => x.name.startsWith(arg('set', '')))) {
  for (const chunkHints of [false, true]) {
    const times = [];
    let bytes = 0;
    for (let r = 0; r < rounds; r++) {
      const t = performance.now();
      bytes = 0;
      for (const f of s.files) bytes += await parse(f, s.format, { chunkHints });
      times.push(performance.now() - t);
    }
    console.log(`| ${s.name} | ${chunkHints} | ${median(times).toFixed(0)} | ${bytes} |`);
  }
}
rmSync(tmp, { recursive: true, force: true });
