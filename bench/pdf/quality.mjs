// Quality figures on the corpus: page count vs pdfinfo, text similarity vs pdftotext,
// reading order on multi-column files. usage: node bench/pdf/quality.mjs [SingleColumn|MultiColumn|auto]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { writeArtifact } from '../../dist/pipeline/thread.js';
import { parsePdf } from '../../dist/formats/pdf/index.js';
import { pagedSimilarity, artifactPageTexts } from './similarity.mjs';
import { CORPUS, manifestRows } from './corpus.mjs';

const forced = process.argv[2] && process.argv[2] !== 'auto' ? process.argv[2] : null;
const rows = manifestRows();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pdfq-'));
for (const [file, , , , what, pages] of rows) {
  const fp = path.join(CORPUS, file);
  const mode = forced ?? (what.startsWith('MultiColumn') ? 'MultiColumn' : 'SingleColumn');
  const layout = mode === 'SingleColumn' ? ['-layout'] : [];
  const out = path.join(dir, 'a.json');
  const r = await writeArtifact(
    { documentId: 'q', fileName: file, format: 'pdf', options: { pdfMode: mode }, customMetadata: null, inputPath: fp, artifactPath: out, tempDir: dir },
    async () => parsePdf,
  );
  if (!r.ok) {
    console.log([file, mode, 'FAIL', r.code, r.message].join('\t'));
    continue;
  }
  const a = JSON.parse(fs.readFileSync(out, 'utf8'));
  let ref = '';
  try {
    ref = execFileSync('pdftotext', [...layout, '-enc', 'UTF-8', fp, '-'], { encoding: 'utf8', maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {}
  const refPages = ref.split('\f');
  if (refPages.length > a.content.pages.length) refPages.length = a.content.pages.length;
  const sim = pagedSimilarity(artifactPageTexts(a), refPages);
  console.log([file, mode, `pages=${a.documentUnits}/${pages}`, `sim=${sim.toFixed(4)}`, `warn=${a.warnings.length}`].join('\t'));
}
fs.rmSync(dir, { recursive: true, force: true });
