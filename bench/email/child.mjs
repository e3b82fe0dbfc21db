// One measured run for bench/email/run.mjs (a fresh process per run).
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { simpleParser } from 'mailparser';
import { writeArtifact } from '../../dist/pipeline/thread.js';
import { parseMbox } from '../../dist/formats/email/index.js';

const [mode, file, tmp] = process.argv.slice(2);
const t0 = performance.now();
let messages = 0;
let artifactBytes = 0;
if (mode === 'ours') {
  const r = await writeArtifact(
    {
      documentId: 'b',
      fileName: path.basename(file),
      format: 'mbox',
      options: {},
      customMetadata: null,
      inputPath: file,
      artifactPath: path.join(tmp, 'a.json'),
      tempDir: tmp,
    },
    async () => parseMbox,
  );
  if (!r.ok) throw new Error(r.message);
  messages = r.documentUnits;
  artifactBytes = r.artifactBytes;
} else {
  const text = fs.readFileSync(file);
  const parts = text.toString('latin1').split(/\n\nFrom /);
  for (const p of parts) {
    const body = p.slice(p.indexOf('\n') + 1);
    await simpleParser(Buffer.from(body, 'latin1'));
    messages++;
  }
}
const ms = performance.now() - t0;
console.log(JSON.stringify({ mode, messages, ms, artifactBytes, maxRssKb: process.resourceUsage().maxRSS }));
