// What the region check costs a request (issue 29): the same bearer route on the HttpServer of
// a dist/ from before regions (BENCH_BEFORE_DIST, e.g. main's), of this dist/ without a region
// table (DOCPARSE_REGION_URLS unset: the check is one comparison) and of this dist/ with a
// table and a token of this node's region (the check in full, a cached Map lookup). Server on
// one core, load generator on the other; server CPU µs per request from /proc.
//
//   setsid node bench/http/region-check.mjs [--repeats=3] [--seconds=5] [--warm=1] [--connections=50]
//   BENCH_BEFORE_DIST=/path/to/other/dist …   (default: only this dist's two configurations)
import { fileURLToPath } from 'node:url';
import { distDir, fmt, machine, measure, median, option, raisePriority, startServer, table } from '../lib/harness.mjs';

const repeats = option('repeats', 3);
const seconds = option('seconds', 5);
const warmSeconds = option('warm', 1);
const connections = option('connections', 50);
const script = fileURLToPath(new URL('./region-server.mjs', import.meta.url));
const CONFIGS = [
  ...(process.env.BENCH_BEFORE_DIST ? [{ name: 'before regions (BENCH_BEFORE_DIST)', dist: process.env.BENCH_BEFORE_DIST, mode: 'none' }] : []),
  { name: 'DOCPARSE_REGION_URLS unset', dist: distDir(), mode: 'none' },
  { name: 'DOCPARSE_REGION_URLS set, local token', dist: distDir(), mode: 'local' },
];

const priority = raisePriority();
const m = machine();
console.error(
  `# region check bench — ${m.date}, ${m.nproc} cores, load ${m.load}; ${repeats} × ${CONFIGS.length} configurations, ${warmSeconds}s + ${seconds}s`,
);
const runs = new Map(CONFIGS.map((c) => [c.name, []]));
for (let rep = 1; rep <= repeats; rep++) {
  const order = rep % 2 ? CONFIGS : [...CONFIGS].reverse();
  for (const c of order) {
    const server = await startServer(script, [c.mode], { BENCH_DIST: c.dist });
    try {
      const url = `http://127.0.0.1:${server.port}/api/v1/documents/doc-1/status`;
      const r = await measure(server.pid, { url, connections, headers: { authorization: 'Bearer x' } }, { warmSeconds, seconds });
      if (r.non2xx || r.errors) console.error(`  ! ${c.name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
      runs.get(c.name).push(r);
      console.error(
        `  run ${rep} ${c.name.padEnd(40)} ${fmt(r.rps).padStart(7)} req/s  ${fmt(r.cpuUsPerReq, 1).padStart(6)} µs/req (user ${fmt(r.userUsPerReq, 1)})`,
      );
    } finally {
      await server.stop();
    }
  }
}
console.log(
  `Region check bench — ${m.date}; ${m.nproc} cores (${m.cpuModel}), Node ${m.node}, load ${m.load}; ${m.pinning}; ${priority}; ${m.loadgen}, ${connections} connections`,
);
console.log(
  table(
    ['Configuration', 'req/s (median)', 'server CPU µs/req (median)', 'runs (µs/req)', 'user µs/req (median)'],
    CONFIGS.map((c) => {
      const rs = runs.get(c.name);
      return [
        c.name,
        fmt(median(rs.map((r) => r.rps))),
        fmt(median(rs.map((r) => r.cpuUsPerReq)), 1),
        rs.map((r) => fmt(r.cpuUsPerReq, 1)).join(' / '),
        fmt(median(rs.map((r) => r.userUsPerReq)), 1),
      ];
    }),
  ),
);
