// Private Redis and PostgreSQL servers for tests that take a dependency down and bring it
// back: each runs as its own process on a free port of 127.0.0.1 with its data in a temp dir,
// so killing it never touches the machine's shared services (6379, 5432). stop() is a real
// crash (SIGKILL; for PostgreSQL the postmaster and every backend); start() brings the same
// server back on the same port and data dir. freeze()/thaw() make it hang (SIGSTOP/SIGCONT).
//
// Node built-ins only, so benches can load this file too (bench/outages/run.mjs transpiles it).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export interface TestServer {
  /** Connection URL (redis://… or postgres://…). */
  readonly url: string;
  readonly port: number;
  /** True between start() and stop(). */
  readonly running: boolean;
  /** Kills the server like a crash (SIGKILL) and waits until it is gone. */
  stop(): Promise<void>;
  /** Starts it again on the same port with the same data. */
  start(): Promise<void>;
  /** SIGSTOP: the server keeps its connections and port but answers nothing (a hang). */
  freeze(): void;
  /** SIGCONT after freeze(). */
  thaw(): void;
  /** Stops it and removes its data. */
  close(): Promise<void>;
  /** What it wrote to stdout/stderr, for failure messages. */
  output(): string;
}

/** Servers still running when the test process exits are killed with it (with their children). */
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const c of live) signalCluster(c, 'SIGKILL');
});

/** A port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function until(what: string, timeoutMs: number, probe: () => Promise<boolean>, output: () => string): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > end) throw new Error(`${what} did not come up within ${timeoutMs} ms:\n${output()}`);
    await sleep(50);
  }
}

/** Sends one line to host:port and resolves with the first reply ('' on any error). */
function ask(port: number, line: string, timeoutMs = 500): Promise<string> {
  return new Promise((resolve) => {
    const sock = net.connect(port, '127.0.0.1');
    let buf = '';
    const done = (v: string) => {
      clearTimeout(timer);
      sock.destroy();
      resolve(v);
    };
    const timer = setTimeout(() => done(''), timeoutMs);
    sock.on('connect', () => sock.write(line));
    sock.on('data', (d) => {
      buf += d.toString('latin1');
      if (buf.includes('\r\n')) done(buf);
    });
    sock.on('error', () => done(''));
  });
}

/** Resolves once the child has exited (at once if it already has). */
function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((r) => child.once('exit', () => r()));
}

/** Spawns cmd with output captured into log; as another user when uid/gid are given. */
function launch(cmd: string, args: string[], log: { text: string }, user?: { uid: number; gid: number }): ChildProcess {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], uid: user?.uid, gid: user?.gid });
  const keep = (d: Buffer) => {
    log.text = (log.text + d.toString()).slice(-20_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  live.add(child);
  child.once('exit', () => live.delete(child));
  return child;
}

// ------------------------------------------------------------------ Redis

export interface RedisServerOptions {
  /**
   * true: AOF with fsync on every write (`appendonly yes`, `appendfsync always`), so a
   * restart keeps every acknowledged write. false (default): nothing persisted
   * (`save ""`, `appendonly no`), like a cache-configured Redis.
   */
  persistent?: boolean;
  /** Extra settings: `{ 'maxmemory-policy': 'allkeys-lru', 'rename-command': ['CONFIG', ''] }`. */
  config?: Record<string, string | string[]>;
}

export async function startRedis(opts: RedisServerOptions = {}): Promise<TestServer> {
  const port = await freePort();
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'dp-redis-'));
  const log = { text: '' };
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--protected-mode',
    'no',
    '--save',
    '',
    '--appendonly',
    opts.persistent ? 'yes' : 'no',
    ...(opts.persistent ? ['--appendfsync', 'always'] : []),
    ...Object.entries(opts.config ?? {}).flatMap(([k, v]) => [`--${k}`, ...(Array.isArray(v) ? v : [v])]),
  ];
  let child: ChildProcess | null = null;
  const server: TestServer = {
    url: `redis://127.0.0.1:${port}`,
    port,
    get running() {
      return child !== null;
    },
    async start() {
      if (child) return;
      const c = launch('redis-server', args, log);
      child = c;
      await until(
        `redis-server on port ${port}`,
        10_000,
        async () => {
          if (c.exitCode !== null) throw new Error(`redis-server exited (${c.exitCode}):\n${log.text}`);
          return (await ask(port, 'PING\r\n')).startsWith('+PONG');
        },
        () => log.text,
      );
    },
    async stop() {
      const c = child;
      if (!c) return;
      child = null;
      signalCluster(c, 'SIGKILL');
      await exited(c);
    },
    freeze: () => void (child && signalCluster(child, 'SIGSTOP')),
    thaw: () => void (child && signalCluster(child, 'SIGCONT')),
    async close() {
      await server.stop();
      await fsp.rm(dir, { recursive: true, force: true });
    },
    output: () => log.text,
  };
  await server.start();
  return server;
}

// ------------------------------------------------------------------ PostgreSQL

/** The newest installed PostgreSQL's bin directory (Debian layout), or TEST_PG_BIN. */
export function postgresBinDir(): string {
  if (process.env.TEST_PG_BIN) return process.env.TEST_PG_BIN;
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root) ? fs.readdirSync(root).filter((v) => fs.existsSync(path.join(root, v, 'bin', 'initdb'))) : [];
  if (versions.length === 0) throw new Error(`no PostgreSQL server binaries under ${root} (set TEST_PG_BIN)`);
  versions.sort((a, b) => Number(b) - Number(a));
  return path.join(root, versions[0], 'bin');
}

/** PostgreSQL refuses to run as root: as root, its processes run as the `postgres` user. */
function postgresUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  return { uid, gid };
}

export async function startPostgres(): Promise<TestServer> {
  const bin = postgresBinDir();
  const user = postgresUser();
  const port = await freePort();
  const base = await fsp.mkdtemp(path.join(os.tmpdir(), 'dp-pg-'));
  const data = path.join(base, 'data');
  const sockets = path.join(base, 'sock');
  await fsp.mkdir(sockets);
  if (user) {
    await fsp.chown(base, user.uid, user.gid);
    await fsp.chown(sockets, user.uid, user.gid);
  }
  const log = { text: '' };
  const init = launch(path.join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync', '--no-instructions'], log, user);
  const code = await new Promise<number | null>((r) => init.once('exit', (c) => r(c)));
  if (code !== 0) throw new Error(`initdb failed (${code}):\n${log.text}`);

  // Throw-away cluster: durability settings off for speed (a SIGKILL still loses nothing the
  // kernel already has, and the kernel is not what these tests crash).
  const args = [
    '-D',
    data,
    '-p',
    String(port),
    '-k',
    sockets,
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    'fsync=off',
    '-c',
    'synchronous_commit=off',
    '-c',
    'full_page_writes=off',
    '-c',
    'max_connections=200',
  ];
  let child: ChildProcess | null = null;
  const server: TestServer = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    get running() {
      return child !== null;
    },
    async start() {
      if (child) return;
      const c = launch(path.join(bin, 'postgres'), args, log, user);
      child = c;
      await until(
        `postgres on port ${port}`,
        30_000,
        async () => {
          if (c.exitCode !== null) throw new Error(`postgres exited (${c.exitCode}):\n${log.text}`);
          return pgAccepts(bin, port);
        },
        () => log.text,
      );
    },
    async stop() {
      const c = child;
      if (!c) return;
      child = null;
      signalCluster(c, 'SIGKILL');
      await exited(c);
      // Wait until nothing holds the port any more, so start() can take it again.
      await until(
        `postgres on port ${port} to stop listening`,
        10_000,
        async () => !(await canConnect(port)),
        () => log.text,
      );
    },
    freeze: () => void (child && signalCluster(child, 'SIGSTOP')),
    thaw: () => void (child && signalCluster(child, 'SIGCONT')),
    async close() {
      await server.stop();
      await fsp.rm(base, { recursive: true, force: true });
    },
    output: () => log.text,
  };
  await server.start();
  return server;
}

/**
 * Signals a server and every process it forked (PostgreSQL's backends, checkpointer, …;
 * each calls setsid(), so a process-group signal would reach the postmaster alone).
 */
function signalCluster(c: ChildProcess, signal: 'SIGKILL' | 'SIGSTOP' | 'SIGCONT'): void {
  if (!c.pid) return;
  const signalChildren = () => {
    for (const pid of childPids(c.pid!)) {
      try {
        process.kill(pid, signal);
      } catch {
        // already gone
      }
    }
  };
  if (signal === 'SIGCONT') {
    c.kill('SIGCONT');
    signalChildren();
    return;
  }
  c.kill('SIGSTOP'); // the parent forks nothing new (e.g. crash recovery) while its children are signalled
  signalChildren();
  if (signal === 'SIGKILL') c.kill('SIGKILL');
}

/** Processes whose parent is pid (from /proc). */
function childPids(pid: number): number[] {
  const out: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = net.connect(port, '127.0.0.1');
    sock.once('connect', () => {
      sock.destroy();
      resolve(true);
    });
    sock.once('error', () => resolve(false));
  });
}

/** pg_isready: the server accepts connections (not merely listening while it recovers). */
function pgAccepts(bin: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const c = spawn(path.join(bin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-t', '1'], { stdio: 'ignore' });
    c.once('exit', (code) => resolve(code === 0));
    c.once('error', () => resolve(false));
  });
}
