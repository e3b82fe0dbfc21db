// Status polling requests/s with the token cache: autocannon (and wrk when installed, as a
// cross-check) against GET /api/v1/documents/{id}/status with one Bearer token, on a completed
// job. The token is verified once and then served from the node's cache, so this measures the
// HTTP front + cached auth + one job-store read + JSON. GET /health/live (no auth, no store) is
// measured the same way as a baseline for the bare HTTP front.
//
//   node bench/e2e/polling.mjs --mode embedded|redis [--runs 3] [--duration 10] [--connections 32] [--wrk 1]
import { spawnSync } from 'node:child_process';
import autocannon from 'autocannon';
import { args, startBenchServer, client, getToken, smallCsv, median, fmt, sleep, uptimeLine, cpuSeconds } from './lib.mjs';

const o = args({ mode: 'embedded', runs: 3, duration: 10, connections: 32, wrk: 1, baseline: 1 });
const hasWrk = o.wrk && spawnSync('sh', ['-c', 'command -v wrk']).status === 0;

const server = await startBenchServer(o.mode);
const c = client(server.url);
const out = { mode: o.mode, connections: o.connections, duration: o.duration, autocannon: [], wrk: [], baseline: [] };
try {
  const token = await getToken(c, server.clientId, server.clientSecret);
  const auth = { authorization: `Bearer ${token}` };
  const up = await c.request('POST', '/api/v1/documents/upload?fileName=small.csv&csvRoute=Tabular', {
    headers: { ...auth, 'content-type': 'text/csv' },
    body: smallCsv(),
  });
  if (up.status !== 202) throw new Error(`upload: ${up.status} ${up.text}`);
  const id = up.json.documentId;
  for (;;) {
    const s = await c.request('GET', `/api/v1/documents/${id}/status`, { headers: auth });
    if (s.json?.statusInt === 8) break;
    if (s.json?.statusInt === 9 || s.status !== 200) throw new Error(`status: ${s.status} ${s.text}`);
    await sleep(10);
  }
  const url = `${server.url}/api/v1/documents/${id}/status`;

  const cannon = async (target, headers) => {
    const loadBefore = uptimeLine();
    const cpu0 = cpuSeconds(server.pid);
    const r = await autocannon({ url: target, connections: o.connections, duration: o.duration, headers });
    const cpu = cpuSeconds(server.pid) - cpu0;
    if (r.non2xx || r.errors) throw new Error(`autocannon: ${r.non2xx} non-2xx, ${r.errors} errors`);
    const rps = r.requests.total / r.duration;
    return {
      rps,
      avgRps: r.requests.average,
      p50: r.latency.p50,
      p99: r.latency.p99,
      total: r.requests.total,
      serverCpuUsPerReq: (cpu * 1e6) / r.requests.total,
      serverCores: cpu / r.duration,
      loadBefore,
    };
  };

  for (let run = 1; run <= o.runs; run++) {
    const s = await cannon(url, auth);
    out.autocannon.push(s);
    console.error(
      `[${o.mode}] autocannon status run ${run}: ${fmt(s.rps, 0)} req/s, p50 ${s.p50} ms, p99 ${s.p99} ms, server ${fmt(s.serverCpuUsPerReq, 0)} µs CPU/req (${fmt(s.serverCores, 2)} cores); load ${s.loadBefore}`,
    );
    if (hasWrk) {
      const loadBefore = uptimeLine();
      const cpu0 = cpuSeconds(server.pid);
      const w = spawnSync('wrk', ['-t1', `-c${o.connections}`, `-d${o.duration}s`, '--latency', '-H', `Authorization: Bearer ${token}`, url], {
        encoding: 'utf8',
      });
      const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(w.stdout)?.[1]);
      const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(w.stdout)?.[1] ?? 0);
      const p99 = /99%\s+([\d.]+\w+)/.exec(w.stdout)?.[1];
      const p50 = /50%\s+([\d.]+\w+)/.exec(w.stdout)?.[1];
      const serverCores = (cpuSeconds(server.pid) - cpu0) / o.duration;
      out.wrk.push({ rps, p50, p99, non2xx, serverCores, loadBefore });
      console.error(
        `[${o.mode}] wrk status run ${run}: ${fmt(rps, 0)} req/s, p50 ${p50}, p99 ${p99}, non-2xx ${non2xx}, server ${fmt(serverCores, 2)} cores; load ${loadBefore}`,
      );
    }
    if (o.baseline) {
      const b = await cannon(`${server.url}/health/live`, {});
      out.baseline.push(b);
      console.error(`[${o.mode}] autocannon /health/live run ${run}: ${fmt(b.rps, 0)} req/s, p50 ${b.p50} ms, p99 ${b.p99} ms; load ${b.loadBefore}`);
    }
  }
} finally {
  c.close();
  await server.stop();
}
out.summary = {
  autocannonRps: median(out.autocannon.map((s) => s.rps)),
  autocannonRuns: out.autocannon.map((s) => Math.round(s.rps)),
  autocannonP50: median(out.autocannon.map((s) => s.p50)),
  autocannonP99: median(out.autocannon.map((s) => s.p99)),
  serverCpuUsPerReq: median(out.autocannon.map((s) => s.serverCpuUsPerReq)),
  wrkRps: out.wrk.length ? median(out.wrk.map((s) => s.rps)) : null,
  wrkRuns: out.wrk.map((s) => Math.round(s.rps)),
  wrkP50: out.wrk.map((s) => s.p50),
  wrkP99: out.wrk.map((s) => s.p99),
  wrkNon2xx: out.wrk.reduce((a, s) => a + s.non2xx, 0),
  autocannonServerCores: median(out.autocannon.map((s) => s.serverCores)),
  healthLiveRps: out.baseline.length ? median(out.baseline.map((s) => s.rps)) : null,
  loads: out.autocannon.map((s) => s.loadBefore),
};
console.log(JSON.stringify({ mode: out.mode, connections: out.connections, duration: out.duration, summary: out.summary }, null, 2));
