// Per-file timing of ours (one mode) vs pdftotext, to see where the time goes.
//   node bench/pdf/per-file.mjs [mode=SingleColumn] [runs=5] [--layout]
// Ours in process (engine warm), artifact JSON to /tmp; pdftotext spawned once per file.
// Per file: min over runs (least disturbed by other load on the machine).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeArtifact } from '../../dist/pipeline/thread.js';
import { parsePdf } from '../../dist/formats/pdf/index.js';
import { CORPUS, textPdfs } from './corpus.mjs';

const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const mode = args[0] ?? 'SingleColumn';
const RUNS = Number(args[1] ?? 5) || 5;
const layout = process.argv.includes('--layout') || mode !== 'SingleColumn';
const TEXT = textPdfs();
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pdfperfile-'));
async function ours(file) {
  const r = await writeArtifact(
    {
      documentId: 'b',
      fileName: file,
      format: 'pdf',
      options: { pdfMode: mode },
      customMetadata: null,
      inputPath: path.join(CORPUS, file),
      artifactPath: path.join(tmp, 'a.json'),
      tempDir: tmp,
    },
    async () => parsePdf,
  );
  if (!r.ok) throw new Error(`${file}: ${r.message}`);
}
await ours(TEXT[0].file);
let so = 0,
  sp = 0;
const out = [];
for (const { file, pages } of TEXT) {
  let to = Infinity,
    tp = Infinity;
  for (let i = 0; i < RUNS; i++) {
    let t0 = performance.now();
    await ours(file);
    to = Math.min(to, performance.now() - t0);
    t0 = performance.now();
    spawnSync('pdftotext', [...(layout ? ['-layout'] : []), path.join(CORPUS, file), path.join(tmp, 'p.txt')], { stdio: 'ignore' });
    tp = Math.min(tp, performance.now() - t0);
  }
  so += to;
  sp += tp;
  out.push(
    `${file.padEnd(52)} ${String(pages).padStart(4)}  ours ${to.toFixed(1).padStart(7)}  p2t ${tp.toFixed(1).padStart(7)}  ratio ${(tp / to).toFixed(2)}`,
  );
}
console.log(out.join('\n'));
console.log(
  `total (${mode}, min of ${RUNS}): ours ${so.toFixed(0)} ms, pdftotext${layout ? ' -layout' : ''} ${sp.toFixed(0)} ms, ratio ${(sp / so).toFixed(2)}`,
);
fs.rmSync(tmp, { recursive: true, force: true });
