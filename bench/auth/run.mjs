// Auth bench (issue 3), on the real HttpServer + identity module (see server.mjs):
//   (a) authenticated GET of a trivial protected route, verification cache ON vs OFF
//       (plus the same route without auth as a baseline): requests/s, server CPU µs/request;
//   (b) token issuance, POST /connect/token with client_secret_post (scrypt-hashed secret):
//       tokens/s and server CPU ms/token.
// Server on one core, load generator on the other; PGlite store in a temp dir.
//
//   node bench/auth/run.mjs [--repeats=3] [--seconds=6] [--warm=2] [--connections=50] [--token-connections=8]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { startServer, measure, median, fmt, table, machine, option, distFingerprint, distImport, gitState } from '../lib/harness.mjs';

// Snapshot dist/ before anything loads it (see harness distDir()).
const distBefore = distFingerprint();
const { openControlPlaneStore } = await distImport('tenancy/sql-store.js');
const { hashSecret, generateClientId, generateClientSecret } = await distImport('identity/secrets.js');

const repeats = option('repeats', 3);
const seconds = option('seconds', 6);
const warmSeconds = option('warm', 2);
const connections = option('connections', 50);
const tokenConnections = option('token-connections', 8);
const serverScript = fileURLToPath(new URL('./server.mjs', import.meta.url));

const m = machine();
const git = gitState();
console.error(`# Auth bench — ${m.date}, ${m.nproc} cores, load ${m.load}, ${m.loadgen}, ${m.pinning}`);

// ---- control plane: one active tenant, one plan, one enabled app with a scrypt-hashed secret ----
const dataDir = mkdtempSync(path.join(tmpdir(), 'docparse-bench-auth-'));
process.once('exit', () => rmSync(dataDir, { recursive: true, force: true }));
writeFileSync(path.join(dataDir, 'master.key'), randomBytes(32).toString('base64url') + '\n', { mode: 0o600 });
const clientId = generateClientId();
const clientSecret = generateClientSecret();
{
  const t0 = performance.now();
  const store = await openControlPlaneStore({ dataDir });
  const tenant = await store.createTenant({ name: 'bench tenant', contactEmail: null });
  await store.setTenantState(tenant.id, 'Active');
  const plan = await store.createPlan({
    name: 'bench plan',
    maxDocumentUnitsPerMonth: 1_000_000,
    advancedPdfExtraction: true,
    ocrPdfExtraction: true,
    maxFileSizeBytes: 1 << 30,
    maxConcurrentJobs: 64,
    maxBytesPerSecond: 1 << 30,
  });
  await store.createApp({
    tenantId: tenant.id,
    name: 'bench app',
    licenseRegion: 'bench',
    dbCode: 'bench',
    clientId,
    secretHash: await hashSecret(clientSecret),
    allowedDomains: ['localhost:8080'],
    planId: plan.id,
    enabled: true,
  });
  await store.close();
  console.error(`# control plane seeded in ${dataDir} (${Math.round(performance.now() - t0)} ms)`);
}
const tokenForm = new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret, scope: 'Service.API' }).toString();

async function fetchToken(port) {
  const res = await fetch(`http://127.0.0.1:${port}/connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: tokenForm,
  });
  const body = await res.json();
  if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${JSON.stringify(body)}`);
  return body.access_token;
}

const CASES = [
  { key: 'public', cache: 'on', label: 'GET /bench/public (no auth, baseline)', path: '/bench/public', conns: connections },
  { key: 'cacheOn', cache: 'on', label: 'GET /bench/protected, bearer, cache ON', path: '/bench/protected', conns: connections, bearer: true },
  { key: 'cacheOff', cache: 'off', label: 'GET /bench/protected, bearer, cache OFF', path: '/bench/protected', conns: connections, bearer: true },
  {
    key: 'token',
    cache: 'on',
    label: `POST /connect/token (client_secret_post, scrypt), ${tokenConnections} concurrent`,
    path: '/connect/token',
    conns: tokenConnections,
    post: true,
  },
];

const results = {};
for (let rep = 1; rep <= repeats; rep++) {
  const order = rep % 2 ? ['on', 'off'] : ['off', 'on'];
  for (const cache of order) {
    const server = await startServer(serverScript, [dataDir, cache]);
    try {
      const token = await fetchToken(server.port);
      for (const c of CASES.filter((x) => x.cache === cache)) {
        const opts = { url: `http://127.0.0.1:${server.port}${c.path}`, connections: c.conns };
        if (c.bearer) opts.headers = { Authorization: `Bearer ${token}` };
        if (c.post) Object.assign(opts, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: tokenForm });
        const res = await measure(server.pid, opts, { warmSeconds, seconds });
        if (res.non2xx || res.errors) console.error(`  ! ${c.key}: ${res.non2xx} non-2xx, ${res.errors} socket errors`);
        (results[c.key] ??= []).push(res);
        console.error(
          `  run ${rep} ${c.key.padEnd(8)} ${fmt(res.rps).padStart(7)} req/s  ${fmt(res.cpuUsPerReq, 1).padStart(8)} µs/req  server CPU ${fmt(res.cpuPercent)}%  p50 ${fmt(res.p50ms, 2)} ms  p99 ${fmt(res.p99ms, 2)} ms`,
        );
      }
    } finally {
      await server.stop();
    }
  }
}

const med = {};
for (const c of CASES) {
  const runs = results[c.key];
  med[c.key] = {
    rps: median(runs.map((x) => x.rps)),
    us: median(runs.map((x) => x.cpuUsPerReq)),
    cpu: median(runs.map((x) => x.cpuPercent)),
    p50: median(runs.map((x) => x.p50ms)),
    p99: median(runs.map((x) => x.p99ms)),
    spread: runs.map((x) => fmt(x.cpuUsPerReq, c.key === 'token' ? 0 : 1)).join(' / '),
    bad: runs.reduce((a, x) => a + x.non2xx + x.errors, 0),
  };
}
const rowOf = (c) => [
  c.label,
  fmt(med[c.key].rps),
  fmt(med[c.key].us, c.key === 'token' ? 0 : 1),
  med[c.key].spread,
  fmt(med[c.key].cpu),
  fmt(med[c.key].p50, 2),
  fmt(med[c.key].p99, 2),
  String(med[c.key].bad),
];

console.log(`Auth bench — ${m.date}`);
console.log(
  `Machine: ${m.nproc} cores (${m.cpuModel}), Node ${m.node}, load average at start ${m.load}; ${m.pinning}; load generator ${m.loadgen} (1 thread); ${repeats} repeats, ${warmSeconds} s warm-up + ${seconds} s measured per run; real HttpServer (uWS) + createIdentity over PGlite; logger: pino level 'silent'.`,
);
console.log(`Code: git ${git}; a snapshot of dist/ taken at the start (fingerprint ${distBefore}) served every run.`);
console.log('');
console.log('(a) Authenticated GET, ' + connections + ' keep-alive connections, one token reused');
console.log('');
console.log(
  table(
    ['Case', 'req/s (median)', 'server CPU µs/req (median)', 'CPU µs/req per run', 'server CPU % of core', 'p50 ms', 'p99 ms', 'non-2xx/errors'],
    CASES.filter((c) => c.key !== 'token').map(rowOf),
  ),
);
console.log('');
const offOn = med.cacheOff.us / med.cacheOn.us;
console.log(`- cache OFF / cache ON: ${fmt(offOn, 2)}× the CPU per request, ${fmt(med.cacheOff.rps / med.cacheOn.rps, 2)}× the requests/s.`);
console.log(
  `- auth overhead over the unauthenticated route: cache ON +${fmt(med.cacheOn.us - med.public.us, 1)} µs/req, cache OFF +${fmt(med.cacheOff.us - med.public.us, 1)} µs/req (≈ one ES256 verification + claims mapping).`,
);
console.log('');
console.log(
  `(b) Token issuance, ${tokenConnections} concurrent clients (libuv threadpool: ${process.env.UV_THREADPOOL_SIZE ?? 4} threads, pinned with the server to one core)`,
);
console.log('');
console.log(
  table(
    ['Case', 'tokens/s (median)', 'server CPU µs/token (median)', 'CPU µs/token per run', 'server CPU % of core', 'p50 ms', 'p99 ms', 'non-2xx/errors'],
    [rowOf(CASES.find((c) => c.key === 'token'))],
  ),
);
