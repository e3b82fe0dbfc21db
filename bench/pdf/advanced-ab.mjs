// Advanced mode (or --mode=…), two builds side by side: per-page time of this checkout's dist/ against
// another build's (e.g. main's), file by file and interleaved run by run (A, B, B, A, …), so
// both see the same machine on a shared box. CPU time of this process is the headline (less
// sensitive to other processes than wall time); wall time is reported too.
// usage: node bench/pdf/advanced-ab.mjs <other dist dir> [runs=5] [--mode=SingleColumn|MultiColumn] (default Advanced)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { CORPUS, textPdfs } from './corpus.mjs';

const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const MODE = process.argv.find((a) => a.startsWith('--mode='))?.slice(7) ?? 'Advanced';
const other = path.resolve(args[0] ?? '');
const RUNS = Number(args[1] ?? 5) || 5;
const here = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../dist');
async function build(dir) {
  const { writeArtifact } = await import(pathToFileURL(path.join(dir, 'pipeline/thread.js')).href);
  const { parsePdf } = await import(pathToFileURL(path.join(dir, 'formats/pdf/index.js')).href);
  return { writeArtifact, parsePdf };
}
const builds = { before: await build(other), after: await build(here) };
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'adv-ab-'));
const files = textPdfs();
const pages = files.reduce((s, f) => s + f.pages, 0);
async function pass(b) {
  const cpu0 = process.cpuUsage(),
    t0 = performance.now();
  for (const f of files) {
    const out = path.join(tmp, 'a.json');
    await b.writeArtifact(
      {
        documentId: 'b',
        fileName: f.file,
        format: 'pdf',
        options: { pdfMode: MODE },
        customMetadata: null,
        inputPath: path.join(CORPUS, f.file),
        artifactPath: out,
        tempDir: tmp,
      },
      async () => b.parsePdf,
    );
  }
  const c = process.cpuUsage(cpu0);
  return { wall: performance.now() - t0, cpu: (c.user + c.system) / 1000 };
}
await pass(builds.before); // warm-up, untimed
await pass(builds.after);
const res = { before: [], after: [] };
for (let r = 0; r < RUNS; r++) for (const k of r % 2 ? ['after', 'before'] : ['before', 'after']) res[k].push(await pass(builds[k]));
const med = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
for (const k of ['before', 'after']) {
  const cpu = med(res[k].map((x) => x.cpu)),
    wall = med(res[k].map((x) => x.wall));
  console.log(
    `${k}\t${files.length} files ${pages} pages\tcpu ${cpu.toFixed(0)} ms (${(cpu / pages).toFixed(2)} ms/page)\twall ${wall.toFixed(0)} ms (${(wall / pages).toFixed(2)} ms/page)`,
  );
}
fs.rmSync(tmp, { recursive: true, force: true });
