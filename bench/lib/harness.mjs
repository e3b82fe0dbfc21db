// Shared bench harness: starts a server pinned to one core, drives it from a load generator
// pinned to the other, and measures requests/s and the server's CPU time per request from
// /proc/<pid>/stat (utime + stime, all threads of the process).
import { spawn, spawnSync, execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync, mkdtempSync, rmSync, readdirSync, statSync, cpSync, mkdirSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';
import { tmpdir, cpus, loadavg, setPriority } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';

const require = createRequire(import.meta.url);

export const SERVER_CPU = process.env.BENCH_SERVER_CPU ?? '0';
export const LOADGEN_CPU = process.env.BENCH_LOADGEN_CPU ?? '1';
const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

const has = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
export const HAS_TASKSET = has('taskset');
/**
 * Load generator for closed-loop runs: h2load (nghttp2-client, `--h1`) when installed, else wrk,
 * else autocannon. On this kind of 2-core VM one wrk thread tops out near 40k req/s, which leaves
 * a uWS server idle half the time (CPU per request then measures wake-ups, not work); h2load
 * drives the same server past 100k req/s. Requests with a body always go through wrk/autocannon.
 */
export const LOADGEN = process.env.BENCH_LOADGEN ?? (has('h2load') ? 'h2load' : has('wrk') ? 'wrk' : 'autocannon');
const FALLBACK_LOADGEN = has('wrk') ? 'wrk' : 'autocannon';

/**
 * The machine is shared, and Linux shares CPU between sessions (scheduler autogroups) before it
 * looks at nice values, so other sessions' builds take the bench's cores whatever its nice. Run
 * as `setsid node bench/…/run.mjs`: a session leader running as root raises its own autogroup
 * and nice (servers and load generators inherit both). Returns what was done, for the report.
 */
export function raisePriority() {
  let done = [];
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const session = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[3]);
    if (session === process.pid) {
      writeFileSync('/proc/self/autogroup', '-15');
      done.push('own scheduler autogroup at nice -15');
    }
  } catch {
    /* not root, or no autogroups */
  }
  try {
    setPriority(0, -15);
    done.push('nice -15');
  } catch {
    /* not permitted */
  }
  return done.length ? done.join(', ') : 'normal priority (run with setsid as root to raise it)';
}

const pinned = (cpu, argv) => (HAS_TASKSET ? ['taskset', ['-c', cpu, ...argv]] : [argv[0], argv.slice(1)]);

/** User and kernel CPU seconds used so far by a process (all its threads). */
export function cpuTimes(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // f[0] is field 3 (state): utime is field 14, stime field 15.
  return { user: Number(f[11]) / CLK_TCK, system: Number(f[12]) / CLK_TCK };
}

/**
 * Spawns `node <script> ...args` pinned to SERVER_CPU; resolves once it prints a JSON line with
 * `port`. taskset execs node, so the child's pid is the server's pid.
 */
export async function startServer(script, args = [], env = {}) {
  const [cmd, argv] = pinned(SERVER_CPU, [process.execPath, script, ...args]);
  const child = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } });
  const lines = createInterface({ input: child.stdout });
  const ready = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} did not start within 60 s`)), 60_000);
    child.once('exit', (code) => reject(new Error(`${script} exited early (${code})`)));
    lines.on('line', (line) => {
      try {
        const msg = JSON.parse(line);
        if (msg.port) {
          clearTimeout(timer);
          resolve(msg);
        }
      } catch {
        process.stderr.write(`[server] ${line}\n`);
      }
    });
  });
  return {
    pid: child.pid,
    ...ready,
    async stop() {
      if (child.exitCode !== null) return;
      const done = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 5000);
      await done;
      clearTimeout(t);
    },
  };
}

function run(cmd, argv) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${cmd} ${argv.join(' ')} failed (${code}): ${err || out}`))));
  });
}

const tmp = mkdtempSync(path.join(tmpdir(), 'docparse-bench-'));
process.once('exit', () => rmSync(tmp, { recursive: true, force: true }));
let luaSeq = 0;

/**
 * One load run. opts: url, seconds, connections, method, headers, body.
 * Returns { requests, non2xx, errors, rps, p50ms, p99ms }.
 */
export async function load({ url, seconds, connections, method = 'GET', headers = {}, body, rate }) {
  const gen = method === 'GET' && body === undefined ? LOADGEN : LOADGEN === 'h2load' ? FALLBACK_LOADGEN : LOADGEN;
  if (gen === 'h2load' && !rate) {
    // HTTP/1.1, no pipelining (-m1), one thread, for a fixed duration.
    const argv = ['h2load', '--h1', '-t1', `-c${connections}`, '-m1', `-D${seconds}`];
    for (const [k, v] of Object.entries(headers)) argv.push('-H', `${k}: ${v}`);
    argv.push(url);
    const out = await run(...pinned(LOADGEN_CPU, argv));
    const m = /finished in ([\d.]+)(ms|s), ([\d.]+) req\/s/.exec(out);
    const req = /requests: (\d+) total, \d+ started, (\d+) done, (\d+) succeeded, (\d+) failed, (\d+) errored, (\d+) timeout/.exec(out);
    const codes = /status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx/.exec(out);
    const lat = /time for request:\s+[\d.]+(?:us|ms|s)\s+[\d.]+(?:us|ms|s)\s+([\d.]+)(us|ms|s)/.exec(out);
    if (!m || !req) throw new Error(`could not read h2load output: ${out}`);
    const unit = (v, u) => (u === 'us' ? v / 1000 : u === 's' ? v * 1000 : v);
    const requests = Number(req[3]);
    return {
      requests,
      non2xx: codes ? Number(codes[2]) + Number(codes[3]) + Number(codes[4]) : 0,
      errors: Number(req[4]) + Number(req[5]) + Number(req[6]),
      rps: Number(m[3]),
      p50ms: NaN,
      p99ms: NaN,
      meanMs: lat ? unit(Number(lat[1]), lat[2]) : NaN,
    };
  }
  // A fixed request rate needs autocannon (-R); wrk only runs closed-loop at full speed.
  if (gen === 'wrk' && !rate) {
    // --timeout 10s: token issuance on a contended core answers in > 2 s (wrk's default).
    const argv = ['wrk', '-t1', `-c${connections}`, `-d${seconds}s`, '--timeout', '10s', '--latency'];
    for (const [k, v] of Object.entries(headers)) argv.push('-H', `${k}: ${v}`);
    if (method !== 'GET' || body !== undefined) {
      const lua = path.join(tmp, `req${++luaSeq}.lua`);
      writeFileSync(lua, `wrk.method = ${JSON.stringify(method)}\nwrk.body = ${JSON.stringify(body ?? '')}\n`);
      argv.push('-s', lua);
    }
    argv.push(url);
    const out = await run(...pinned(LOADGEN_CPU, argv));
    const num = (re) => {
      const m = re.exec(out);
      return m ? Number(m[1]) : 0;
    };
    const ms = (re) => {
      const m = re.exec(out);
      if (!m) return NaN;
      const v = Number(m[1]);
      return m[2] === 'us' ? v / 1000 : m[2] === 's' ? v * 1000 : v;
    };
    const requests = num(/(\d+) requests in/);
    const secs = (() => {
      const m = /requests in ([\d.]+)(ms|s|m)/.exec(out);
      if (!m) return seconds;
      return m[2] === 'ms' ? Number(m[1]) / 1000 : m[2] === 'm' ? Number(m[1]) * 60 : Number(m[1]);
    })();
    const sock = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
    return {
      requests,
      non2xx: num(/Non-2xx or 3xx responses: (\d+)/),
      errors: sock ? sock.slice(1).reduce((a, b) => a + Number(b), 0) : 0,
      rps: requests / secs,
      p50ms: ms(/\s50%\s+([\d.]+)(us|ms|s)/),
      p99ms: ms(/\s99%\s+([\d.]+)(us|ms|s)/),
      meanMs: ms(/Latency\s+([\d.]+)(us|ms|s)/),
    };
  }
  const cli = require.resolve('autocannon/autocannon.js');
  const argv = [process.execPath, cli, '-j', '-c', String(connections), '-d', String(seconds), '-m', method];
  if (rate) argv.push('-R', String(rate));
  for (const [k, v] of Object.entries(headers)) argv.push('-H', `${k}=${v}`);
  if (body !== undefined) argv.push('-b', body);
  argv.push(url);
  const r = JSON.parse(await run(...pinned(LOADGEN_CPU, argv)));
  const requests = r['2xx'] + r.non2xx;
  return {
    requests,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
    rps: requests / (r.duration || seconds),
    p50ms: r.latency.p50,
    p99ms: r.latency.p99,
    meanMs: r.latency.average,
  };
}

/** Warm-up run (not recorded), then a measured run bracketed by /proc CPU readings of `pid`. */
export async function measure(pid, opts, { warmSeconds, seconds }) {
  if (warmSeconds > 0) await load({ ...opts, seconds: warmSeconds });
  const cpu0 = cpuTimes(pid);
  const t0 = performance.now();
  const r = await load({ ...opts, seconds });
  const wall = (performance.now() - t0) / 1000;
  const cpu1 = cpuTimes(pid);
  const cpu = cpu1.user + cpu1.system - cpu0.user - cpu0.system;
  return {
    ...r,
    cpuSeconds: cpu,
    cpuUsPerReq: r.requests ? (cpu * 1e6) / r.requests : NaN,
    /** The user-space share: the part an HTTP front controls (the rest is the kernel's TCP work). */
    userUsPerReq: r.requests ? ((cpu1.user - cpu0.user) * 1e6) / r.requests : NaN,
    /** Server CPU, % of one core, over the measured run. */
    cpuPercent: (cpu / wall) * 100,
  };
}

/** Runs `fn` once: its wall ms, this process's CPU ms (all threads) and its value. */
export async function timed(fn) {
  const c0 = process.cpuUsage();
  const t = performance.now();
  const value = await fn();
  const c = process.cpuUsage(c0);
  return { ms: performance.now() - t, cpu: (c.user + c.system) / 1000, value };
}

export const median = (xs) => {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (!s.length) return NaN;
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

export const fmt = (x, digits = 0) =>
  Number.isFinite(x) ? x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : 'n/a';

export function table(header, rows) {
  const lines = [`| ${header.join(' | ')} |`, `|${header.map((h, i) => (i === 0 ? ':---' : '---:')).join('|')}|`];
  for (const r of rows) lines.push(`| ${r.join(' | ')} |`);
  return lines.join('\n');
}

export function machine() {
  const up = spawnSync('uptime').stdout?.toString().trim() ?? '';
  return {
    date: new Date().toISOString(),
    nproc: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    load: loadavg()
      .map((x) => x.toFixed(2))
      .join(', '),
    uptime: up,
    node: process.version,
    loadgen: LOADGEN,
    pinning: HAS_TASKSET ? `server taskset -c ${SERVER_CPU}, load generator taskset -c ${LOADGEN_CPU}` : 'none (taskset missing)',
  };
}

/** Numeric option from argv (`--name=value`) or the environment (BENCH_NAME), else the default. */
export function option(name, dflt) {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  const env = process.env[`BENCH_${name.toUpperCase().replace(/-/g, '_')}`];
  const v = arg ? arg.slice(name.length + 3) : env;
  return v === undefined ? dflt : Number(v);
}

const LIVE_DIST = fileURLToPath(new URL('../../dist/', import.meta.url));

/**
 * The compiled code the benches load. Other engineers rebuild dist/ while a bench runs, so the
 * first call copies dist/ (no source maps) to bench/.dist-snapshot/<pid>/ and every server of
 * the run imports that copy (passed down in BENCH_DIST). Inside the repo, so bare imports still
 * resolve from /work/main/node_modules. Removed at exit.
 */
export function distDir() {
  if (process.env.BENCH_DIST) return process.env.BENCH_DIST;
  const dir = fileURLToPath(new URL(`../.dist-snapshot/${process.pid}/`, import.meta.url));
  mkdirSync(dir, { recursive: true });
  cpSync(LIVE_DIST, dir, { recursive: true, filter: (src) => !src.endsWith('.map') });
  process.env.BENCH_DIST = dir;
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  for (const sig of ['SIGINT', 'SIGTERM']) process.once(sig, () => process.exit(130));
  return dir;
}

/** Imports a module of the (snapshotted) dist, e.g. distImport('http/server.js'). */
export const distImport = (rel) => import(pathToFileURL(path.join(distDir(), rel)).href);

/**
 * Short sha256 over the compiled files a bench loads (http, identity, tenancy, api/health.js,
 * jobs/embedded-counters.js) of a dist directory (default: the snapshot in use).
 */
export function distFingerprint(root = distDir()) {
  const h = createHash('sha256');
  const add = (rel) => {
    const abs = path.join(root, rel);
    let st;
    try {
      st = statSync(abs);
    } catch {
      return;
    }
    if (st.isDirectory()) for (const e of readdirSync(abs).sort()) add(path.join(rel, e));
    else if (rel.endsWith('.js')) h.update(rel).update(readFileSync(abs));
  };
  for (const rel of ['http', 'identity', 'tenancy', 'api/health.js', 'jobs/embedded-counters.js']) add(rel);
  return h.digest('hex').slice(0, 12);
}

/** Git HEAD and whether src/ has uncommitted changes (what dist was probably built from). */
export function gitState() {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const head = spawnSync('git', ['-C', root, 'rev-parse', '--short', 'HEAD']).stdout?.toString().trim() || 'unknown';
  const dirty = spawnSync('git', ['-C', root, 'status', '--porcelain', '--', 'src']).stdout?.toString().trim();
  return `${head}${dirty ? ' (src/ has uncommitted changes)' : ''}`;
}
