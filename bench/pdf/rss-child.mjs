// Parses one file in a worker thread (as the pool does) and prints the process's peak RSS (KB)
// and its open file descriptors: before the parses, the most seen while they ran (the main
// thread samples /proc/self/fd every millisecond while the worker parses: the artifact's
// SyncFileStream and the PDF's read cache hold one descriptor each), and after them.
// usage: node bench/pdf/rss-child.mjs <file.pdf> <mode> [repeat=1]
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import os from 'node:os';
import fs from 'node:fs';
import path from 'node:path';

const openFds = () => fs.readdirSync('/proc/self/fd').length - 1; // (less readdir's own)

if (isMainThread) {
  const repeat = Math.max(1, Number(process.argv[4] ?? 1) || 1);
  const w = new Worker(new URL(import.meta.url), { workerData: { file: process.argv[2], mode: process.argv[3], repeat } });
  const fds = { before: 0, peak: 0, after: 0 };
  let sampler = null;
  w.on('message', (m) => {
    if (m === 'starting') {
      fds.before = fds.peak = openFds();
      sampler = setInterval(() => (fds.peak = Math.max(fds.peak, openFds())), 1);
      w.postMessage('go');
      return;
    }
    clearInterval(sampler);
    fds.after = openFds();
    console.log(JSON.stringify({ ok: m, repeat, maxRssKb: process.resourceUsage().maxRSS, fds }));
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
  parentPort.postMessage('starting');
  await new Promise((resolve) => parentPort.once('message', resolve));
  let ok = true;
  for (let i = 0; i < workerData.repeat; i++) {
    const r = await writeArtifact(
      {
        documentId: 'r',
        fileName: 'x.pdf',
        format: 'pdf',
        options: { pdfMode: workerData.mode },
        customMetadata: null,
        inputPath: workerData.file,
        artifactPath: path.join(tmp, `r${i}.json`),
        tempDir: tmp,
      },
      async () => parsePdf,
    );
    ok &&= r.ok;
  }
  fs.rmSync(tmp, { recursive: true, force: true });
  parentPort.postMessage(ok);
}
