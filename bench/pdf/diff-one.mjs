// Shows where our text and pdftotext's differ for one page. usage: node bench/pdf/diff-one.mjs file.pdf mode page [layout]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeArtifact } from '../../dist/pipeline/thread.js';
import { parsePdf } from '../../dist/formats/pdf/index.js';
import { normaliseChars } from './similarity.mjs';
const [fp, mode = 'SingleColumn', pageStr = '1', layout] = process.argv.slice(2);
const page = Number(pageStr);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pdfd-'));
const out = path.join(dir, 'a.json');
await writeArtifact(
  { documentId: 'q', fileName: 'x.pdf', format: 'pdf', options: { pdfMode: mode }, customMetadata: null, inputPath: fp, artifactPath: out, tempDir: dir },
  async () => parsePdf,
);
const a = JSON.parse(fs.readFileSync(out, 'utf8'));
const ours = a.content.pages[page - 1].blocks.map((b) => b.text).join('\n');
const ref = execFileSync('pdftotext', [...(layout ? ['-layout'] : []), '-f', String(page), '-l', String(page), '-enc', 'UTF-8', fp, '-'], { encoding: 'utf8' });
console.log('--- ours\n' + ours.slice(0, 3000) + '\n--- pdftotext\n' + ref.slice(0, 3000));
console.log(normaliseChars(ours).length, normaliseChars(ref).length);
