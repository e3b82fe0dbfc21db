// Outage bench (issue 16): how fast a node answers while Redis or PostgreSQL is down, how fast
// it recovers when the dependency returns, and how fast a dead node's work is taken over.
//
//   node bench/outages/run.mjs [--rounds=3] [--takeover-jobs=30]
//
// Everything runs on private servers (test/helpers/servers.ts: redis-server with AOF and a
// PostgreSQL cluster in temp dirs, on free ports; s3rver for the takeover's shared blobs) and
// `docparse serve` processes from a snapshot of dist/. Each dependency is killed with SIGKILL
// (PostgreSQL: its whole process group) and restarted on the same port and data.
//
// Per round and dependency: the latency of /health/ready, an upload, a status poll and a
// token request issued right after the kill (client timeout 5 s); after the restart, the time
// from "the server accepts connections" to /health/ready 200 and to the first accepted upload.
// Then the same dependency hung instead (SIGSTOP: connections stay open, nothing answers):
// the four requests at once, twice ("first / next"), and the time to ready after SIGCONT.
// Takeover: two nodes, jobs uploaded to one, the other killed with SIGKILL while both parse;
// the time from the kill until the last delivery in flight at the kill has moved on.
// Medians over the rounds, each run listed. Prints a markdown table on stdout.
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync, copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { machine, median, option, table, gitState } from '../lib/harness.mjs';

const require = createRequire(import.meta.url);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const rounds = option('rounds', 3);
const takeoverJobs = option('takeover-jobs', 30);
const log = (...a) => console.error('#', ...a);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------- setup

/** dist/ may be rebuilt by others during the run: serve from a copy (with package.json beside it). */
function snapshotDist() {
  const base = path.join(ROOT, `bench/.dist-snapshot-outages-${process.pid}`);
  mkdirSync(base, { recursive: true });
  cpSync(path.join(ROOT, 'dist'), path.join(base, 'dist'), { recursive: true, filter: (s) => !s.endsWith('.map') });
  copyFileSync(path.join(ROOT, 'package.json'), path.join(base, 'package.json'));
  process.once('exit', () => rmSync(base, { recursive: true, force: true }));
  for (const sig of ['SIGINT', 'SIGTERM']) process.once(sig, () => process.exit(130));
  return path.join(base, 'dist');
}

/** The test suite's server launchers (Node built-ins only), transpiled once. */
async function loadServers() {
  const ts = require('typescript');
  const src = readFileSync(path.join(ROOT, 'test/helpers/servers.ts'), 'utf8');
  const js = ts.transpileModule(src, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText;
  const dir = mkdtempSync(path.join(tmpdir(), 'dp-bench-servers-'));
  const file = path.join(dir, 'servers.mjs');
  writeFileSync(file, js);
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return import(pathToFileURL(file).href);
}

const DIST = snapshotDist();
const { startRedis, startPostgres, freePort } = await loadServers();
const { default: S3rver } = await import('s3rver');
const DEMO = { clientId: 'bench-outage-demo', clientSecret: 'bench-outage-secret-0123456789' };

/** `docparse serve` from the snapshot; resolves once /health/live answers. */
async function serve(name, env) {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(tmpdir(), `dp-bench-${name}-`));
  const child = spawn(process.execPath, [path.join(DIST, 'bin.js'), 'serve'], {
    cwd: ROOT,
    env: {
      ...process.env,
      LOG_LEVEL: 'error',
      DOCPARSE_NODE_ID: name,
      DOCPARSE_DATA_DIR: dataDir,
      DOCPARSE_WORKER_THREADS: '1',
      DOCPARSE_RETENTION_SECONDS: '3600',
      ...env,
      PORT: String(port),
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (d) => (err = (err + d).slice(-4000)));
  const exited = new Promise((r) => child.once('exit', r));
  const url = `http://127.0.0.1:${port}`;
  const node = {
    name,
    url,
    child,
    exited,
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  const end = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited during start:\n${err}`);
    if (
      await fetch(`${url}/health/live`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return node;
    if (Date.now() > end) throw new Error(`${name} did not start:\n${err}`);
    await sleep(100);
  }
}

// ---------------------------------------------------------------- requests

/** One request, timed; null when no answer came within 5 s (a hang). */
async function timed(url, init = {}) {
  const t0 = performance.now();
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(5000) });
    const text = await res.text();
    let body = text;
    try {
      body = JSON.parse(text);
    } catch {}
    return { ms: performance.now() - t0, status: res.status, body, retryAfter: res.headers.get('retry-after') };
  } catch {
    return { ms: performance.now() - t0, status: 0, body: null, retryAfter: null };
  }
}

function client(url, creds = DEMO) {
  let token = '';
  return {
    ready: () => timed(`${url}/health/ready`),
    token: async () => {
      const r = await timed(`${url}/connect/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'Service.API', client_id: creds.clientId, client_secret: creds.clientSecret }),
      });
      if (r.status === 200) token = r.body.access_token;
      return r;
    },
    upload: (id, body = 'a,b\n1,2\n') =>
      timed(`${url}/api/v1/documents/upload?${new URLSearchParams({ fileName: `${id}.csv`, csvRoute: 'Tabular', documentId: id })}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
        body,
      }),
    status: (id) => timed(`${url}/api/v1/documents/${id}/status`, { headers: { authorization: `Bearer ${token}` } }),
    batch: (ids) =>
      timed(`${url}/api/v1/documents/status/batch`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ documentIds: ids }),
      }),
  };
}

/** Polls fn every 20 ms until it returns truthy; ms taken from `since`. */
async function until(fn, since, what, timeoutMs = 60_000) {
  const end = performance.now() + timeoutMs;
  while (!(await fn())) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
  return performance.now() - since;
}

/** "503 naming the dependency" for a problem, the token endpoint's body or readiness. */
function names(r, dependency) {
  if (r.status !== 503 || !r.retryAfter) return false;
  const b = r.body ?? {};
  return [b.detail, b.error_description, ...(b.unreachable ?? [])].some((s) => typeof s === 'string' && s.includes(dependency));
}

// ---------------------------------------------------------------- outages

/** One outage round: kill, measure the answers, restart, measure the recovery. */
async function outageRound(server, dependency, c, round) {
  const known = `known-${dependency}-${round}`;
  const ok = await c.upload(known);
  if (ok.status !== 202) throw new Error(`upload before the outage: ${ok.status} ${JSON.stringify(ok.body)}`);
  await until(async () => (await c.status(known)).body?.statusInt === 8, performance.now(), 'the job before the outage');

  await server.stop();
  const ready = await c.ready();
  const upload = await c.upload(`during-${dependency}-${round}`);
  const status = await c.status(known);
  const token = await c.token();
  const checks = {
    ready: names(ready, dependency),
    upload: names(upload, dependency),
    token: names(token, dependency),
    status: dependency === 'Redis' ? names(status, dependency) : status.status === 200,
  };
  if (!Object.values(checks).every(Boolean))
    log(
      `round ${round} ${dependency}: unexpected answers`,
      JSON.stringify({ checks, ready: ready.body, upload: upload.body, status: status.status, token: token.body }),
    );
  await sleep(2000);

  await server.start();
  const back = performance.now();
  const readyMs = await until(async () => (await c.ready()).status === 200, back, 'ready again');
  let n = 0;
  const uploadMs = await until(
    async () => {
      if ((await c.token()).status !== 200) return false;
      return (await c.upload(`after-${dependency}-${round}-${n++}`)).status === 202;
    },
    back,
    'an accepted upload',
  );
  return { ready: ready.ms, upload: upload.ms, status: status.ms, statusCode: status.status, token: token.ms, readyMs, uploadMs, checks };
}

/** One hang round: SIGSTOP, two waves of the four requests at once, SIGCONT, recovery. */
async function hangRound(server, dependency, c, round) {
  server.freeze();
  const wave = async (n) => {
    const [ready, upload, status, token] = await Promise.all([
      c.ready(),
      c.upload(`hung-${dependency}-${round}-${n}`),
      c.status(`known-${dependency}-${round}`),
      c.token(),
    ]);
    return { ready, upload, status, token };
  };
  const first = await wave(1);
  const next = await wave(2);
  server.thaw();
  const back = performance.now();
  const readyMs = await until(async () => (await c.ready()).status === 200, back, 'ready after SIGCONT');
  await c.token();
  const pick = (w) => Object.fromEntries(Object.entries(w).map(([k, r]) => [k, r.status === 0 ? Infinity : r.ms]));
  const codes = (w) =>
    Object.values(w)
      .map((r) => r.status)
      .join('/');
  return { first: pick(first), next: pick(next), codes: `${codes(first)} then ${codes(next)}`, readyMs };
}

// ---------------------------------------------------------------- takeover

function csv(seed, rows = 40_000) {
  const lines = ['id,name,value,when'];
  for (let i = 0; i < rows; i++) lines.push(`${i},n${seed}-${i},${(i * 1.5 + seed).toFixed(2)},2024-01-${String((i % 28) + 1).padStart(2, '0')}`);
  return lines.join('\n') + '\n';
}

async function takeoverRound(a, bEnv, redisAdmin, round) {
  const b = await serve(`node-b${round}`, bEnv);
  const c = client(a.url);
  await c.token();
  const ids = Array.from({ length: takeoverJobs }, (_, i) => `t${round}-${i}`);
  let uploaded = 0;
  const uploads = (async () => {
    for (const [i, id] of ids.entries()) {
      const r = await c.upload(id, csv(i));
      if (r.status !== 202) throw new Error(`takeover upload ${id}: ${r.status} ${JSON.stringify(r.body)}`);
      uploaded++;
    }
  })();
  await until(async () => uploaded >= 4 && (await redisAdmin.llen('docparse:bull:light:active')) >= 2, performance.now(), 'both nodes parsing', 120_000);
  const before = (await c.batch(ids)).body.results ?? [];
  const inFlight = new Map(
    before.filter((s) => [3, 4, 7].includes(s?.statusInt)).map((s) => [s.documentId, JSON.stringify([s.statusInt, s.attempts, s.startedAt])]),
  );
  b.child.kill('SIGKILL');
  const killed = performance.now();
  await b.kill();
  let last = 0;
  await until(
    async () => {
      const now = (await c.batch([...inFlight.keys()])).body.results ?? [];
      for (const s of now) {
        if (inFlight.has(s.documentId) && JSON.stringify([s.statusInt, s.attempts, s.startedAt]) !== inFlight.get(s.documentId)) {
          inFlight.delete(s.documentId);
          last = performance.now() - killed;
        }
      }
      return inFlight.size === 0;
    },
    killed,
    'the in-flight deliveries to move on',
    120_000,
  );
  await uploads;
  await until(
    async () => ((await c.batch(ids)).body.results ?? []).every((s) => s?.statusInt === 8 || s?.statusInt === 9),
    performance.now(),
    'every job to finish',
    300_000,
  );
  const final = (await c.batch(ids)).body.results;
  const lost = final.filter((s) => s?.statusInt !== 8).length;
  return { takeoverMs: last, lost };
}

// ---------------------------------------------------------------- run

const m = machine();
log(`Outage bench — ${m.date}, ${m.nproc} cores (${m.cpuModel}), load ${m.load}, ${m.node}, git ${gitState()}`);

const [redis, pg] = await Promise.all([startRedis({ persistent: true }), startPostgres()]);
const s3dir = mkdtempSync(path.join(tmpdir(), 'dp-bench-s3-'));
const s3 = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: s3dir, configureBuckets: [{ name: 'bench' }] });
const { port: s3port } = await s3.run();
const shared = {
  DATABASE_URL: pg.url,
  REDIS_URL: redis.url,
  DOCPARSE_MASTER_KEY: randomBytes(32).toString('hex'),
  DOCPARSE_SEED_DEMO: 'true',
  DOCPARSE_DEMO_CLIENT_ID: DEMO.clientId,
  DOCPARSE_DEMO_CLIENT_SECRET: DEMO.clientSecret,
  DOCPARSE_S3_BUCKET: 'bench',
  DOCPARSE_S3_ENDPOINT: `http://127.0.0.1:${s3port}`,
  DOCPARSE_S3_ACCESS_KEY_ID: 'S3RVER',
  DOCPARSE_S3_SECRET_ACCESS_KEY: 'S3RVER',
  DOCPARSE_S3_FORCE_PATH_STYLE: 'true',
};
const nodes = [];
const { Redis } = require('ioredis');
let redisAdmin;
try {
  const a = await serve('node-a', shared);
  nodes.push(a);
  const c = client(a.url);
  await until(async () => (await c.ready()).status === 200, performance.now(), 'node A ready');
  await c.token();

  const outages = { Redis: [], PostgreSQL: [] };
  const hangs = { Redis: [], PostgreSQL: [] };
  const round1 = (k, v) => (typeof v === 'number' ? Math.round(v * 10) / 10 : v);
  for (let r = 1; r <= rounds; r++) {
    for (const [dependency, server] of [
      ['Redis', redis],
      ['PostgreSQL', pg],
    ]) {
      const res = await outageRound(server, dependency, c, r);
      outages[dependency].push(res);
      log(`round ${r} ${dependency} killed:`, JSON.stringify(res, round1));
      const hung = await hangRound(server, dependency, c, r);
      hangs[dependency].push(hung);
      log(`round ${r} ${dependency} hung:`, JSON.stringify(hung, round1));
    }
  }

  redisAdmin = new Redis(redis.url);
  const takeovers = [];
  for (let r = 1; r <= rounds; r++) {
    const t = await takeoverRound(a, shared, redisAdmin, r);
    takeovers.push(t);
    log(`takeover round ${r}:`, JSON.stringify(t));
  }

  const cell = (runs, key, digits = 0) => {
    const v = runs.map((x) => x[key]);
    return `${median(v).toFixed(digits)} (${v.map((x) => x.toFixed(digits)).join(', ')})`;
  };
  const allNamed = (runs, key) => (runs.every((x) => x.checks[key]) ? '' : ' ⚠ not all named the dependency');
  console.log(`\n### Outages — ${m.date}, ${m.nproc} cores, ${m.node}, git ${gitState()}\n`);
  console.log(
    `Median of ${rounds} rounds (each round's value in parentheses), milliseconds. Private redis-server (AOF) and PostgreSQL, killed with SIGKILL and restarted on the same port; one \`docparse serve\` process.\n`,
  );
  console.log(
    table(
      ['measurement', 'Redis down', 'PostgreSQL down'],
      [
        [
          '/health/ready → 503 naming the dependency',
          cell(outages.Redis, 'ready', 1) + allNamed(outages.Redis, 'ready'),
          cell(outages.PostgreSQL, 'ready', 1) + allNamed(outages.PostgreSQL, 'ready'),
        ],
        [
          'upload → 503 service_unavailable',
          cell(outages.Redis, 'upload', 1) + allNamed(outages.Redis, 'upload'),
          cell(outages.PostgreSQL, 'upload', 1) + allNamed(outages.PostgreSQL, 'upload'),
        ],
        ['status poll', `503 in ${cell(outages.Redis, 'status', 1)}`, `200 in ${cell(outages.PostgreSQL, 'status', 1)} (does not need PostgreSQL)`],
        [
          'token request → 503 temporarily_unavailable',
          cell(outages.Redis, 'token', 1) + allNamed(outages.Redis, 'token'),
          cell(outages.PostgreSQL, 'token', 1) + allNamed(outages.PostgreSQL, 'token'),
        ],
        ['recovery: server accepting → /health/ready 200', cell(outages.Redis, 'readyMs'), cell(outages.PostgreSQL, 'readyMs')],
        ['recovery: server accepting → token + upload accepted', cell(outages.Redis, 'uploadMs'), cell(outages.PostgreSQL, 'uploadMs')],
      ],
    ),
  );
  const hungCell = (runs, key) => {
    const f = median(runs.map((x) => x.first[key]));
    const n = median(runs.map((x) => x.next[key]));
    const show = (v) => (Number.isFinite(v) ? v.toFixed(0) : 'no answer in 5 s');
    return `${show(f)} / ${show(n)}`;
  };
  console.log(`\n### Hung dependency (SIGSTOP: connections stay open, nothing answers) — first / next request, medians of ${rounds}, ms\n`);
  console.log(
    `Four requests at once right after SIGSTOP ("first"), then four more ("next"). Status codes per round: Redis ${hangs.Redis.map((h) => h.codes).join('; ')}; PostgreSQL ${hangs.PostgreSQL.map((h) => h.codes).join('; ')} (ready/upload/status/token).\n`,
  );
  console.log(
    table(
      ['request', 'Redis hung', 'PostgreSQL hung'],
      [
        ['/health/ready', hungCell(hangs.Redis, 'ready'), hungCell(hangs.PostgreSQL, 'ready')],
        ['upload', hungCell(hangs.Redis, 'upload'), hungCell(hangs.PostgreSQL, 'upload')],
        ['status poll', hungCell(hangs.Redis, 'status'), hungCell(hangs.PostgreSQL, 'status')],
        ['token request', hungCell(hangs.Redis, 'token'), hungCell(hangs.PostgreSQL, 'token')],
        ['SIGCONT → /health/ready 200', median(hangs.Redis.map((h) => h.readyMs)).toFixed(0), median(hangs.PostgreSQL.map((h) => h.readyMs)).toFixed(0)],
      ],
    ),
  );
  console.log(
    `\n### Takeover after kill -9 — ${takeoverJobs} CSV jobs (40,000 rows each) uploaded to node A; node B killed while both parse (1 parsing thread each)\n`,
  );
  console.log(
    table(
      ['measurement', `median of ${rounds}`, 'runs'],
      [
        [
          'kill → last delivery in flight at the kill moved on (ms)',
          median(takeovers.map((t) => t.takeoverMs)).toFixed(0),
          takeovers.map((t) => t.takeoverMs.toFixed(0)).join(', '),
        ],
        ['jobs not completed', String(Math.max(...takeovers.map((t) => t.lost))), takeovers.map((t) => t.lost).join(', ')],
      ],
    ),
  );
} finally {
  await Promise.allSettled(nodes.map((n) => n.kill()));
  redisAdmin?.disconnect();
  await Promise.allSettled([redis.close(), pg.close(), s3.close()]);
  rmSync(s3dir, { recursive: true, force: true });
}
