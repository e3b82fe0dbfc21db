// The pdf.js contender of bench/pdf/speed.mjs, run in a process of its own: in the bench's
// process, pdf.js's large heap made V8's garbage collector (concurrent marking on the second
// core, collections triggered by whoever allocates next) work through the contender timed after
// it; with one process each, every contender pays for its own garbage only, as a worker would.
// Messages in: { id, files: [{ path, out }] }; out: { id, wall, cpu } (ms, timed here, around
// the parse only) or { id, error }. Text: getTextContent on every page (legacy build, no worker).
import fs from 'node:fs';

let pdfjs;
try {
  pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
} catch {
  process.send({ unavailable: true });
  process.exit(0);
}

async function extract(file, out) {
  const data = new Uint8Array(fs.readFileSync(file));
  const doc = await pdfjs.getDocument({ data, isEvalSupported: false, disableFontFace: true, verbosity: 0 }).promise;
  let text = '';
  for (let i = 1; i <= doc.numPages; i++) {
    const page = await doc.getPage(i);
    const tc = await page.getTextContent();
    text += tc.items.map((it) => it.str ?? '').join(' ');
    page.cleanup();
  }
  await doc.destroy();
  fs.writeFileSync(out, text);
}

process.on('message', async ({ id, files }) => {
  try {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    for (const { path, out } of files) await extract(path, out);
    const wall = performance.now() - t0;
    const c = process.cpuUsage(c0);
    process.send({ id, wall, cpu: (c.user + c.system) / 1000 });
  } catch (e) {
    process.send({ id, error: String(e?.stack ?? e) });
  }
});
process.send({ ready: true });
