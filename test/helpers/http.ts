// Helpers for tests that talk real HTTP to the uWS front: an in-process HttpServer with test
// routes, raw-socket requests (for what fetch will not send), and a spawned `docparse serve`.
import net from 'node:net';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { pino, type Logger } from 'pino';
import { HttpServer } from '../../src/http/server.js';
import type { RouteDef } from '../../src/http/route.js';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface TestServer {
  server: HttpServer;
  port: number;
  url: string;
  close(): Promise<void>;
}

export async function startTestServer(
  routes: RouteDef[],
  opts: { logger?: Logger; maxHeaderBytes?: number; trustProxy?: boolean; port?: number } = {},
): Promise<TestServer> {
  const server = new HttpServer({
    logger: opts.logger ?? pino({ level: 'silent' }),
    maxHeaderBytes: opts.maxHeaderBytes ?? 16 * 1024,
    trustProxy: opts.trustProxy ?? false,
  });
  for (const r of routes) server.add(r);
  const port = await server.listen('127.0.0.1', opts.port ?? 0);
  return { server, port, url: `http://127.0.0.1:${port}`, close: () => server.drain(1000) };
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface RawResult {
  /** The first complete response read from the socket, if any. */
  response: RawResponse | null;
  /** The server closed (or reset) the connection. */
  closed: boolean;
  /** Socket error code (e.g. ECONNRESET, ECONNREFUSED), if any. */
  error: string | null;
  raw: string;
}

/** Status and headers of the response at the start of raw; end is where its body starts. */
export function parseHead(raw: Buffer): { status: number; headers: Record<string, string>; end: number } | null {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) return null;
  const [statusLine, ...lines] = raw.subarray(0, end).toString('latin1').split('\r\n');
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
  if (!m) return null;
  const headers: Record<string, string> = {};
  for (const l of lines) {
    const i = l.indexOf(':');
    if (i > 0) headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
  }
  return { status: Number(m[1]), headers, end: end + 4 };
}

/** Parses one HTTP/1.1 response (Content-Length or chunked) from the start of raw. */
export function parseResponse(raw: Buffer): RawResponse | null {
  const head = parseHead(raw);
  if (!head) return null;
  const { headers, status } = head;
  const rest = raw.subarray(head.end);
  if (headers['content-length'] !== undefined) {
    const n = Number(headers['content-length']);
    if (rest.length < n) return null;
    return { status, headers, body: rest.subarray(0, n).toString('utf8') };
  }
  if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
    const parts: Buffer[] = [];
    let at = 0;
    for (;;) {
      const nl = rest.indexOf('\r\n', at);
      if (nl < 0) return null;
      const size = parseInt(rest.subarray(at, nl).toString('latin1'), 16);
      if (rest.length < nl + 2 + size + 2) return null;
      if (size === 0) break;
      parts.push(rest.subarray(nl + 2, nl + 2 + size));
      at = nl + 2 + size + 2;
    }
    return { status, headers, body: Buffer.concat(parts).toString('utf8') };
  }
  return { status, headers, body: rest.toString('utf8') };
}

/**
 * Writes `data` on a fresh connection and reads until a complete response arrives, the
 * server closes, or timeoutMs passes. Then the socket is destroyed.
 */
export function rawRequest(port: number, data: string | Buffer, timeoutMs = 20_000): Promise<RawResult> {
  return new Promise((resolve) => {
    const sock = net.connect(port, '127.0.0.1');
    let buf = Buffer.alloc(0);
    let done = false;
    const finish = (closed: boolean, error: string | null) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      sock.destroy();
      resolve({ response: parseResponse(buf), closed, error, raw: buf.toString('latin1') });
    };
    const timer = setTimeout(() => finish(false, null), timeoutMs);
    sock.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      const r = parseResponse(buf);
      // A response without a length is complete only when the connection closes.
      if (r && (r.headers['content-length'] !== undefined || /chunked/i.test(r.headers['transfer-encoding'] ?? ''))) finish(false, null);
    });
    sock.on('error', (e: NodeJS.ErrnoException) => finish(true, e.code ?? e.message));
    sock.on('close', () => finish(true, null));
    sock.write(data);
  });
}

/** A connection kept open by the test; `read()` waits for the next complete response. */
export class RawConnection {
  readonly sock: net.Socket;
  closed = false;
  error: string | null = null;
  private waiters: (() => void)[] = [];
  readonly connected: Promise<void>;

  constructor(port: number) {
    this.sock = net.connect(port, '127.0.0.1');
    this.connected = new Promise((resolve, reject) => {
      this.sock.once('connect', () => resolve());
      this.sock.once('error', reject);
    });
    this.connected.catch(() => {});
    this.sock.on('data', (d: Buffer) => {
      this.chunks.push(d);
      this.size += d.length;
      if (this.size >= this.need) this.wake();
    });
    this.sock.on('error', (e: NodeJS.ErrnoException) => {
      this.error = e.code ?? e.message;
      this.wake();
    });
    this.sock.on('close', () => {
      this.closed = true;
      this.wake();
    });
  }

  private chunks: Buffer[] = [];
  private size = 0;
  /** Bytes needed before parsing again (avoids re-parsing a large body on every packet). */
  private need = 0;

  private buffer(): Buffer {
    if (this.chunks.length > 1) this.chunks = [Buffer.concat(this.chunks, this.size)];
    return this.chunks[0] ?? Buffer.alloc(0);
  }

  private consume(n: number): void {
    const rest = this.buffer().subarray(n);
    this.chunks = rest.length ? [rest] : [];
    this.size = rest.length;
    this.need = 0;
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  write(data: string | Buffer): Promise<void> {
    return new Promise((resolve, reject) => this.sock.write(data, (err) => (err ? reject(err) : resolve())));
  }

  /** Waits for a complete response (Content-Length or chunked) or for the connection to close. */
  async read(timeoutMs = 20_000, opts: { head?: boolean } = {}): Promise<RawResponse | null> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      if (this.size >= this.need || this.closed) {
        const buf = this.buffer();
        const head = parseHead(buf);
        if (head && opts.head) {
          // A response to HEAD: headers only, whatever Content-Length says.
          this.consume(head.end);
          return { status: head.status, headers: head.headers, body: '' };
        }
        if (head && head.headers['content-length'] !== undefined) {
          const total = head.end + Number(head.headers['content-length']);
          if (buf.length >= total) {
            const r = parseResponse(buf)!;
            this.consume(total);
            return r;
          }
          this.need = total;
        } else if (head) {
          const r = parseResponse(buf);
          if (r && (/chunked/i.test(r.headers['transfer-encoding'] ?? '') || this.closed)) {
            this.consume(buf.length);
            return r;
          }
          this.need = this.size + 1;
        } else this.need = this.size + 1;
      }
      if (this.closed) return null;
      const left = end - Date.now();
      if (left <= 0) return null;
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  /** Resolves once the server has closed the connection (false on timeout). */
  async waitClosed(timeoutMs = 30_000): Promise<boolean> {
    const end = Date.now() + timeoutMs;
    while (!this.closed && Date.now() < end) {
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.max(1, end - Date.now()));
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
    return this.closed;
  }

  destroy(): void {
    this.sock.destroy();
  }
}

/** Can a TCP connection be opened to port? (false once the listener is closed) */
export function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

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

export async function waitFor<T>(fn: () => T | Promise<T>, what: string, timeoutMs = 20_000): Promise<NonNullable<T>> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v as NonNullable<T>;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Every file below dir, recursively ([] when dir does not exist). */
export { filesUnder } from './node.js';

export async function tempDir(prefix = 'dp-http-'): Promise<string> {
  return fs.mkdtemp(path.join(os.tmpdir(), prefix));
}

export interface ChildNode {
  child: ChildProcess;
  port: number;
  url: string;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (or signal name) when the process ends. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(): void;
}

/** The compiled CLI entry (`npm run build` first). */
export function cliEntry(): string {
  return path.join(REPO_ROOT, 'dist/bin.js');
}

/** Spawns `node dist/bin.js serve` and waits for /health/live. */
export async function spawnServe(env: Record<string, string>, args: string[] = []): Promise<ChildNode> {
  const port = Number(env.PORT ?? (await freePort()));
  const child = spawn(process.execPath, [cliEntry(), 'serve', ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })),
  );
  let gone = false;
  void exited.then(() => (gone = true));
  const url = `http://127.0.0.1:${port}`;
  const node: ChildNode = {
    child,
    port,
    url,
    stdout: () => out,
    stderr: () => err,
    exited,
    kill: () => {
      if (!gone) child.kill('SIGKILL');
    },
  };
  try {
    await waitFor(
      async () => {
        if (gone) throw new Error(`docparse exited during start:\n${err}\n${out}`);
        return fetch(`${url}/health/live`).then(
          (r) => r.ok,
          () => false,
        );
      },
      'the child node to serve /health/live',
      90_000,
    );
  } catch (e) {
    node.kill();
    throw e;
  }
  return node;
}
