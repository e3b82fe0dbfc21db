// HTTP front bench (issue 2): the real uWS HttpServer vs a node:http server doing the same
// per-request work (see server.mjs). Server on one core, load generator on the other.
//
//   setsid node bench/http/run.mjs [--repeats=3] [--seconds=6] [--warm=2] [--connections=50] [--rate=N]
//
// setsid (as root) lets the bench raise its own scheduling priority on a shared machine (see
// raisePriority in ../lib/harness.mjs). Server CPU is read from /proc and split into user and
// kernel time: the kernel's loopback TCP work per request is the same for any server and sets a
// floor under both.
//
// Prints a markdown table: medians over the repeats of requests/s and server CPU µs per
// request, and the uWS / node:http ratios. Needs `npm run build` (imports ../../dist).
import { fileURLToPath } from 'node:url';
import { startServer, measure, median, fmt, table, machine, option, distFingerprint, gitState, raisePriority } from '../lib/harness.mjs';

const repeats = option('repeats', 3);
const seconds = option('seconds', 6);
const warmSeconds = option('warm', 2);
const connections = option('connections', 50);
// --rate=N: open-loop at N requests/s (autocannon -R) instead of closed-loop at full speed,
// so both servers do the same work per second and contention matters less.
const rate = option('rate', 0) || undefined;
const serverScript = fileURLToPath(new URL('./server.mjs', import.meta.url));

// Each case: the same route on a uWS server (a) and a node:http server (b).
const CASES = [
  { name: 'JSON route `/bench/json?name=alice&count=10`', path: '/bench/json?name=alice&count=10', a: 'uws', b: 'node' },
  { name: 'healthRoutes `/health/node-state`', path: '/health/node-state', a: 'uws', b: 'node' },
  { name: 'reference: transport only, `{hello, requestId}`', path: '/raw', a: 'uws-raw', b: 'node-raw' },
];
const LABEL = { uws: 'uWS (HttpServer)', node: 'node:http (same app layer)', 'uws-raw': 'uWS.App, bare handler', 'node-raw': 'node:http, bare handler' };
const FLAVOURS = ['uws', 'node', 'uws-raw', 'node-raw'];
const pathsOf = (f) => CASES.filter((c) => c.a === f || c.b === f).map((c) => c.path);

const priority = raisePriority();
const m = machine();
const distBefore = distFingerprint();
const git = gitState();
console.error(`# HTTP bench — ${m.date}, ${m.nproc} cores, load ${m.load}, ${rate ? `autocannon -R ${rate}` : m.loadgen}, ${m.pinning}`);
console.error(`# ${repeats} repeats × ${CASES.length * 2} configurations, ${warmSeconds}s warm-up + ${seconds}s measured each, ${connections} connections`);

const results = {}; // `${flavour}|${route}` → runs[]
for (let rep = 1; rep <= repeats; rep++) {
  // Alternate which server goes first, to spread drifting background load over both.
  const order = rep % 2 ? FLAVOURS : [...FLAVOURS].reverse();
  for (const f of order) {
    const server = await startServer(serverScript, [f]);
    try {
      for (const p of pathsOf(f)) {
        const res = await measure(server.pid, { url: `http://127.0.0.1:${server.port}${p}`, connections, rate }, { warmSeconds, seconds });
        if (res.non2xx || res.errors) console.error(`  ! ${f} ${p}: ${res.non2xx} non-2xx, ${res.errors} socket errors`);
        (results[`${f}|${p}`] ??= []).push(res);
        console.error(
          `  run ${rep} ${f.padEnd(8)} ${p.padEnd(34)} ${fmt(res.rps).padStart(7)} req/s  ${fmt(res.cpuUsPerReq, 1).padStart(6)} µs/req (user ${fmt(res.userUsPerReq, 1)})  server CPU ${fmt(res.cpuPercent)}%  mean ${fmt(res.meanMs, 2)} ms`,
        );
      }
    } finally {
      await server.stop();
    }
  }
}

const rows = [];
const summary = [];
for (const r of CASES) {
  const med = {};
  for (const [side, f] of [
    ['a', r.a],
    ['b', r.b],
  ]) {
    const runs = results[`${f}|${r.path}`];
    med[side] = {
      rps: median(runs.map((x) => x.rps)),
      us: median(runs.map((x) => x.cpuUsPerReq)),
      user: median(runs.map((x) => x.userUsPerReq)),
      cpu: median(runs.map((x) => x.cpuPercent)),
      mean: median(runs.map((x) => x.meanMs)),
      spread: runs.map((x) => fmt(x.cpuUsPerReq, 1)).join(' / '),
    };
    rows.push([
      r.name,
      LABEL[f],
      fmt(med[side].rps),
      fmt(med[side].us, 1),
      med[side].spread,
      fmt(med[side].user, 1),
      fmt(med[side].us - med[side].user, 1),
      fmt(med[side].cpu),
      fmt(med[side].mean, 2),
    ]);
  }
  const cpuRatio = med.a.us / med.b.us;
  const userRatio = med.a.user / med.b.user;
  const rpsRatio = med.a.rps / med.b.rps;
  rows.push([r.name, '**uWS / node:http**', `**${fmt(rpsRatio, 2)}×**`, `**${fmt(cpuRatio, 2)}×**`, '', `**${fmt(userRatio, 2)}×**`, '', '', '']);
  summary.push({
    route: r.path,
    cpuRatio,
    userRatio,
    rpsRatio,
    target: cpuRatio <= 0.5,
    reference: r.a !== 'uws',
    kernel: med.a.us - med.a.user,
    nodeTotal: med.b.us,
  });
}

console.log(`HTTP front bench — ${m.date}${rate ? ` — fixed rate ${rate} req/s` : ' — closed loop, full speed'}`);
console.log(
  `Machine: ${m.nproc} cores (${m.cpuModel}), Node ${m.node}, load average at start ${m.load}; ${m.pinning}; ${priority}; load generator ${rate ? `autocannon at a fixed ${rate} req/s` : `${m.loadgen}, closed loop`} (1 process, ${connections} keep-alive connections); ${repeats} repeats, ${warmSeconds} s warm-up + ${seconds} s measured per run; logger: pino level 'silent' for both.`,
);
console.log(`Code: git ${git}; a snapshot of dist/ taken at the start (fingerprint ${distBefore}) served every run.`);
console.log('');
console.log(
  table(
    [
      'Route',
      'Server',
      'req/s (median)',
      'server CPU µs/req (median)',
      'CPU µs/req per run',
      'of which user µs',
      'of which kernel µs',
      'server CPU % of core',
      'mean latency ms',
    ],
    rows,
  ),
);
console.log('');
for (const s of summary) {
  console.log(
    `- ${s.route}: uWS uses ${fmt(s.cpuRatio, 2)}× the CPU per request of node:http (${s.reference ? 'reference, not the target' : 'target ≤ 0.50×'}: ${s.target ? 'MET' : 'NOT MET'}), ${fmt(s.userRatio, 2)}× its user-space CPU; ${fmt(s.rpsRatio, 2)}× the requests/s. Kernel time alone on the uWS side: ${fmt(s.kernel, 1)} µs/req = ${fmt(s.kernel / s.nodeTotal, 2)}× node:http's total.`,
  );
}
