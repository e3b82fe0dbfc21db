// Shared helpers for the end-to-end benches: a bench server in a child process (in-process
// startNode from dist, with its own data dir, Redis prefix and throw-away database), a small
// keep-alive HTTP client, percentiles and load figures. 127.0.0.1 only.
import { spawn, spawnSync } from 'node:child_process';
import http from 'node:http';
import { once } from 'node:events';
import os from 'node:os';
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
export const HERE = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(HERE, '../..');
export const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
export const PG_ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres:postgres@127.0.0.1:5432/postgres';

/** Tiny argv parser: --key value / --flag. */
export function args(defaults) {
  const out = { ...defaults };
  const a = process.argv.slice(2);
  for (let i = 0; i < a.length; i++) {
    if (!a[i].startsWith('--')) continue;
    const k = a[i].slice(2);
    const v = a[i + 1] && !a[i + 1].startsWith('--') ? a[++i] : 'true';
    out[k] = typeof defaults[k] === 'number' ? Number(v) : v;
  }
  return out;
}

const CLK_TCK = 100;
/** CPU seconds (user + system, all threads) used so far by a process, from /proc/<pid>/stat. */
export function cpuSeconds(pid) {
  const st = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / CLK_TCK;
}

/** CPU seconds of this process's children that have ended and been waited for (and theirs), from /proc/self/stat. */
export function endedChildrenCpuSeconds() {
  const st = fs.readFileSync('/proc/self/stat', 'utf8');
  const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
  return (Number(f[13]) + Number(f[14])) / CLK_TCK;
}

/** A process and its descendants (a node's parsing process and what it starts). */
export function processTree(pid) {
  const children = new Map();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const st = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(st.slice(st.lastIndexOf(')') + 2).split(' ')[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(d));
    } catch {
      // gone meanwhile
    }
  }
  const out = [];
  const walk = (p) => {
    out.push(p);
    for (const c of children.get(p) ?? []) walk(c);
  };
  walk(pid);
  return out;
}

/** CPU seconds used so far by the processes still running among `pids`. */
export const treeCpuSeconds = (pids) => pids.reduce((s, p) => s + (fs.existsSync(`/proc/${p}`) ? cpuSeconds(p) : 0), 0);

export const uptimeLine = () => fs.readFileSync('/proc/loadavg', 'utf8').trim();

export function percentile(sorted, p) {
  if (!sorted.length) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}
export function stats(values) {
  const s = [...values].sort((a, b) => a - b);
  return { n: s.length, p50: percentile(s, 50), p90: percentile(s, 90), p99: percentile(s, 99), max: s[s.length - 1], min: s[0] };
}
export const median = (xs) => stats(xs).p50;
export const fmt = (x, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : String(x));

/** Throw-away PostgreSQL database (created and dropped through the admin URL). */
export async function createDatabase() {
  const pg = require('pg');
  const name = `dp_bench_${randomBytes(6).toString('hex')}`;
  const admin = async (sql) => {
    // Generous: on a shared machine at load 15, a connection alone has taken over 5 s.
    const c = new pg.Client({ connectionString: PG_ADMIN_URL, connectionTimeoutMillis: 30_000 });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const u = new URL(PG_ADMIN_URL);
  u.pathname = `/${name}`;
  let dropped = false;
  return {
    name,
    url: u.toString(),
    async drop() {
      if (dropped) return;
      await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      dropped = true;
    },
  };
}

/** Deletes every Redis key under `${prefix}:` (a dedicated bench prefix, never 'docparse'). */
export async function deleteRedisPrefix(prefix) {
  if (!prefix || prefix === 'docparse' || !prefix.startsWith('dp-bench-')) throw new Error(`refusing to delete keys under '${prefix}'`);
  const { Redis } = require('ioredis');
  const r = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 2 });
  await r.connect();
  let cursor = '0';
  let deleted = 0;
  do {
    const [next, keys] = await r.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length) deleted += await r.del(...keys);
  } while (cursor !== '0');
  r.disconnect();
  return deleted;
}

/**
 * Starts bench/e2e/server.mjs (startNode from dist in a child process) in `mode` embedded|redis.
 * The parent owns the temp data dir, the database and the Redis prefix, so it cleans them up
 * even if the child dies. `cpu`: a taskset CPU list the node (every thread, and what it starts
 * later) is pinned to once it has started; it starts on every core, which is much faster.
 */
export async function startBenchServer(mode, extraEnv = {}, { cpu } = {}) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dp-bench-e2e-'));
  const db = mode === 'redis' ? await createDatabase() : null;
  const redisPrefix = mode === 'redis' ? `dp-bench-${randomBytes(4).toString('hex')}` : '';
  const env = {
    ...process.env,
    PORT: '0',
    HOST: '127.0.0.1',
    DOCPARSE_DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    DOCPARSE_SEED_DEMO: 'false',
    DOCPARSE_NODE_ID: `bench-e2e-${mode}-${randomBytes(3).toString('hex')}`,
    DOCPARSE_MASTER_KEY: randomBytes(32).toString('hex'),
    BENCH_REDIS_PREFIX: redisPrefix,
    // glibc's trim threshold fixed, as `npm start` and the Dockerfile run the node (docs/performance.md,
    // "The idle node and glibc's trim threshold"); the caller's value wins, for comparisons.
    MALLOC_TRIM_THRESHOLD_: process.env.MALLOC_TRIM_THRESHOLD_ ?? '4194304',
    ...(db ? { DATABASE_URL: db.url, REDIS_URL } : {}),
    ...extraEnv,
  };
  if (!db) {
    delete env.DATABASE_URL;
    delete env.REDIS_URL;
  }
  // BENCH_SERVER_NODE_ARGS: flags for the server's node (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to profile it).
  // The flags `npm start` and the Dockerfile run the node with (docs/performance.md, Memory), then any extra.
  const nodeArgs = ['--max-semi-space-size=4', ...(process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean)];
  const child = spawn(process.execPath, [...nodeArgs, path.join(HERE, 'server.mjs')], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise((r) => child.once('exit', r));
  const cleanup = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(t);
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
    try {
      if (db) await db.drop();
    } finally {
      if (redisPrefix) await deleteRedisPrefix(redisPrefix);
    }
  };
  try {
    const info = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('bench server did not start within 90 s')), 90_000);
      child.once('exit', (code) => reject(new Error(`bench server exited early (${code})`)));
      let started = false;
      createInterface({ input: child.stdout }).on('line', (line) => {
        let m = null;
        try {
          m = JSON.parse(line);
        } catch {
          // not JSON: shown below
        }
        // The server's own first line names its port and credentials; anything else (its log) is shown.
        if (!started && m?.port && m.clientId) {
          started = true;
          clearTimeout(timer);
          resolve(m);
        } else process.stderr.write(`[server] ${line}\n`);
      });
    });
    if (cpu !== undefined) {
      for (const pid of processTree(child.pid)) spawnSync('taskset', ['-a', '-p', '-c', String(cpu), String(pid)], { stdio: 'ignore' });
    }
    return { ...info, pid: child.pid, mode, dataDir, db: db?.name ?? null, redisPrefix, url: `http://127.0.0.1:${info.port}`, stop: cleanup };
  } catch (err) {
    await cleanup().catch(() => {});
    throw err;
  }
}

/** Keep-alive HTTP client on 127.0.0.1 (node:http: cheaper per request than fetch). */
export function client(baseUrl, { maxSockets = 64 } = {}) {
  const u = new URL(baseUrl);
  // Idle connections are closed here after 4 s, before the server's own idle timeout (uWS: 10 s)
  // can close one just as a request is sent on it (ECONNRESET on a loaded machine).
  const agent = new http.Agent({ keepAlive: true, maxSockets, timeout: 4000 });
  // A reused socket the server closed anyway fails the next request written to it: sent again
  // once on a fresh socket, as Node's docs advise.
  const request = (method, p, opts = {}) =>
    send(method, p, opts).catch((err) => {
      if (!err.reusedSocket || !['ECONNRESET', 'EPIPE'].includes(err.code)) throw err;
      return send(method, p, opts);
    });
  const send = (method, p, { headers = {}, body } = {}) =>
    new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: u.hostname,
          port: u.port,
          method,
          path: p,
          agent,
          headers: body !== undefined ? { 'content-length': Buffer.byteLength(body), ...headers } : headers,
        },
        (res) => {
          const parts = [];
          res.on('data', (c) => parts.push(c));
          res.on('end', () => {
            const text = Buffer.concat(parts).toString('utf8');
            let json = null;
            try {
              json = text ? JSON.parse(text) : null;
            } catch {}
            resolve({ status: res.statusCode, headers: res.headers, text, json });
          });
          res.on('error', reject);
        },
      );
      req.on('error', (err) => reject(Object.assign(err, { reusedSocket: req.reusedSocket })));
      req.end(body);
    });
  return { request, agent, close: () => agent.destroy() };
}

export async function getToken(c, clientId, clientSecret) {
  const body = new URLSearchParams({ grant_type: 'client_credentials', scope: 'Service.API', client_id: clientId, client_secret: clientSecret }).toString();
  const r = await c.request('POST', '/connect/token', { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
  if (r.status !== 200 || !r.json?.access_token) throw new Error(`token: ${r.status} ${r.text}`);
  return r.json.access_token;
}

/** A small CSV (~4 KB, 100 rows of 6 columns: integer, string, number, boolean, date, string). */
export function smallCsv(rows = 100) {
  const lines = ['id,name,amount,active,day,city'];
  const cities = ['Paris', 'Lyon', 'Berlin', 'Madrid', 'Rome', 'Oslo'];
  for (let i = 1; i <= rows; i++) {
    lines.push(
      `${i},item-${i},${(i * 13.37).toFixed(2)},${i % 2 === 0},2024-${String((i % 12) + 1).padStart(2, '0')}-${String((i % 28) + 1).padStart(2, '0')},${cities[i % cities.length]}`,
    );
  }
  return lines.join('\n') + '\n';
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Runs a baseline command to its end without blocking the event loop (never spawnSync): a bench
 * blocked for seconds does not see the server close its idle keep-alive connections, and its
 * next request on one of them fails (EPIPE, ECONNRESET). Resolves to { status, stdout, stderr }.
 */
export async function runToEnd(command, argv) {
  const child = spawn(command, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const [status] = await once(child, 'close');
  return { status, stdout, stderr };
}

/**
 * The filesystem under dir as /proc/mounts names it, and whether ext4 keeps a journal there:
 * without one, every file create costs more (bench/storage/inode-cost.mjs), so benches that
 * make files per job say where their data dir was.
 */
export function filesystemOf(dir) {
  const real = fs.realpathSync(dir);
  const mounts = fs
    .readFileSync('/proc/mounts', 'utf8')
    .split('\n')
    .map((l) => l.split(' '))
    .filter((m) => m.length > 2 && (real === m[1] || real.startsWith(m[1].endsWith('/') ? m[1] : `${m[1]}/`)))
    .sort((a, b) => b[1].length - a[1].length);
  const [dev, mountPoint, type] = mounts[0] ?? ['?', '?', '?'];
  if (type !== 'ext4') return `${type} (${mountPoint})`;
  const journals = fs.existsSync('/proc/fs/jbd2') ? fs.readdirSync('/proc/fs/jbd2') : [];
  const journaled = journals.some((j) => j.startsWith(`${path.basename(dev)}-`));
  return `ext4 ${journaled ? 'with' : 'without'} a journal (${mountPoint}, ${dev})`;
}

let smallJobSeq = 0;

/**
 * The small-job load (issue 28): `concurrency` clients each upload `csv` (csvRoute=Tabular) and
 * wait for its completion, which one watcher sees by batch status (≤ 100 ids a request, every
 * pollMs). Runs `total` jobs; returns the wall seconds and how many failed.
 */
export async function runSmallJobs(c, auth, csv, { total, concurrency, pollMs, idPrefix }) {
  const waiting = new Map(); // documentId → resolve(statusInt)
  let done = false;
  const watcher = (async () => {
    while (!done) {
      const ids = [...waiting.keys()];
      for (let i = 0; i < ids.length; i += 100) {
        const r = await c.request('POST', '/api/v1/documents/status/batch', {
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({ documentIds: ids.slice(i, i + 100) }),
        });
        if (r.status !== 200) throw new Error(`batch status: ${r.status} ${r.text}`);
        for (const s of r.json.results) {
          if (s.statusInt === 8 || s.statusInt === 9) {
            waiting.get(s.documentId)?.(s.statusInt);
            waiting.delete(s.documentId);
          }
        }
      }
      await sleep(pollMs);
    }
  })();
  let next = 0;
  let failed = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const id = `${idPrefix}-${process.pid}-${smallJobSeq++}`;
        next++;
        const finished = new Promise((resolve) => waiting.set(id, resolve));
        const r = await c.request('POST', `/api/v1/documents/upload?fileName=small.csv&csvRoute=Tabular&documentId=${id}`, {
          headers: { ...auth, 'content-type': 'text/csv' },
          body: csv,
        });
        if (r.status !== 202) throw new Error(`upload: ${r.status} ${r.text}`);
        if ((await finished) === 9) failed++;
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  done = true;
  await watcher;
  return { seconds, failed };
}
