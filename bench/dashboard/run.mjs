// Dashboard page bench (issue 20: each page < 100 ms server time on the embedded default).
// Starts `node dist/bin.js serve` with the embedded default (PGlite, embedded job store) in a
// temp data dir, gives it some data through the management API (a tenant with three apps on a
// plan, members, a storage-less setup, parsed CSV documents for the usage chart and the
// statement, audit entries), signs in to the dashboard with an operator key, then requests
// every page `--requests` times after `--warm` unmeasured requests. Reports per page the
// median and p90 of the server's own time (the access log's `ms`, matched by request id) and
// of the round trip seen by this client on loopback.
//
//   npm run build && node bench/dashboard/run.mjs [--requests=40] [--warm=5] [--documents=12]
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, machine, option, table, fmt } from '../lib/harness.mjs';

const requests = option('requests', 40);
const warm = option('warm', 5);
const documents = option('documents', 12);
const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = path.join(root, 'dist/bin.js');

const m = machine();
console.error(`# Dashboard page bench — ${m.date}, ${m.nproc} cores, load ${m.load}`);

const freePort = () =>
  new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

const dataDir = mkdtempSync(path.join(tmpdir(), 'docparse-bench-dashboard-'));
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const env = {
  ...process.env,
  PORT: String(port),
  HOST: '127.0.0.1',
  DOCPARSE_DATA_DIR: dataDir,
  LOG_LEVEL: 'info',
  DOCPARSE_WORKER_THREADS: '1',
  DOCPARSE_BASE_URL: base,
};
const node = spawn(process.execPath, [bin, 'serve'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
/** Server time (ms) per request id, from the access log. */
const serverMs = new Map();
let buffered = '';
node.stdout.on('data', (chunk) => {
  buffered += chunk;
  let nl;
  while ((nl = buffered.indexOf('\n')) >= 0) {
    const line = buffered.slice(0, nl);
    buffered = buffered.slice(nl + 1);
    if (!line.includes('"msg":"request"')) continue;
    try {
      const entry = JSON.parse(line);
      if (entry.requestId?.startsWith('bench-')) serverMs.set(entry.requestId, entry.ms);
    } catch {}
  }
});
const stop = () => {
  node.kill('SIGTERM');
  rmSync(dataDir, { recursive: true, force: true });
};
process.once('exit', stop);

async function until(what, fn, ms = 90_000) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn().catch(() => null);
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
await until('the node to be ready', async () => (await fetch(`${base}/health/ready`)).ok);

// ---- data, through the management API with an operator key ----
const keyOut = execFileSync(process.execPath, [bin, 'admin', 'keys', 'create-operator', '--name', 'bench', '--json'], { env, encoding: 'utf8' });
const operatorKey = JSON.parse(keyOut).key;
async function manage(method, p, body) {
  const res = await fetch(`${base}/manage/v1${p}`, {
    method,
    headers: { authorization: `Bearer ${operatorKey}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${await res.text()}`);
  return res.json();
}
const tenant = await manage('POST', '/tenants', { name: 'Bench Corp' });
await manage('POST', `/tenants/${tenant.id}/activate`);
const plan = await manage('POST', '/plans', { name: 'Bench plan', maxDocumentUnitsPerMonth: 1_000_000 });
const { items: regions } = await manage('GET', '/regions');
const apps = [];
for (let i = 0; i < 3; i++) {
  const made = await manage('POST', `/tenants/${tenant.id}/apps`, {
    name: `App ${i + 1}`,
    licenseRegion: regions[0],
    dbCode: 'db1',
    planId: plan.id,
    allowedDomains: [`app${i}.example.com`],
  });
  apps.push(made);
}
for (let i = 0; i < 5; i++) await manage('POST', `/tenants/${tenant.id}/invitations`, { email: `person${i}@example.com`, role: i === 0 ? 'owner' : 'member' });
for (const app of apps) {
  const tokenRes = await fetch(`${base}/connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'Service.API', client_id: app.clientId, client_secret: app.clientSecret }),
  });
  app.token = (await tokenRes.json()).access_token;
}
const ids = [];
for (let i = 0; i < documents; i++) {
  const app = apps[i % apps.length];
  const res = await fetch(`${base}/api/v1/documents/upload?fileName=rows-${i}.csv&csvRoute=Tabular`, {
    method: 'POST',
    headers: { authorization: `Bearer ${app.token}` },
    body: `id,name\n${i},row ${i}\n`,
  });
  if (res.status !== 202) throw new Error(`upload: ${res.status} ${await res.text()}`);
  ids.push({ id: (await res.json()).documentId, token: app.token });
}
for (const { id, token } of ids) {
  await until(`document ${id}`, async () => {
    const s = await (await fetch(`${base}/api/v1/documents/${id}/status`, { headers: { authorization: `Bearer ${token}` } })).json();
    return s.statusInt === 8 || s.statusInt === 9;
  });
}

// ---- sign in with the operator key (the local operator sign-in) ----
const signIn = await fetch(`${base}/dashboard/auth/operator`, {
  method: 'POST',
  redirect: 'manual',
  headers: { 'content-type': 'application/x-www-form-urlencoded', origin: base },
  body: new URLSearchParams({ key: operatorKey, next: '/dashboard/' }),
});
const cookie = (signIn.headers.getSetCookie?.() ?? []).map((c) => c.split(';')[0]).join('; ');
if (signIn.status !== 303 || !cookie) throw new Error(`sign-in: ${signIn.status} ${await signIn.text()}`);

const t = `/dashboard/t/${tenant.id}`;
const month = new Date().toISOString().slice(0, 7);
const pages = {
  organisations: '/dashboard/',
  onboarding: '/dashboard/onboarding',
  overview: t,
  apps: `${t}/apps`,
  app: `${t}/apps/${apps[0].app.id}`,
  members: `${t}/members`,
  storage: `${t}/storage`,
  'usage and billing': `${t}/usage?month=${month}`,
  'audit log': `${t}/audit`,
  plans: '/dashboard/plans',
  'operator tenants': '/dashboard/operator/tenants',
};

const rows = [];
let seq = 0;
for (const [name, p] of Object.entries(pages)) {
  const client = [];
  const reqIds = [];
  for (let i = 0; i < warm + requests; i++) {
    const requestId = `bench-${seq++}`;
    const t0 = performance.now();
    const res = await fetch(base + p, { headers: { cookie, 'x-request-id': requestId } });
    const text = await res.text();
    const ms = performance.now() - t0;
    if (res.status !== 200 || !text.includes('</html>')) throw new Error(`${p}: ${res.status} ${text.slice(0, 300)}`);
    if (i >= warm) {
      client.push(ms);
      reqIds.push(requestId);
    }
  }
  await until('the access log', async () => reqIds.every((id) => serverMs.has(id)), 10_000);
  const server = reqIds.map((id) => serverMs.get(id)).sort((a, b) => a - b);
  client.sort((a, b) => a - b);
  const p90 = (xs) => xs[Math.min(xs.length - 1, Math.floor(xs.length * 0.9))];
  const shown = p.replace(tenant.id, '{tenant}').replace(apps[0].app.id, '{app}').replace(/\?.*$/, '');
  rows.push([name, shown, fmt(median(server), 1), fmt(p90(server), 1), fmt(median(client), 1), fmt(p90(client), 1)]);
}

console.log(
  `Dashboard pages, embedded default, ${documents} parsed documents, ${requests} requests each after ${warm} warm-up (${m.date}, ${m.nproc} cores, load ${m.load})\n`,
);
console.log(table(['page', 'path', 'server ms median', 'server ms p90', 'round trip ms median', 'round trip ms p90'], rows));
stop();
process.exit(0);
