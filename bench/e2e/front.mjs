// HTTP front under autocannon (issue 28, item 4): the real node (`startNode` from dist, embedded
// and Redis + PostgreSQL modes) against a node:http baseline doing the comparable minimum
// (front-baseline.mjs), in the same run, on three workloads:
//
//   status  GET /api/v1/documents/{id}/status of a completed job, one Bearer token (C connections)
//   token   POST /connect/token, client_credentials with client_secret_post (T connections)
//   upload  POST /api/v1/documents/upload of a 2 KB CSV, 202 Accepted (C connections)
//
//   node bench/e2e/front.mjs [--mode both|embedded|redis] [--runs 3] [--duration 8] [--warmup 2]
//                            [--connections 32] [--token-connections 8] [--rows 50]
//
// Every server is pinned to one core and autocannon (its CLI, one process) to the other, as in
// bench/http (BENCH_SERVER_CPU / BENCH_LOADGEN_CPU). Server CPU per request: utime + stime of the
// server process (all its threads) from /proc, around the measured run; a warm-up run comes first.
// In each run the servers take turns in a rotating order, and a ratio service / baseline is taken
// per run and its median reported.
//
// Token issuance is bounded by design: the secret is a scrypt hash (~30 ms of CPU per check), and
// the attempt limiter (src/identity/attempt-limiter.ts) holds a slot per attempt in flight — at
// most 10 per client id and address, 30 per address, 100 per client id — which a right secret
// gives back. So it bounds concurrent attempts, not the rate of good ones: T = 8 connections from
// one address stay under every bound and keep the server's 4 libuv threads (where scrypt runs)
// busy. More would only queue and, past 10, be refused with 429.
//
// Uploads go to a node without the worker role (`--role api --role auth`), fresh for every run:
// with workers, the backlog of parsing that uploads at full speed leave behind would run during
// the next measurements, and an empty queue at the start of each run keeps the runs alike. The
// plan (bench/e2e/server.mjs) allows 100,000 unfinished jobs and 64 GiB/s, so neither its
// concurrency nor its byte rate is what bounds a run.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { args, client, cpuSeconds, getToken, HERE, sleep, smallCsv, startBenchServer, uptimeLine } from './lib.mjs';

// Issue 28 asks for autocannon; the harness reads its load generator when it loads.
process.env.BENCH_LOADGEN = 'autocannon';
const { startServer, load, measure, median, fmt, table, machine, gitState, SERVER_CPU, HAS_TASKSET } = await import('../lib/harness.mjs');

const o = args({ mode: 'both', runs: 3, duration: 8, warmup: 2, connections: 32, 'token-connections': 8, rows: 50 });
const modes = o.mode === 'both' ? ['embedded', 'redis'] : [o.mode];
const csv = smallCsv(o.rows);
const serverCpu = HAS_TASKSET ? SERVER_CPU : undefined;

const WORKLOADS = {
  status: {
    label: 'GET status (completed job, Bearer)',
    request: (t) => ({
      url: `${t.url}/api/v1/documents/${encodeURIComponent(t.documentId)}/status`,
      headers: { authorization: `Bearer ${t.token}` },
      connections: o.connections,
    }),
  },
  token: {
    label: 'POST /connect/token (scrypt secret)',
    request: (t) => ({
      url: `${t.url}/connect/token`,
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'Service.API', client_id: t.clientId, client_secret: t.clientSecret }).toString(),
      connections: o['token-connections'],
    }),
  },
  upload: {
    label: `POST upload (${csv.length} B CSV, 202)`,
    request: (t) => ({
      url: `${t.url}/api/v1/documents/upload?fileName=small.csv&csvRoute=Tabular`,
      method: 'POST',
      headers: { authorization: `Bearer ${t.token}`, 'content-type': 'text/csv' },
      body: csv,
      connections: o.connections,
    }),
  },
};

const live = new Set(); // servers to stop, whatever happens
const stopAll = () => Promise.allSettled([...live].map((s) => s.stop()));
for (const sig of ['SIGINT', 'SIGTERM']) process.once(sig, () => stopAll().finally(() => process.exit(130)));

async function startNode(mode, extraEnv = {}) {
  const t0 = performance.now();
  const s = await startBenchServer(mode, extraEnv, { cpu: serverCpu });
  console.error(`# ${mode} node${extraEnv.BENCH_ROLES ? ` (roles ${extraEnv.BENCH_ROLES})` : ''} started in ${fmt((performance.now() - t0) / 1000, 1)} s`);
  live.add(s);
  const c = client(s.url);
  try {
    return {
      name: mode,
      pid: s.pid,
      url: s.url,
      clientId: s.clientId,
      clientSecret: s.clientSecret,
      token: await getToken(c, s.clientId, s.clientSecret),
      server: s,
    };
  } finally {
    c.close();
  }
}

async function stopTarget(t) {
  await settle(t.pid); // the requests autocannon left in flight finish before the node stops
  const t0 = performance.now();
  try {
    await t.server.stop();
    console.error(`# ${t.name} node stopped and cleaned up in ${fmt((performance.now() - t0) / 1000, 1)} s`);
  } catch (err) {
    // The figures so far still count; say what may be left behind.
    console.error(`# ! ${t.name} node: clean-up failed (${err.message}); database ${t.server.db ?? '-'}, Redis prefix ${t.server.redisPrefix || '-'}`);
  }
  live.delete(t.server);
}

/** Uploads one CSV and waits for its job to complete: the document the status workload polls. */
async function completedJob(t) {
  const c = client(t.url);
  try {
    const auth = { authorization: `Bearer ${t.token}` };
    const up = await c.request('POST', '/api/v1/documents/upload?fileName=small.csv&csvRoute=Tabular', {
      headers: { ...auth, 'content-type': 'text/csv' },
      body: csv,
    });
    if (up.status !== 202) throw new Error(`${t.name} upload: ${up.status} ${up.text}`);
    for (;;) {
      const s = await c.request('GET', `/api/v1/documents/${up.json.documentId}/status`, { headers: auth });
      if (s.json?.statusInt === 8) return s.json;
      if (s.status !== 200 || s.json?.statusInt === 9) throw new Error(`${t.name} status: ${s.status} ${s.text}`);
      await sleep(20);
    }
  } finally {
    c.close();
  }
}

/** Waits (≤ 15 s) until a server is quiet: under 20 ms of CPU in 250 ms. */
async function settle(pid) {
  const until = Date.now() + 15_000;
  for (let before = cpuSeconds(pid); Date.now() < until;) {
    await sleep(250);
    const now = cpuSeconds(pid);
    if (now - before < 0.02) return;
    before = now;
  }
}

const results = {}; // `${workload}|${target}` → runs[]
const loads = [];

/** One warm-up + measured autocannon run of `workload` against each target, in `order`. */
async function measureRound(workload, run, targets) {
  // Rotate the order each run so drifting background load falls on every server in turn.
  const order = targets.map((_, i) => targets[(i + run - 1) % targets.length]);
  for (const t of order) {
    const loadavg = uptimeLine();
    loads.push(Number(loadavg.split(' ')[0]));
    const opts = WORKLOADS[workload].request(t);
    await settle(t.pid);
    await load({ ...opts, seconds: o.warmup });
    // autocannon leaves requests in flight when it stops; they finish first, so a token run
    // starts with the attempt limiter's slots free and no run pays for the one before.
    await settle(t.pid);
    const r = await measure(t.pid, opts, { warmSeconds: 0, seconds: o.duration });
    (results[`${workload}|${t.name}`] ??= []).push({ ...r, run, load: loadavg });
    const bad = r.non2xx || r.errors ? `  ! ${r.non2xx} non-2xx, ${r.errors} errors` : '';
    console.error(
      `  run ${run} ${workload.padEnd(6)} ${t.name.padEnd(8)} ${fmt(r.rps).padStart(7)} req/s  p50 ${fmt(r.p50ms)} ms  p99 ${fmt(r.p99ms)} ms  ${fmt(r.cpuUsPerReq, 1).padStart(8)} µs CPU/req (${fmt(r.cpuPercent)}% of a core)  load ${loadavg}${bad}`,
    );
  }
}

const m = machine();
const git = gitState();
console.error(
  `# HTTP front under autocannon — ${m.date}, ${m.nproc} cores, load ${m.load}, ${m.pinning}; ${o.runs} runs, ${o.warmup} s warm-up + ${o.duration} s measured, ${o.connections} connections (token ${o['token-connections']})`,
);

let baselinePid = 0;
const recordFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'dp-bench-front-')), 'status.json');
try {
  // Status and token: one node per mode (all roles), the baseline serving the same status record.
  const nodes = await Promise.all(
    modes.map(async (mode) => {
      const t = await startNode(mode);
      t.status = await completedJob(t);
      t.documentId = t.status.documentId;
      return t;
    }),
  );
  fs.writeFileSync(recordFile, JSON.stringify(nodes[0].status));
  const b = await startServer(path.join(HERE, 'front-baseline.mjs'), [recordFile]);
  const baseline = {
    name: 'baseline',
    pid: b.pid,
    url: `http://127.0.0.1:${b.port}`,
    clientId: b.clientId,
    clientSecret: b.clientSecret,
    documentId: b.documentId,
    server: b,
  };
  live.add(b);
  baselinePid = b.pid;
  const bc = client(baseline.url);
  baseline.token = await getToken(bc, baseline.clientId, baseline.clientSecret);
  bc.close();

  for (let run = 1; run <= o.runs; run++) {
    await measureRound('status', run, [baseline, ...nodes]);
    await measureRound('token', run, [baseline, ...nodes]);
  }
  await Promise.all(nodes.map(stopTarget));

  // Uploads: a fresh node without the worker role per mode and run (see the top of the file).
  for (let run = 1; run <= o.runs; run++) {
    const apiNodes = await Promise.all(modes.map((mode) => startNode(mode, { BENCH_ROLES: 'api,auth' })));
    await measureRound('upload', run, [baseline, ...apiNodes]);
    await Promise.all(apiNodes.map(stopTarget));
  }
} finally {
  await stopAll();
  fs.rmSync(path.dirname(recordFile), { recursive: true, force: true });
  // The baseline's uploads: too many for it to remove within the 5 s its stop allows.
  for (const d of fs.readdirSync(os.tmpdir()))
    if (d.startsWith(`dp-bench-front-baseline-${baselinePid}-`)) fs.rmSync(path.join(os.tmpdir(), d), { recursive: true, force: true });
}

// ---- report: medians over the runs; ratios paired within each run, then their median ----
const rows = [];
const summary = {};
for (const [workload, w] of Object.entries(WORKLOADS)) {
  const base = results[`${workload}|baseline`];
  for (const name of ['baseline', ...modes]) {
    const runs = results[`${workload}|${name}`];
    const paired = (f) => median(runs.map((r) => f(r) / f(base.find((x) => x.run === r.run))));
    const med = {
      rps: median(runs.map((r) => r.rps)),
      p50: median(runs.map((r) => r.p50ms)),
      p99: median(runs.map((r) => r.p99ms)),
      us: median(runs.map((r) => r.cpuUsPerReq)),
      rpsRatio: name === 'baseline' ? NaN : paired((r) => r.rps),
      cpuRatio: name === 'baseline' ? NaN : paired((r) => r.cpuUsPerReq),
      bad: runs.reduce((a, r) => a + r.non2xx + r.errors, 0),
    };
    (summary[workload] ??= {})[name] = med;
    rows.push([
      w.label,
      name === 'baseline' ? 'node:http baseline' : `docparse, ${name === 'redis' ? 'Redis + PostgreSQL' : 'embedded'}`,
      fmt(med.rps),
      runs.map((r) => fmt(r.rps)).join(' / '),
      fmt(med.p50),
      fmt(med.p99),
      fmt(med.us, workload === 'token' ? 0 : 1),
      runs.map((r) => fmt(r.cpuUsPerReq, workload === 'token' ? 0 : 1)).join(' / '),
      name === 'baseline' ? '' : `${fmt(med.rpsRatio, 2)}×`,
      name === 'baseline' ? '' : `${fmt(med.cpuRatio, 2)}×`,
      String(med.bad),
    ]);
  }
}

const end = machine();
console.log(`HTTP front under autocannon — ${m.date}`);
console.log(
  `Machine: ${m.nproc} cores (${m.cpuModel}), Node ${m.node}; load average at start ${m.load}, at end ${end.load}, 1-min load before the measured runs ${fmt(Math.min(...loads), 2)}–${fmt(Math.max(...loads), 2)}; ${m.pinning}; autocannon CLI (one process), ${o.connections} keep-alive connections (token: ${o['token-connections']}); ${o.runs} runs, ${o.warmup} s warm-up + ${o.duration} s measured per server and workload; servers in rotating order within a run.`,
);
console.log(`Code: git ${git}.`);
console.log('');
console.log(
  table(
    [
      'Workload',
      'Server',
      'req/s (median)',
      'req/s per run',
      'p50 ms',
      'p99 ms',
      'server CPU µs/req (median)',
      'CPU µs/req per run',
      'req/s vs baseline',
      'CPU/req vs baseline',
      'non-2xx/errors',
    ],
    rows,
  ),
);
console.log('');
console.log(
  'p50/p99: medians over the runs of autocannon’s percentiles (1 ms resolution). Server CPU: the server process with all its threads (the node’s libuv pool, where scrypt and file I/O run, included); a full node’s parsing process, idle here, and Redis and PostgreSQL are not counted. Ratios: service / baseline within each run, median over the runs.',
);
console.error(JSON.stringify({ date: m.date, load: { start: m.load, end: end.load }, summary }));
