// PDF SingleColumn end to end against native `pdftotext` on every core, in the same run.
//
//   node bench/e2e/pdf-throughput.mjs [--mode embedded|redis] [--copies 5] [--runs 3] [--concurrency 8] [--poll-ms 50]
//
// The service: every corpus text PDF (bench/pdf/corpus.mjs) `copies` times, uploaded by
// `concurrency` clients (raw body, pdfMode=SingleColumn, generated ids), completion seen by
// batch status (POST /api/v1/documents/status/batch, ≤ 100 ids, every poll-ms); wall time
// from the first upload to the last `completed`. One warm-up pass of the file set first, so
// every thread has loaded PDFium. CPU = node + its parsing process (/proc, all threads), and the parsing process alone.
// The baseline: the same file list through `pdftotext -q FILE /dev/null` by
// `xargs -P $(nproc)`, wall time. Runs alternate; the ratio is pdftotext's wall / ours
// (≥ 1.0: the whole service is faster than pdftotext alone); the CPU ratio is pdftotext's CPU
// (its processes, from /proc/self/stat) / the service's, which a busy machine does not skew.
// Prints JSON on stdout.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CORPUS, textPdfs } from '../pdf/corpus.mjs';
import {
  args,
  client,
  endedChildrenCpuSeconds,
  fmt,
  getToken,
  median,
  processTree,
  runToEnd,
  sleep,
  startBenchServer,
  treeCpuSeconds,
  uptimeLine,
} from './lib.mjs';

const o = args({ mode: 'embedded', copies: 5, runs: 3, concurrency: 8, 'poll-ms': 50 });
const files = textPdfs();
const list = Array.from({ length: o.copies }, () => files).flat();
const pages = list.reduce((n, f) => n + f.pages, 0);
const bodies = new Map(files.map((f) => [f.file, fs.readFileSync(path.join(CORPUS, f.file))]));

/** The native run: wall ms and CPU seconds (awaited, see runToEnd). */
async function pdftotextRun() {
  const listFile = path.join(os.tmpdir(), `dp-bench-pdf-list-${process.pid}`);
  fs.writeFileSync(listFile, list.map((f) => path.join(CORPUS, f.file)).join('\0'));
  const cpu0 = endedChildrenCpuSeconds();
  const t0 = performance.now();
  const r = await runToEnd('sh', ['-c', `xargs -0 -P ${os.availableParallelism()} -n 1 sh -c 'pdftotext -q "$0" /dev/null || true' < ${listFile}`]);
  const ms = performance.now() - t0;
  fs.rmSync(listFile, { force: true });
  if (r.status !== 0) throw new Error(`pdftotext run failed: ${r.stderr}`);
  return { ms, cpuS: endedChildrenCpuSeconds() - cpu0 };
}

const server = await startBenchServer(o.mode);
const c = client(server.url, { maxSockets: o.concurrency + 4 });
const out = { mode: o.mode, files: files.length, copies: o.copies, documents: list.length, pages, concurrency: o.concurrency, runs: [] };
try {
  const token = await getToken(c, server.clientId, server.clientSecret);
  const auth = { authorization: `Bearer ${token}` };
  let seq = 0;

  /** Uploads `docs` with `concurrency` clients and waits for all to finish; returns wall ms. */
  async function serviceRun(docs) {
    const ids = [];
    const t0 = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: o.concurrency }, async () => {
        while (next < docs.length) {
          const f = docs[next++];
          const id = `pdf-${process.pid}-${seq++}`;
          const r = await c.request('POST', `/api/v1/documents/upload?fileName=${encodeURIComponent(f.file)}&pdfMode=SingleColumn&documentId=${id}`, {
            headers: { ...auth, 'content-type': 'application/pdf' },
            body: bodies.get(f.file),
          });
          if (r.status !== 202) throw new Error(`upload ${f.file}: ${r.status} ${r.text}`);
          ids.push(id);
        }
      }),
    );
    let open = ids;
    let failed = 0;
    while (open.length) {
      const still = [];
      for (let i = 0; i < open.length; i += 100) {
        const batch = open.slice(i, i + 100);
        const r = await c.request('POST', '/api/v1/documents/status/batch', {
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({ documentIds: batch }),
        });
        if (r.status !== 200) throw new Error(`batch status: ${r.status} ${r.text}`);
        for (const s of r.json.results) {
          if (s.statusInt === 9) failed++;
          else if (s.statusInt !== 8) still.push(s.documentId);
        }
      }
      open = still;
      if (open.length) await sleep(o['poll-ms']);
    }
    return { ms: performance.now() - t0, failed };
  }

  await serviceRun(files); // warm-up: every thread loads PDFium
  for (let run = 1; run <= o.runs; run++) {
    const load = uptimeLine();
    // Alternate which goes first, so neither always meets a warmer page cache or a quieter machine.
    const first = run % 2 === 1 ? 'service' : 'pdftotext';
    let svc;
    let native;
    const measureService = async () => {
      const pids = processTree(server.pid);
      const cpu0 = treeCpuSeconds(pids);
      // The parsing process (with what it starts) alone; the rest is the node's.
      const parsing0 = treeCpuSeconds(pids.slice(1));
      const r = await serviceRun(list);
      svc = { ...r, cpuS: treeCpuSeconds(pids) - cpu0, parsingCpuS: treeCpuSeconds(pids.slice(1)) - parsing0 };
    };
    if (first === 'service') {
      await measureService();
      native = await pdftotextRun();
    } else {
      native = await pdftotextRun();
      await measureService();
    }
    const row = {
      run,
      load,
      serviceMs: svc.ms,
      serviceFailed: svc.failed,
      servicePagesPerS: pages / (svc.ms / 1000),
      serviceCpuMsPerPage: (svc.cpuS * 1000) / pages,
      parsingCpuMsPerPage: (svc.parsingCpuS * 1000) / pages,
      pdftotextMs: native.ms,
      pdftotextPagesPerS: pages / (native.ms / 1000),
      pdftotextCpuMsPerPage: (native.cpuS * 1000) / pages,
      ratio: native.ms / svc.ms,
      // CPU for CPU (pdftotext's / the whole service's): what the wall ratio is on an idle machine
      // with no core left waiting; it holds when other work shares the cores, the wall ratio does not.
      cpuRatio: native.cpuS / svc.cpuS,
    };
    out.runs.push(row);
    console.error(
      `[${o.mode}] run ${run}: service ${fmt(row.servicePagesPerS, 0)} pages/s (${fmt(svc.ms / 1000, 2)} s, ${svc.failed} failed, ${fmt(row.serviceCpuMsPerPage, 2)} ms CPU/page, ${fmt(row.parsingCpuMsPerPage, 2)} of it the parsing process's); pdftotext ${fmt(row.pdftotextPagesPerS, 0)} pages/s (${fmt(native.ms / 1000, 2)} s, ${fmt(row.pdftotextCpuMsPerPage, 2)} ms CPU/page); ratio ${fmt(row.ratio, 2)}, CPU ratio ${fmt(row.cpuRatio, 2)}; load ${load}`,
    );
  }
  out.median = {
    servicePagesPerS: median(out.runs.map((r) => r.servicePagesPerS)),
    pdftotextPagesPerS: median(out.runs.map((r) => r.pdftotextPagesPerS)),
    ratio: median(out.runs.map((r) => r.ratio)),
    cpuRatio: median(out.runs.map((r) => r.cpuRatio)),
    pdftotextCpuMsPerPage: median(out.runs.map((r) => r.pdftotextCpuMsPerPage)),
    serviceCpuMsPerPage: median(out.runs.map((r) => r.serviceCpuMsPerPage)),
    parsingCpuMsPerPage: median(out.runs.map((r) => r.parsingCpuMsPerPage)),
  };
  console.error(
    `[${o.mode}] median ratio (pdftotext wall / service wall): ${fmt(out.median.ratio, 2)}; CPU ratio (pdftotext CPU / service CPU): ${fmt(out.median.cpuRatio, 2)}`,
  );
} finally {
  c.close();
  await server.stop();
}
process.stdout.write(JSON.stringify(out, null, 2) + '\n');
