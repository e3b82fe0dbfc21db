// Upload → completed latency for a small CSV (csvRoute=Tabular), at idle (sequential jobs) and
// under concurrent load (C clients each looping upload → poll until completed), in one mode.
//
//   node bench/e2e/latency.mjs --mode embedded|redis [--idle 200] [--jobs 400]
//        [--concurrency 16,32] [--runs 3] [--poll-ms 10] [--load-poll-ms 50] [--warmup 30]
//
// Client latency = time from sending the upload to the status response that reads statusInt 8
// (so it includes up to one polling interval). Server latency = completedAt − createdAt from
// that status payload. Throughput = jobs / wall time of the loaded run.
import { cpuSeconds, args, startBenchServer, client, getToken, smallCsv, stats, median, fmt, sleep, uptimeLine } from './lib.mjs';

const o = args({ mode: 'embedded', idle: 200, jobs: 400, concurrency: '16,32', runs: 3, 'poll-ms': 10, 'load-poll-ms': 50, warmup: 30, json: '' });
if (!['embedded', 'redis'].includes(o.mode)) throw new Error('--mode embedded|redis');
const conc = String(o.concurrency).split(',').map(Number).filter(Boolean);
const csv = Buffer.from(smallCsv());

const server = await startBenchServer(o.mode);
const c = client(server.url, { maxSockets: Math.max(64, ...conc) });
const out = { mode: o.mode, csvBytes: csv.length, pollMs: o['poll-ms'], loadPollMs: o['load-poll-ms'], nodeJobs: server.jobs, idle: [], load: [] };
try {
  const token = await getToken(c, server.clientId, server.clientSecret);
  const auth = { authorization: `Bearer ${token}` };

  async function job(pollMs) {
    const t0 = performance.now();
    const up = await c.request('POST', '/api/v1/documents/upload?fileName=small.csv&csvRoute=Tabular', {
      headers: { ...auth, 'content-type': 'text/csv' },
      body: csv,
    });
    const tUp = performance.now();
    if (up.status !== 202) throw new Error(`upload: ${up.status} ${up.text}`);
    const id = up.json.documentId;
    let polls = 0;
    for (;;) {
      const s = await c.request('GET', `/api/v1/documents/${id}/status`, { headers: auth });
      polls++;
      if (s.status !== 200) throw new Error(`status: ${s.status} ${s.text}`);
      const j = s.json;
      if (j.statusInt === 8) {
        const t1 = performance.now();
        return {
          clientMs: t1 - t0,
          uploadMs: tUp - t0,
          serverMs: Date.parse(j.completedAt) - Date.parse(j.createdAt),
          queuedMs: j.startedAt ? Date.parse(j.startedAt) - Date.parse(j.createdAt) : NaN,
          polls,
        };
      }
      if (j.statusInt === 9) throw new Error(`job failed: ${JSON.stringify(j.error)}`);
      await sleep(pollMs);
    }
  }

  const summarise = (rs) => {
    const cl = stats(rs.map((r) => r.clientMs));
    const sv = stats(rs.map((r) => r.serverMs));
    const upl = stats(rs.map((r) => r.uploadMs));
    const q = stats(rs.map((r) => r.queuedMs));
    return { n: rs.length, client: cl, server: sv, upload: upl, queued: q, pollsPerJob: rs.reduce((a, r) => a + r.polls, 0) / rs.length };
  };

  for (let i = 0; i < o.warmup; i++) await job(o['poll-ms']);

  for (let run = 1; run <= o.runs; run++) {
    const loadBefore = uptimeLine();
    const rs = [];
    const cpu0 = cpuSeconds(server.pid);
    const t0 = performance.now();
    for (let i = 0; i < o.idle; i++) rs.push(await job(o['poll-ms']));
    const wall = (performance.now() - t0) / 1000;
    const serverCpuMsPerJob = ((cpuSeconds(server.pid) - cpu0) * 1000) / rs.length;
    const s = { run, ...summarise(rs), serverCpuMsPerJob, jobsPerSec: rs.length / wall, loadBefore, loadAfter: uptimeLine() };
    out.idle.push(s);
    console.error(
      `[${o.mode}] idle run ${run}: client p50 ${fmt(s.client.p50)} p99 ${fmt(s.client.p99)} ms; server p50 ${fmt(s.server.p50)} p99 ${fmt(s.server.p99)} ms; upload p50 ${fmt(s.upload.p50)} ms; ${fmt(s.jobsPerSec)} jobs/s; server CPU ${fmt(s.serverCpuMsPerJob)} ms/job; ${fmt(s.pollsPerJob)} polls/job; load ${loadBefore}`,
    );
  }

  for (const C of conc) {
    for (let run = 1; run <= o.runs; run++) {
      const loadBefore = uptimeLine();
      const rs = [];
      let next = 0;
      let errors = 0;
      const cpu0 = cpuSeconds(server.pid);
      const t0 = performance.now();
      await Promise.all(
        Array.from({ length: C }, async () => {
          while (next < o.jobs) {
            next++;
            try {
              rs.push(await job(o['load-poll-ms']));
            } catch (err) {
              errors++;
              if (errors <= 3) console.error(`  error: ${err.message}`);
            }
          }
        }),
      );
      const wall = (performance.now() - t0) / 1000;
      const serverCpuMsPerJob = ((cpuSeconds(server.pid) - cpu0) * 1000) / rs.length;
      const s = {
        concurrency: C,
        run,
        ...summarise(rs),
        errors,
        wallSeconds: wall,
        serverCpuMsPerJob,
        jobsPerSec: rs.length / wall,
        loadBefore,
        loadAfter: uptimeLine(),
      };
      out.load.push(s);
      console.error(
        `[${o.mode}] C=${C} run ${run}: ${fmt(s.jobsPerSec)} jobs/s (${rs.length} in ${fmt(wall, 2)} s, ${errors} errors); client p50 ${fmt(s.client.p50)} p99 ${fmt(s.client.p99)} ms; server p50 ${fmt(s.server.p50)} p99 ${fmt(s.server.p99)} ms; server CPU ${fmt(s.serverCpuMsPerJob)} ms/job; ${fmt(s.pollsPerJob)} polls/job; load ${loadBefore}`,
      );
      await sleep(1000);
    }
  }
} finally {
  c.close();
  await server.stop();
}

const m = (xs, f) => median(xs.map(f));
out.summary = {
  idle: {
    clientP50: m(out.idle, (s) => s.client.p50),
    clientP99: m(out.idle, (s) => s.client.p99),
    serverP50: m(out.idle, (s) => s.server.p50),
    serverP99: m(out.idle, (s) => s.server.p99),
    uploadP50: m(out.idle, (s) => s.upload.p50),
    jobsPerSec: m(out.idle, (s) => s.jobsPerSec),
    serverCpuMsPerJob: m(out.idle, (s) => s.serverCpuMsPerJob),
  },
  load: conc.map((C) => {
    const rs = out.load.filter((s) => s.concurrency === C);
    return {
      concurrency: C,
      jobsPerSec: m(rs, (s) => s.jobsPerSec),
      jobsPerSecRuns: rs.map((s) => +s.jobsPerSec.toFixed(1)),
      clientP50: m(rs, (s) => s.client.p50),
      clientP99: m(rs, (s) => s.client.p99),
      serverP50: m(rs, (s) => s.server.p50),
      serverP99: m(rs, (s) => s.server.p99),
      serverCpuMsPerJob: m(rs, (s) => s.serverCpuMsPerJob),
      pollsPerJob: m(rs, (s) => s.pollsPerJob),
      errors: rs.reduce((a, s) => a + s.errors, 0),
    };
  }),
};
console.log(
  JSON.stringify(
    o.json === 'full'
      ? out
      : {
          mode: out.mode,
          csvBytes: out.csvBytes,
          pollMs: out.pollMs,
          loadPollMs: out.loadPollMs,
          jobs: out.nodeJobs,
          summary: out.summary,
          idleLoads: out.idle.map((s) => s.loadBefore),
          loadLoads: out.load.map((s) => `C=${s.concurrency}: ${s.loadBefore}`),
        },
    null,
    2,
  ),
);
