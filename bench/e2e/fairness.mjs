// Fairness between tenants (issue 31): tenant B's small job, alone and under tenant A's flood.
//
//   node bench/e2e/fairness.mjs [--mode embedded|redis] [--flood 1000] [--concurrency 32] [--runs 3] [--idle 5] [--poll-ms 10] [--warmup 100]
//
// One node (bench/e2e/server.mjs) with two tenants, an app each, on a plan whose limits are never
// the bound. Each run: B's latency alone (--idle sequential jobs, their median), then A uploads
// --flood small CSVs with --concurrency clients, and as soon as the last is accepted B uploads one:
// its latency under the flood, and where it finished among A's jobs. The run waits for A's flood to
// finish before the next. Latency = from sending the upload to the status answer that reads
// completed (so it includes up to one polling interval). Ratio = latency under the flood / alone;
// the target is ≤ 3. The figures: the median of the runs.
import { args, client, fmt, getToken, median, sleep, smallCsv, startBenchServer, uptimeLine } from './lib.mjs';

const o = args({ mode: 'embedded', flood: 1000, concurrency: 32, runs: 3, idle: 5, 'poll-ms': 10, warmup: 100, rows: 50 });
if (!['embedded', 'redis'].includes(o.mode)) throw new Error('--mode embedded|redis');
const csv = smallCsv(o.rows);

const server = await startBenchServer(o.mode, { BENCH_TENANTS: '2' });
const c = client(server.url, { maxSockets: o.concurrency + 8 });
const out = { mode: o.mode, flood: o.flood, concurrency: o.concurrency, csvBytes: csv.length, runs: [] };
try {
  const authA = { authorization: `Bearer ${await getToken(c, server.clientId, server.clientSecret)}` };
  const authB = { authorization: `Bearer ${await getToken(c, server.others[0].clientId, server.others[0].clientSecret)}` };
  let seq = 0;

  const upload = async (auth, id) => {
    const r = await c.request('POST', `/api/v1/documents/upload?fileName=small.csv&csvRoute=Tabular&documentId=${id}`, {
      headers: { ...auth, 'content-type': 'text/csv' },
      body: csv,
    });
    if (r.status !== 202) throw new Error(`upload: ${r.status} ${r.text}`);
  };
  const status = async (auth, id) => {
    const r = await c.request('GET', `/api/v1/documents/${id}/status`, { headers: auth });
    if (r.status !== 200) throw new Error(`status: ${r.status} ${r.text}`);
    if (r.json.statusInt === 9) throw new Error(`job failed: ${JSON.stringify(r.json.error)}`);
    return r.json;
  };
  /** Upload → completed, polled every poll-ms: { ms, completedAt }. */
  const job = async (auth, id) => {
    const t0 = performance.now();
    await upload(auth, id);
    for (;;) {
      const s = await status(auth, id);
      if (s.statusInt === 8) return { ms: performance.now() - t0, completedAt: Date.parse(s.completedAt) };
      await sleep(o['poll-ms']);
    }
  };
  /** A's jobs, all completed: their completion times (batch status, 100 ids a request). */
  const waitAll = async (ids) => {
    const done = new Map();
    while (done.size < ids.length) {
      const rest = ids.filter((id) => !done.has(id));
      for (let i = 0; i < rest.length; i += 100) {
        const r = await c.request('POST', '/api/v1/documents/status/batch', {
          headers: { ...authA, 'content-type': 'application/json' },
          body: JSON.stringify({ documentIds: rest.slice(i, i + 100) }),
        });
        if (r.status !== 200) throw new Error(`batch status: ${r.status} ${r.text}`);
        for (const s of r.json.results) {
          if (s.statusInt === 9) throw new Error(`A's job failed: ${JSON.stringify(s.error)}`);
          if (s.statusInt === 8) done.set(s.documentId, Date.parse(s.completedAt));
        }
      }
      if (done.size < ids.length) await sleep(100);
    }
    return [...done.values()];
  };

  // Warm-up (threads, engines, connections), from A.
  const warm = Array.from({ length: o.warmup }, () => `fair-w-${process.pid}-${seq++}`);
  for (let i = 0; i < warm.length; i += o.concurrency) await Promise.all(warm.slice(i, i + o.concurrency).map((id) => upload(authA, id)));
  await waitAll(warm);

  for (let run = 1; run <= o.runs; run++) {
    const alone = [];
    for (let i = 0; i < o.idle; i++) alone.push((await job(authB, `fair-b-${process.pid}-${seq++}`)).ms);
    const loadBefore = uptimeLine();

    const floodIds = Array.from({ length: o.flood }, () => `fair-a-${process.pid}-${seq++}`);
    let next = 0;
    const tFlood = performance.now();
    await Promise.all(
      Array.from({ length: o.concurrency }, async () => {
        while (next < floodIds.length) await upload(authA, floodIds[next++]);
      }),
    );
    const floodUploadS = (performance.now() - tFlood) / 1000;
    const b = await job(authB, `fair-b-${process.pid}-${seq++}`);
    const aDone = await waitAll(floodIds);
    const floodS = (performance.now() - tFlood) / 1000;
    const row = {
      run,
      load: loadBefore,
      aloneMs: median(alone),
      aloneRunsMs: alone,
      underFloodMs: b.ms,
      ratio: b.ms / median(alone),
      // A's jobs still unfinished when B's completed: how much of the flood B did not wait for.
      aFinishedAfterB: aDone.filter((t) => t > b.completedAt).length,
      floodUploadSeconds: floodUploadS,
      floodSeconds: floodS,
    };
    out.runs.push(row);
    console.error(
      `[${o.mode}] run ${run}: B alone ${fmt(row.aloneMs)} ms, under A's flood of ${o.flood} ${fmt(row.underFloodMs)} ms (×${fmt(row.ratio, 2)}); ${row.aFinishedAfterB} of A's jobs finished after B's; flood uploaded in ${fmt(floodUploadS)} s, done in ${fmt(floodS)} s; load ${loadBefore}`,
    );
  }
  out.median = {
    aloneMs: median(out.runs.map((r) => r.aloneMs)),
    underFloodMs: median(out.runs.map((r) => r.underFloodMs)),
    ratio: median(out.runs.map((r) => r.ratio)),
    aFinishedAfterB: median(out.runs.map((r) => r.aFinishedAfterB)),
  };
  console.error(
    `[${o.mode}] median: B alone ${fmt(out.median.aloneMs)} ms, under the flood ${fmt(out.median.underFloodMs)} ms, ratio ${fmt(out.median.ratio, 2)}; ${out.median.aFinishedAfterB} of A's jobs finished after B's`,
  );
} finally {
  c.close();
  await server.stop();
}
process.stdout.write(JSON.stringify(out, null, 2) + '\n');
