// Reading order on the multi-column files (MultiColumn mode): share of pdftotext's lines of
// ≥ 6 words that appear whole (same words, same order) in our page text — a line mixing two
// columns would not. usage: node bench/pdf/reading-order.mjs
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeArtifact } from '../../dist/pipeline/thread.js';
import { parsePdf } from '../../dist/formats/pdf/index.js';
import { artifactPageTexts, wholeLines } from './similarity.mjs';
import { corpusDir } from '../../test/helpers/corpus-dir.mjs';

const C = corpusDir('pdf');
for (const f of [
  'pdfjs__tracemonkey.pdf',
  'pysample__multicolumn.pdf',
  'pdfminer__naacl06-shinyama.pdf',
  'pdfplumber__federal-register-2020-17221.pdf',
  'pdfminer__i1040nr.pdf',
]) {
  for (const mode of ['MultiColumn', 'SingleColumn']) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pdfro-'));
    const out = path.join(dir, 'a.json');
    await writeArtifact(
      {
        documentId: 'r',
        fileName: f,
        format: 'pdf',
        options: { pdfMode: mode },
        customMetadata: null,
        inputPath: path.join(C, f),
        artifactPath: out,
        tempDir: dir,
      },
      async () => parsePdf,
    );
    const a = JSON.parse(fs.readFileSync(out, 'utf8'));
    fs.rmSync(dir, { recursive: true, force: true });
    const ref = execFileSync('pdftotext', [path.join(C, f), '-'], { encoding: 'utf8' }).split('\f');
    const { total, found } = wholeLines(artifactPageTexts(a), ref);
    console.log([f, mode, `lines=${total}`, `whole=${(found / total).toFixed(3)}`].join('\t'));
  }
}
