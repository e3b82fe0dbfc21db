// The docparse node under test, as a separate OS process (`node dist/bin.js serve`) in its
// own process group, on the embedded store. A template data dir is prepared once (first
// boot seeds the demo app; then `docparse admin` moves it to a plan without practical
// limits); every start copies it to a fresh dir, so a restart after a crash does not resume
// the job that killed the previous node.
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from './seeds.mjs'; // where dist/ and node_modules are

export const CLIENT_ID = 'fuzz-client';
export const CLIENT_SECRET = 'fuzz-secret-0123456789';
const DEMO_APP_ID = '00000000-0000-4000-8000-0000000de302'; // src/manage/demo-workspace.ts
const TAIL_BYTES = 64 * 1024;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Copies dist/ (and package.json) to bench/fuzz/.dist-snapshot-<pid>/ (inside the repo so packages still
 * resolve from node_modules; "dist" kept as the last segment because the PDF loaders find
 * dist/wasm relative to themselves): other people rebuild dist/ while a long run goes on.
 */
export function snapshotDist() {
  const live = path.join(REPO_ROOT, 'dist');
  if (!fs.existsSync(path.join(live, 'bin.js'))) throw new Error('dist/bin.js is missing: run `npm run build` first');
  const root = path.join(REPO_ROOT, 'bench/fuzz', `.dist-snapshot-${process.pid}`);
  const dist = path.join(root, 'dist');
  fs.cpSync(live, dist, { recursive: true, filter: (src) => !src.endsWith('.map') });
  fs.copyFileSync(path.join(REPO_ROOT, 'package.json'), path.join(root, 'package.json')); // dist/node.js reads ../package.json
  const cleanup = () => fs.rmSync(root, { recursive: true, force: true });
  process.once('exit', cleanup);
  return { dist, cleanup };
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** The environment without anything that would point the node at another store or config. */
function baseEnv() {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k.startsWith('DOCPARSE_') || k === 'REDIS_URL' || k === 'DATABASE_URL' || k === 'PORT' || k === 'NODE_OPTIONS') continue;
    env[k] = v;
  }
  return env;
}

export class FuzzNode {
  /**
   * @param {object} o
   * @param {string} o.dist     compiled dist directory
   * @param {Record<string,string>} o.env  extra DOCPARSE_* settings
   * @param {string} o.logDir   where each start's stdout/stderr is kept
   */
  constructor({ dist, env = {}, logDir }) {
    this.dist = dist;
    this.extraEnv = env;
    this.logDir = logDir;
    this.template = null;
    this.starts = 0;
    this.child = null;
  }

  env(dataDir, port) {
    return {
      ...baseEnv(),
      LOG_LEVEL: 'warn',
      DOCPARSE_DATA_DIR: dataDir,
      PORT: String(port),
      DOCPARSE_DEMO_CLIENT_ID: CLIENT_ID,
      DOCPARSE_DEMO_CLIENT_SECRET: CLIENT_SECRET,
      DOCPARSE_SEED_DEMO: 'true',
      ...this.extraEnv,
    };
  }

  /** First boot (demo seeded), clean stop, then the demo app on a plan without practical limits. */
  async prepareTemplate() {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docparse-fuzz-template-'));
    const port = await freePort();
    const proc = this.spawn(dir, port, path.join(this.logDir, 'template-boot.log'));
    await this.waitReady(proc, port);
    await this.terminate(proc);
    const admin = (...args) =>
      execFileSync(process.execPath, [path.join(this.dist, 'bin.js'), 'admin', ...args], { env: this.env(dir, port), encoding: 'utf8' });
    const plan = JSON.parse(
      admin(
        'plan',
        'create',
        '--name',
        'fuzz',
        '--units',
        '1000000000',
        '--advanced',
        '--ocr',
        '--max-file-size',
        '2GiB',
        '--max-concurrent',
        '1000',
        '--max-bytes-per-second',
        '8GiB',
        '--json',
      )
        .trim()
        .split('\n')
        .pop(),
    );
    admin('app', 'assign-plan', DEMO_APP_ID, plan.id);
    this.template = dir;
  }

  spawn(dataDir, port, logFile) {
    const log = fs.openSync(logFile, 'a');
    const child = spawn(process.execPath, [path.join(this.dist, 'bin.js'), 'serve'], {
      cwd: path.dirname(this.dist),
      env: this.env(dataDir, port),
      stdio: ['ignore', log, log],
      detached: true, // its own process group: a kill reaches LibreOffice and other children too
    });
    fs.closeSync(log);
    const proc = { child, pid: child.pid, port, dataDir, logFile, exit: null };
    proc.exited = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        proc.exit = { code, signal, at: Date.now() };
        resolve(proc.exit);
      }),
    );
    return proc;
  }

  async waitReady(proc, port, timeoutMs = 180_000) {
    const end = Date.now() + timeoutMs;
    while (Date.now() < end) {
      if (proc.exit) throw new Error(`docparse exited during start (${JSON.stringify(proc.exit)}):\n${this.logTail(proc)}`);
      const ok = await fetch(`http://127.0.0.1:${port}/health/ready`, { signal: AbortSignal.timeout(2000) }).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) return;
      await sleep(200);
    }
    this.killGroup(proc);
    throw new Error(`docparse did not become ready in ${timeoutMs / 1000} s:\n${this.logTail(proc)}`);
  }

  /** Starts a node on a fresh copy of the template; resolves once /health/ready answers 200. */
  async start() {
    if (!this.template) await this.prepareTemplate();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docparse-fuzz-data-'));
    fs.cpSync(this.template, dataDir, { recursive: true });
    const port = await freePort();
    this.starts++;
    const proc = this.spawn(dataDir, port, path.join(this.logDir, `node-${this.starts}.log`));
    proc.start = this.starts;
    proc.url = `http://127.0.0.1:${port}`;
    await this.waitReady(proc, port);
    this.child = proc;
    return proc;
  }

  logTail(proc, bytes = TAIL_BYTES) {
    try {
      const buf = fs.readFileSync(proc.logFile);
      return buf.subarray(Math.max(0, buf.length - bytes)).toString('utf8');
    } catch {
      return '';
    }
  }

  /** SIGKILL to the node's process group (ours: we started it detached). */
  killGroup(proc) {
    try {
      process.kill(-proc.pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }

  /** SIGTERM (graceful drain), SIGKILL after graceMs; then whatever is left of its group. */
  async terminate(proc, graceMs = 45_000) {
    if (!proc.exit) {
      try {
        process.kill(proc.pid, 'SIGTERM');
      } catch {
        /* gone */
      }
      const t = setTimeout(() => this.killGroup(proc), graceMs);
      await proc.exited;
      clearTimeout(t);
    }
    this.killGroup(proc);
  }

  discard(proc) {
    fs.rmSync(proc.dataDir, { recursive: true, force: true });
  }

  cleanup() {
    if (this.template) fs.rmSync(this.template, { recursive: true, force: true });
  }
}
