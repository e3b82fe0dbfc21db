// Sustained load against a three-node cluster (issue 31, item 6), and small-job / PDF-page
// throughput with 1, 2 and 3 worker nodes (its figures).
//
//   setsid node bench/cluster/sustained.mjs [--minutes=10] [--upload-rate=8] [--poll-rate=40] [--sample-seconds=10]
//   setsid node bench/cluster/sustained.mjs --scaling [--jobs=600] [--pdf-jobs=60] [--pdf-pages=10] [--clients=32] [--runs=3]
//
// The cluster: a private redis-server (AOF on) and PostgreSQL, an S3 bucket on s3rver, and
// `docparse serve` processes from a snapshot of dist/ — one API-only (api, auth), one
// worker-only, one all-in-one — behind the reference balancer (deploy/balancer/balancer.mjs),
// which the load generator talks to. One tenant, one app whose plan admits every job at once.
//
// Sustained: an open loop fires uploads at --upload-rate per second (a mix of five families:
// CSV, a 3-page PDF, SQL, e-mail, GeoJSON) and status polls at --poll-rate per second for the
// jobs still running (else any job); every --sample-seconds the RSS and open file descriptors
// of every node (its process and its parsing process) are read from /proc. At the end the load
// stops, every accepted job is waited for, and the report says: requests by status code (429s
// expected, anything else an error), poll and upload p50/p99, completed = accepted, and each
// node's RSS and descriptors first/last/max with a least-squares slope per minute.
//
// Scaling: for 1, 2 and 3 worker nodes (worker-only, one parsing thread each) behind one
// API-only node, --jobs small CSV jobs and --pdf-jobs PDFs of --pdf-pages pages, uploaded by
// --clients clients through the balancer, completion seen by batch status: jobs/s and pages/s.
import { spawn } from 'node:child_process';
import http from 'node:http';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync, copyFileSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { randomBytes, randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { machine, median, option, table, gitState, raisePriority } from '../lib/harness.mjs';
import { processTree } from '../e2e/lib.mjs';

const require = createRequire(import.meta.url);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const log = (...a) => console.error('#', ...a);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const scaling = process.argv.includes('--scaling');

// ---------------------------------------------------------------- setup

/** dist/ may be rebuilt by others during the run: serve from a copy (with package.json beside it). */
function snapshotDist() {
  const base = path.join(ROOT, `bench/.dist-snapshot-cluster-${process.pid}`);
  mkdirSync(base, { recursive: true });
  cpSync(path.join(ROOT, 'dist'), path.join(base, 'dist'), { recursive: true, filter: (s) => !s.endsWith('.map') });
  copyFileSync(path.join(ROOT, 'package.json'), path.join(base, 'package.json'));
  process.once('exit', () => rmSync(base, { recursive: true, force: true }));
  for (const sig of ['SIGINT', 'SIGTERM']) process.once(sig, () => process.exit(130));
  return path.join(base, 'dist');
}

/** Test helpers written in TypeScript (Node built-ins only), transpiled once. */
async function loadHelper(file) {
  const ts = require('typescript');
  const src = readFileSync(path.join(ROOT, 'test/helpers', file), 'utf8');
  const js = ts.transpileModule(src, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText;
  const dir = mkdtempSync(path.join(tmpdir(), 'dp-bench-helper-'));
  const out = path.join(dir, file.replace(/\.ts$/, '.mjs'));
  writeFileSync(out, js);
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return import(pathToFileURL(out).href);
}

const DIST = snapshotDist();
const { startRedis, startPostgres, freePort } = await loadHelper('servers.ts');
const { pagesPdf } = await loadHelper('pdfs.ts');
const { startBalancer } = await import(pathToFileURL(path.join(ROOT, 'deploy/balancer/balancer.mjs')).href);
const { default: S3rver } = await import('s3rver');

/** `docparse serve` from the snapshot with `roles`; resolves once /health/live answers. */
async function serve(name, roles, env) {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(tmpdir(), `dp-bench-${name}-`));
  const child = spawn(process.execPath, ['--max-semi-space-size=4', path.join(DIST, 'bin.js'), 'serve', ...roles.flatMap((r) => ['--role', r])], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'error', DOCPARSE_NODE_ID: name, DOCPARSE_DATA_DIR: dataDir, DOCPARSE_WORKER_THREADS: '1', ...env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (d) => (err = (err + d).slice(-4000)));
  const exited = new Promise((r) => child.once('exit', r));
  const url = `http://127.0.0.1:${port}`;
  const node = {
    name,
    url,
    pid: child.pid,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(t);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  const end = Date.now() + 120_000;
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
    await sleep(200);
  }
}

/** RSS (MB) and open descriptors of a node and its descendants. */
function sampleNode(pid) {
  let rssKb = 0;
  let nodeKb = 0;
  let fds = 0;
  for (const p of processTree(pid)) {
    try {
      const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, 'utf8'));
      const kb = m ? Number(m[1]) : 0;
      rssKb += kb;
      if (p === pid) nodeKb = kb;
      fds += readdirSync(`/proc/${p}/fd`).length;
    } catch {
      // ended between the listing and the read
    }
  }
  return { rssMb: rssKb / 1024, nodeMb: nodeKb / 1024, fds };
}

/** Least-squares slope of ys over xs (per unit of x). */
function slope(xs, ys) {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (xs[i] - mx) * (ys[i] - my);
    den += (xs[i] - mx) ** 2;
  }
  return den ? num / den : 0;
}

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] : NaN;
};

// ---------------------------------------------------------------- the cluster

async function startCluster(layout) {
  const [redis, pg] = await Promise.all([startRedis({ persistent: true }), startPostgres()]);
  const s3dir = mkdtempSync(path.join(tmpdir(), 'dp-bench-s3-'));
  const s3 = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: s3dir, configureBuckets: [{ name: 'bench' }] });
  const { port: s3direct } = await s3.run();
  // A counting proxy in front of s3rver: S3 requests per job, by method, for docs/scaling.md.
  const s3Requests = new Map();
  const s3proxy = http.createServer((req, res) => {
    const kind = `${req.method}${/[?&]uploadId=/.test(req.url) ? ' (multipart)' : ''}`;
    s3Requests.set(kind, (s3Requests.get(kind) ?? 0) + 1);
    const up = http.request({ host: '127.0.0.1', port: s3direct, method: req.method, path: req.url, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode, r.headers);
      r.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise((r) => s3proxy.listen(0, '127.0.0.1', r));
  const s3port = s3proxy.address().port;
  const publicPort = await freePort();
  const publicUrl = `http://127.0.0.1:${publicPort}`;
  const shared = {
    DATABASE_URL: pg.url,
    REDIS_URL: redis.url,
    DOCPARSE_MASTER_KEY: randomBytes(32).toString('hex'),
    DOCPARSE_AUTH_URL: publicUrl,
    DOCPARSE_BASE_URL: publicUrl,
    DOCPARSE_S3_BUCKET: 'bench',
    DOCPARSE_S3_ENDPOINT: `http://127.0.0.1:${s3port}`,
    DOCPARSE_S3_ACCESS_KEY_ID: 'S3RVER',
    DOCPARSE_S3_SECRET_ACCESS_KEY: 'S3RVER',
    DOCPARSE_S3_FORCE_PATH_STYLE: 'true',
    DOCPARSE_RETENTION_SECONDS: '3600',
  };
  const nodes = [];
  // One after the other: the first applies the migrations and makes the signing key.
  for (const [name, roles] of layout) nodes.push(await serve(name, roles, shared));
  const app = await createApp(pg.url);
  const balancer = await startBalancer({
    nodes: nodes.map((n) => n.url),
    port: publicPort,
    pollMs: 500,
    log: { info() {}, warn() {}, error: (...a) => log('balancer:', ...a) },
  });
  const { Redis } = require('ioredis');
  const redisAdmin = new Redis(redis.url);
  // MONITOR tells the commands clients send (each at most one round trip; fewer when pipelined)
  // from those run inside Lua scripts, which INFO commandstats counts alike.
  const sent = { client: 0, script: 0 };
  const monitorClient = new Redis(redis.url);
  const monitor = await monitorClient.monitor();
  monitor.on('monitor', (_time, _args, source) => (source === 'lua' ? sent.script++ : sent.client++));
  const pgAdmin = new (require('pg').Client)({ connectionString: pg.url });
  await pgAdmin.connect();
  return {
    nodes,
    app,
    url: publicUrl,
    /** Redis commands, PostgreSQL commits and row writes, S3 requests so far. */
    async costs() {
      const redisCalls = {};
      for (const line of (await redisAdmin.info('commandstats')).split('\n')) {
        const m = /^cmdstat_([^:]+):calls=(\d+)/.exec(line.trim());
        if (m) redisCalls[m[1]] = Number(m[2]);
      }
      const { rows } = await pgAdmin.query(
        'SELECT xact_commit::bigint AS commits, (tup_inserted + tup_updated + tup_deleted)::bigint AS row_writes FROM pg_stat_database WHERE datname = current_database()',
      );
      return {
        redisCalls,
        redisSent: { ...sent },
        pg: { commits: Number(rows[0].commits), rowWrites: Number(rows[0].row_writes) },
        s3: Object.fromEntries(s3Requests),
      };
    },
    async close() {
      monitor.disconnect();
      monitorClient.disconnect();
      redisAdmin.disconnect();
      await pgAdmin.end().catch(() => {});
      s3proxy.close();
      await balancer.close?.();
      await Promise.allSettled(nodes.map((n) => n.stop()));
      await s3.close();
      rmSync(s3dir, { recursive: true, force: true });
      await Promise.allSettled([redis.close(), pg.close()]);
    },
  };
}

/** An active tenant with an app whose plan never bounds the bench (made in the control plane). */
async function createApp(databaseUrl) {
  const { openControlPlaneStore } = await import(pathToFileURL(path.join(DIST, 'tenancy/sql-store.js')).href);
  const { hashSecret, generateClientSecret } = await import(pathToFileURL(path.join(DIST, 'identity/secrets.js')).href);
  const store = await openControlPlaneStore({ databaseUrl, dataDir: tmpdir() });
  try {
    const tenant = await store.createTenant({ name: `bench-${randomUUID().slice(0, 6)}` });
    await store.setTenantState(tenant.id, 'Active');
    const plan = await store.createPlan({
      name: `bench-${randomUUID().slice(0, 6)}`,
      maxDocumentUnitsPerMonth: 100_000_000,
      advancedPdfExtraction: true,
      ocrPdfExtraction: true,
      maxFileSizeBytes: 1024 ** 3,
      maxConcurrentJobs: 100_000,
      maxBytesPerSecond: 64 * 1024 ** 3,
    });
    const clientId = `bench-${randomUUID()}`;
    const clientSecret = generateClientSecret();
    await store.createApp({
      tenantId: tenant.id,
      name: 'bench app',
      licenseRegion: 'local',
      dbCode: 'db1',
      clientId,
      secretHash: await hashSecret(clientSecret),
      planId: plan.id,
    });
    return { clientId, clientSecret };
  } finally {
    await store.close();
  }
}

// ---------------------------------------------------------------- the client

function client(url, app) {
  let token = '';
  let renewAt = 0;
  let renewing = null;
  // One token for every concurrent caller, renewed a minute before it expires.
  const fetchToken = async () => {
    for (let attempt = 1; ; attempt++) {
      const res = await fetch(`${url}/connect/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'Service.API', client_id: app.clientId, client_secret: app.clientSecret }),
      });
      if (res.ok) {
        const body = await res.json();
        token = body.access_token;
        renewAt = Date.now() + (body.expires_in - 60) * 1000;
        return;
      }
      const text = await res.text();
      if (attempt >= 5) throw new Error(`token: ${res.status} ${text}`);
      log(`token: ${res.status} ${text}; trying again`);
      await sleep(Number(res.headers.get('retry-after') ?? 2) * 1000);
    }
  };
  const ensureToken = async () => {
    if (token && Date.now() < renewAt) return;
    renewing ??= fetchToken().finally(() => (renewing = null));
    await renewing;
  };
  const timed = async (method, pathAndQuery, body, headers = {}) => {
    await ensureToken();
    const t0 = performance.now();
    try {
      const res = await fetch(url + pathAndQuery, {
        method,
        headers: { authorization: `Bearer ${token}`, ...headers },
        body,
        signal: AbortSignal.timeout(60_000),
      });
      const text = await res.text();
      let json = null;
      try {
        json = JSON.parse(text);
      } catch {}
      return { status: res.status, ms: performance.now() - t0, body: json };
    } catch (e) {
      return { status: 0, ms: performance.now() - t0, body: { error: String(e) } };
    }
  };
  return {
    upload: (kind, id) => timed('POST', `/api/v1/documents/upload?${new URLSearchParams({ ...kind.query, documentId: id })}`, kind.body),
    status: (id) => timed('GET', `/api/v1/documents/${id}/status`),
    batch: (ids) => timed('POST', '/api/v1/documents/status/batch', JSON.stringify({ documentIds: ids }), { 'content-type': 'application/json' }),
  };
}

const csv = 'id,name,amount\n' + Array.from({ length: 50 }, (_, i) => `${i},name ${i},${(i * 3.7).toFixed(2)}`).join('\n') + '\n';
const sql = Array.from({ length: 20 }, (_, i) => `INSERT INTO t (id, name) VALUES (${i}, 'row ${i}');`).join('\n') + '\n';
const eml = [
  'From: Alice <alice@example.test>',
  'To: Bob <bob@example.test>',
  'Subject: Quarterly figures',
  'Date: Fri, 27 Nov 2026 10:00:00 +0000',
  'Message-ID: <bench@example.test>',
  'Content-Type: text/plain; charset=utf-8',
  '',
  'The figures are attached in spirit.',
  '',
].join('\r\n');
const geojson = JSON.stringify({
  type: 'FeatureCollection',
  features: Array.from({ length: 20 }, (_, i) => ({ type: 'Feature', properties: { id: i }, geometry: { type: 'Point', coordinates: [i / 10, 50 + i / 10] } })),
});
const KINDS = [
  { family: 'csv', weight: 40, body: csv, query: { fileName: 'rows.csv', csvRoute: 'Tabular' } },
  { family: 'pdf', weight: 25, body: pagesPdf(3), query: { fileName: 'three.pdf', pdfMode: 'SingleColumn' } },
  { family: 'sql', weight: 15, body: sql, query: { fileName: 'rows.sql', sqlDialect: 'PostgreSql' } },
  { family: 'email', weight: 10, body: eml, query: { fileName: 'note.eml' } },
  { family: 'gis', weight: 10, body: geojson, query: { fileName: 'points.geojson' } },
];
const pickKind = (i) => {
  let r = i % 100;
  for (const k of KINDS) {
    if (r < k.weight) return k;
    r -= k.weight;
  }
  return KINDS[0];
};
const TERMINAL = new Set([8, 9]); // completed, failed (statusInt)

/** Waits until every id is terminal; returns their statusInts. */
async function waitAll(c, ids, timeoutMs = 600_000) {
  const states = new Map();
  const end = Date.now() + timeoutMs;
  let pending = [...ids];
  while (pending.length) {
    if (Date.now() > end) throw new Error(`${pending.length} jobs still not finished`);
    const next = [];
    for (let i = 0; i < pending.length; i += 100) {
      const slice = pending.slice(i, i + 100);
      const r = await c.batch(slice);
      const results = r.body?.results ?? [];
      slice.forEach((id, j) => {
        const s = results[j]?.statusInt;
        if (TERMINAL.has(s)) states.set(id, s);
        else next.push(id);
      });
    }
    pending = next;
    if (pending.length) await sleep(250);
  }
  return states;
}

// ---------------------------------------------------------------- sustained load

async function sustained() {
  const minutes = option('minutes', 10);
  const uploadRate = option('upload-rate', 8);
  const pollRate = option('poll-rate', 40);
  const sampleSeconds = option('sample-seconds', 10);
  const cluster = await startCluster([
    ['api-only', ['api', 'auth']],
    ['worker-only', ['worker']],
    ['all-in-one', []],
  ]);
  try {
    const c = client(cluster.url, cluster.app);
    const codes = new Map();
    const count = (what, status) => codes.set(`${what} ${status}`, (codes.get(`${what} ${status}`) ?? 0) + 1);
    const accepted = [];
    const running = new Set();
    const uploadMs = [];
    const pollMs = [];
    const samples = cluster.nodes.map(() => []);
    const t0 = Date.now();
    const sample = () => {
      const minute = (Date.now() - t0) / 60_000;
      cluster.nodes.forEach((n, i) => samples[i].push({ minute, ...sampleNode(n.pid) }));
    };
    sample();
    const sampler = setInterval(sample, sampleSeconds * 1000);
    const endAt = t0 + minutes * 60_000;
    let seq = 0;
    const inFlight = new Set();
    const fire = (p) => {
      inFlight.add(p);
      p.finally(() => inFlight.delete(p));
    };
    // Open loop: requests are sent on schedule whether or not earlier ones have answered.
    const tickMs = 100;
    let uploadsDue = 0;
    let pollsDue = 0;
    while (Date.now() < endAt) {
      uploadsDue += (uploadRate * tickMs) / 1000;
      pollsDue += (pollRate * tickMs) / 1000;
      for (; uploadsDue >= 1; uploadsDue--) {
        const n = seq++;
        const id = `sus-${n}-${randomBytes(3).toString('hex')}`;
        fire(
          c.upload(pickKind(n), id).then((r) => {
            count('upload', r.status);
            uploadMs.push(r.ms);
            if (r.status === 202 || r.status === 200) {
              accepted.push(id);
              running.add(id);
            }
          }),
        );
      }
      for (; pollsDue >= 1; pollsDue--) {
        const pool = running.size ? [...running] : accepted;
        if (!pool.length) continue;
        const id = pool[Math.floor(Math.random() * pool.length)];
        fire(
          c.status(id).then((r) => {
            count('status', r.status);
            pollMs.push(r.ms);
            if (TERMINAL.has(r.body?.statusInt)) running.delete(id);
          }),
        );
      }
      await sleep(tickMs);
    }
    await Promise.allSettled([...inFlight]);
    const loadEnded = Date.now();
    const states = await waitAll(c, accepted);
    clearInterval(sampler);
    sample();
    const completed = [...states.values()].filter((s) => s === 8).length;
    return {
      cluster,
      minutes,
      uploadRate,
      pollRate,
      sampleSeconds,
      codes,
      accepted,
      completed,
      failed: states.size - completed,
      uploadMs,
      pollMs,
      samples,
      drainSeconds: (Date.now() - loadEnded) / 1000,
    };
  } finally {
    await cluster.close();
  }
}

function reportSustained(r) {
  const m = machine();
  console.log(`\n### Sustained load, three nodes — ${m.date}, ${m.nproc} cores, ${m.node}, git ${gitState()}, load at the end ${m.load}\n`);
  console.log(
    `\`setsid node bench/cluster/sustained.mjs --minutes=${r.minutes} --upload-rate=${r.uploadRate} --poll-rate=${r.pollRate}\`: ${r.minutes} minutes, uploads at ${r.uploadRate}/s (CSV 40 %, 3-page PDF 25 %, SQL 15 %, e-mail 10 %, GeoJSON 10 %) and status polls at ${r.pollRate}/s, open loop, through the reference balancer to an API-only, a worker-only and an all-in-one node (one parsing thread each) on a private Redis (AOF), PostgreSQL and s3rver. Every accepted job waited for after the load stopped (${r.drainSeconds.toFixed(0)} s).\n`,
  );
  const codeRows = [...r.codes.entries()].sort().map(([k, v]) => [k, String(v)]);
  console.log(table(['request status', 'count'], codeRows));
  const errors = [...r.codes.entries()].filter(([k]) => !/ (200|202|429)$/.test(k)).reduce((s, [, v]) => s + v, 0);
  console.log(
    `\nErrors other than 429: **${errors}**. Accepted ${r.accepted.length}, completed ${r.completed}, failed ${r.failed}: completed = accepted **${r.completed === r.accepted.length ? 'yes' : 'NO'}**.\n`,
  );
  console.log(
    table(
      ['request', 'n', 'p50 ms', 'p99 ms', 'max ms'],
      [
        ['status poll', String(r.pollMs.length), pct(r.pollMs, 50).toFixed(1), pct(r.pollMs, 99).toFixed(1), Math.max(...r.pollMs).toFixed(1)],
        ['upload', String(r.uploadMs.length), pct(r.uploadMs, 50).toFixed(1), pct(r.uploadMs, 99).toFixed(1), Math.max(...r.uploadMs).toFixed(1)],
      ],
    ),
  );
  console.log(
    `\nEvery ${r.sampleSeconds} s, each node's process and its parsing process together (RSS MB; open descriptors), and the least-squares slope over the run:\n`,
  );
  const rows = r.cluster.nodes.map((n, i) => {
    const s = r.samples[i];
    const rss = s.map((x) => x.rssMb);
    const fds = s.map((x) => x.fds);
    // The first minute is warm-up (engines loaded on first use): the slope is taken after it.
    const steady = s.filter((x) => x.minute >= 1);
    return [
      n.name,
      String(s.length),
      `${rss[0].toFixed(0)} → ${rss[rss.length - 1].toFixed(0)} (max ${Math.max(...rss).toFixed(0)})`,
      `${slope(
        steady.map((x) => x.minute),
        steady.map((x) => x.rssMb),
      ).toFixed(2)}`,
      `${fds[0]} → ${fds[fds.length - 1]} (max ${Math.max(...fds)})`,
      `${slope(
        steady.map((x) => x.minute),
        steady.map((x) => x.fds),
      ).toFixed(2)}`,
    ];
  });
  console.log(table(['node', 'samples', 'RSS MB first → last', 'RSS slope MB/min (after 1 min)', 'descriptors first → last', 'descriptor slope /min'], rows));
  const series = r.cluster.nodes.map((n, i) => `${n.name}: ${r.samples[i].map((x) => x.rssMb.toFixed(0)).join(' ')}`);
  console.log(`\nRSS samples (MB):\n\n${series.map((l) => `- ${l}`).join('\n')}\n`);
  const parts = r.cluster.nodes.map((n, i) => {
    const steady = r.samples[i].filter((x) => x.minute >= 1);
    const xs = steady.map((x) => x.minute);
    return `${n.name}: node process ${slope(
      xs,
      steady.map((x) => x.nodeMb),
    ).toFixed(2)} MB/min, parsing process ${slope(
      xs,
      steady.map((x) => x.rssMb - x.nodeMb),
    ).toFixed(2)} MB/min`;
  });
  console.log(`RSS slope after the first minute, by process:\n\n${parts.map((l) => `- ${l}`).join('\n')}\n`);
}

// ---------------------------------------------------------------- scaling

async function scalingRun() {
  const jobs = option('jobs', 600);
  const pdfJobs = option('pdf-jobs', 60);
  const pdfPages = option('pdf-pages', 10);
  const clients = option('clients', 32);
  const runs = option('runs', 3);
  const pdf = { family: 'pdf', body: pagesPdf(pdfPages), query: { fileName: 'pages.pdf', pdfMode: 'SingleColumn' } };
  const small = KINDS[0];
  const results = [];
  const costs = [];
  for (const workers of [1, 2, 3]) {
    const layout = [['api', ['api', 'auth']], ...Array.from({ length: workers }, (_, i) => [`worker-${i + 1}`, ['worker']])];
    const cluster = await startCluster(layout);
    try {
      const c = client(cluster.url, cluster.app);
      const drive = async (kind, n, label) => {
        const ids = Array.from({ length: n }, (_, i) => `${label}-${i}-${randomBytes(3).toString('hex')}`);
        let next = 0;
        const t0 = performance.now();
        await Promise.all(
          Array.from({ length: clients }, async () => {
            while (next < ids.length) {
              const id = ids[next++];
              const r = await c.upload(kind, id);
              if (r.status !== 202) throw new Error(`upload ${r.status}: ${JSON.stringify(r.body)}`);
            }
          }),
        );
        const states = await waitAll(c, ids);
        const s = (performance.now() - t0) / 1000;
        const failed = [...states.values()].filter((x) => x !== 8).length;
        if (failed) throw new Error(`${failed} ${label} jobs failed`);
        return s;
      };
      await drive(small, 50, 'warm'); // every thread has started and loaded its parsers
      await drive(pdf, 4, 'warm-pdf');
      for (let run = 1; run <= runs; run++) {
        const before = run === 1 ? await cluster.costs() : null;
        const smallS = await drive(small, jobs, `small-${run}`);
        if (before) {
          await sleep(1500); // PostgreSQL publishes its counters about once a second
          costs.push({ workers, per: perJob(before, await cluster.costs(), jobs) });
        }
        const pdfS = await drive(pdf, pdfJobs, `pdf-${run}`);
        const row = {
          workers,
          run,
          jobsPerS: jobs / smallS,
          pagesPerS: (pdfJobs * pdfPages) / pdfS,
          load: readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' '),
        };
        results.push(row);
        log(JSON.stringify(row));
      }
    } finally {
      await cluster.close();
    }
  }
  const m = machine();
  console.log(`\n### Throughput with 1, 2 and 3 worker nodes — ${m.date}, ${m.nproc} cores, ${m.node}, git ${gitState()}\n`);
  console.log(
    `\`setsid node bench/cluster/sustained.mjs --scaling --jobs=${jobs} --pdf-jobs=${pdfJobs} --pdf-pages=${pdfPages} --clients=${clients} --runs=${runs}\`: one API-only node and N worker-only nodes (one parsing thread each) behind the reference balancer, private Redis, PostgreSQL and s3rver; ${clients} clients; completion seen by batch status. Small job: 50-row CSV. PDF: ${pdfPages} text pages, SingleColumn.\n`,
  );
  const rows = [1, 2, 3].map((w) => {
    const rs = results.filter((x) => x.workers === w);
    return [
      String(w),
      rs.map((x) => x.jobsPerS.toFixed(0)).join(', '),
      median(rs.map((x) => x.jobsPerS)).toFixed(0),
      rs.map((x) => x.pagesPerS.toFixed(0)).join(', '),
      median(rs.map((x) => x.pagesPerS)).toFixed(0),
      rs.map((x) => x.load).join('; '),
    ];
  });
  console.log(table(['worker nodes', 'small jobs/s per run', 'median', 'PDF pages/s per run', 'median', 'load (1/5/15 min) per run'], rows));
  console.log(
    `\nPer small job, over the first run of ${jobs} (whole cluster, idle polling included): Redis commands (INFO commandstats), PostgreSQL commits and rows written (pg_stat_database), S3 requests (a counting proxy):\n`,
  );
  const f = (x) => x.toFixed(2);
  console.log(
    table(
      [
        'worker nodes',
        'Redis commands',
        'of which sent by clients',
        'run inside scripts',
        'PostgreSQL commits',
        'PostgreSQL row writes',
        'S3 requests',
        'Redis commands by name',
      ],
      costs.map(({ workers, per }) => [
        String(workers),
        f(per.redisTotal),
        f(per.redisSentByClients),
        f(per.redisInScripts),
        f(per.pgCommits),
        f(per.pgRowWrites),
        Object.entries(per.s3)
          .map(([k, v]) => `${k} ${f(v)}`)
          .join(', '),
        Object.entries(per.redis)
          .sort((x, y) => y[1] - x[1])
          .filter(([, v]) => v >= 0.05)
          .map(([k, v]) => `${k} ${f(v)}`)
          .join(', '),
      ]),
    ),
  );
}

/** Per-job Redis commands (by command), PostgreSQL commits and row writes, S3 requests between two snapshots. */
function perJob(a, b, jobs) {
  const redis = {};
  for (const [cmd, calls] of Object.entries(b.redisCalls)) {
    const d = calls - (a.redisCalls[cmd] ?? 0);
    if (d > 0 && cmd !== 'info') redis[cmd] = d / jobs;
  }
  const s3 = {};
  for (const [k, n] of Object.entries(b.s3)) if (n - (a.s3[k] ?? 0) > 0) s3[k] = (n - (a.s3[k] ?? 0)) / jobs;
  return {
    redis,
    redisTotal: Object.values(redis).reduce((x, y) => x + y, 0),
    redisSentByClients: (b.redisSent.client - a.redisSent.client) / jobs,
    redisInScripts: (b.redisSent.script - a.redisSent.script) / jobs,
    pgCommits: (b.pg.commits - a.pg.commits) / jobs,
    pgRowWrites: (b.pg.rowWrites - a.pg.rowWrites) / jobs,
    s3,
  };
}

// ---------------------------------------------------------------- run

log(`priority: ${raisePriority()}`);
if (scaling) await scalingRun();
else reportSustained(await sustained());
process.exit(0);
