// Parses one file in a worker thread (as the pool does) and prints the process's peak RSS (KB).
// usage: node bench/pdf/rss-child.mjs <file.pdf> <mode>
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import os from 'node:os';
import fs from 'node:fs';
import path from 'node:path';

if (isMainThread) {
  const w = new Worker(new URL(import.meta.url), { workerData: { file: process.argv[2], mode: process.argv[3] } });
  w.on('message', (ok) => {
    console.log(JSON.stringify({ ok, maxRssKb: process.resourceUsage().maxRSS }));
    process.exit(0);
  });
  w.on('error', (e) => {
    console.error(e);
    process.exit(1);
  });
} else {
  const { writeArtifact } = await import('../../dist/pipeline/thread.js');
  const { parsePdf } = await import('../../dist/formats/pdf/index.js');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pdfrss-'));
  const r = await writeArtifact({ documentId: 'r', fileName: 'x.pdf', format: 'pdf', options: { pdfMode: workerData.mode }, customMetadata: null, inputPath: workerData.file, artifactPath: path.join(tmp, 'r.json'), tempDir: tmp }, async () => parsePdf);
  fs.rmSync(tmp, { recursive: true, force: true });
  parentPort.postMessage(r.ok);
}
