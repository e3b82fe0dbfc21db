// `docparse serve` as a real process: header limit from DOCPARSE_MAX_HEADER_BYTES, bad input
// that must not take it down, and graceful shutdown on SIGTERM.
import fs from 'node:fs/promises';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  REPO_ROOT,
  RawConnection,
  canConnect,
  cliEntry,
  freePort,
  filesUnder,
  rawRequest,
  sleep,
  spawnServe,
  tempDir,
  waitFor,
  type ChildNode,
} from '../helpers/http.js';

// Real sockets and processes: independent of the runner's default timeouts.
vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

const CLIENT_ID = 'proc-demo';
const CLIENT_SECRET = 'proc-demo-secret-0123456789';

let dataDir: string;
let node: ChildNode;

beforeAll(async () => {
  dataDir = await tempDir('dp-proc-');
  node = await spawnServe({
    DOCPARSE_DATA_DIR: dataDir,
    DOCPARSE_MAX_HEADER_BYTES: '4096',
    DOCPARSE_WORKER_THREADS: '1',
    DOCPARSE_DEMO_CLIENT_ID: CLIENT_ID,
    DOCPARSE_DEMO_CLIENT_SECRET: CLIENT_SECRET,
    DOCPARSE_SHUTDOWN_GRACE_SECONDS: '30',
    LOG_LEVEL: 'warn',
  });
});

afterAll(async () => {
  node?.kill();
  await fs.rm(dataDir, { recursive: true, force: true });
});

async function token(): Promise<string> {
  const res = await fetch(`${node.url}/connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'Service.API', client_id: CLIENT_ID, client_secret: CLIENT_SECRET }),
  });
  const body = (await res.json()) as { access_token?: string };
  if (!body.access_token) throw new Error(`no token: ${res.status} ${JSON.stringify(body)}`);
  return body.access_token;
}

describe('docparse serve process', () => {
  it('refuses a 10 KB header block with DOCPARSE_MAX_HEADER_BYTES=4096 (431 or close), then serves normally', async () => {
    const r = await rawRequest(node.port, `GET /health/live HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(10 * 1024)}\r\n\r\n`);
    if (r.response) {
      expect(r.response.status).toBe(431);
      expect(r.response.headers['content-type']).toBe('application/problem+json');
      expect(JSON.parse(r.response.body)).toMatchObject({ status: 431, code: 'headers_too_large', requestId: expect.any(String) });
    } else {
      expect(r.closed).toBe(true);
    }
    const ok = await fetch(`${node.url}/health/live`, { headers: { 'x-note': 'n'.repeat(1000) } });
    expect(ok.status).toBe(200);
  });

  it('survives a burst of bad input: garbage, body on GET, bad ids, aborted uploads; nothing left on disk', async () => {
    const t = await token();
    const bad = [
      'NOT HTTP AT ALL\r\n\r\n',
      'GET /health/live HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nbody',
      'GET /health/ready?x=1 HTTP/1.1\r\nHost: x\r\n\r\n',
      'GET /health/live HTTP/1.1\r\nHost: x\r\nX-Request-Id: <garbage id>\r\n\r\n',
      'GET /nope HTTP/1.1\r\nHost: x\r\nContent-Length: 999999999\r\n\r\nabc',
    ];
    await Promise.all(bad.map((b) => rawRequest(node.port, b, 3000)));
    for (let i = 0; i < 5; i++) {
      const c = new RawConnection(node.port);
      await c.connected;
      await c.write(
        `POST /api/v1/documents/upload?fileName=x${i}.csv&csvRoute=Tabular HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t}\r\nContent-Length: 5000000\r\n\r\n`,
      );
      await c.write(Buffer.from('a,b,c\n'.repeat(50_000)));
      await sleep(50);
      c.destroy();
    }
    await waitFor(async () => {
      const s = (await (await fetch(`${node.url}/health/node-state`)).json()) as { activeRequests: number };
      return s.activeRequests === 1;
    }, 'aborted uploads to be finished');
    await sleep(300);
    expect(await filesUnder(path.join(dataDir, 'blobs'))).toEqual([]);
    expect((await fetch(`${node.url}/health/live`)).status).toBe(200);
  });

  it('SIGTERM: stops accepting, finishes the in-flight upload, closes idle connections, exits 0', async () => {
    const t = await token();
    // An idle keep-alive connection that must not hold the shutdown up.
    const idle = new RawConnection(node.port);
    await idle.connected;
    await idle.write('GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n');
    expect((await idle.read())?.status).toBe(200);

    const body = Buffer.from('id,name\n' + Array.from({ length: 20_000 }, (_, i) => `${i},name${i}`).join('\n') + '\n');
    const half = Math.floor(body.length / 2);
    const up = new RawConnection(node.port);
    await up.connected;
    await up.write(
      `POST /api/v1/documents/upload?fileName=shutdown.csv&csvRoute=Tabular HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t}\r\nContent-Type: text/csv\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    await up.write(body.subarray(0, half));
    await waitFor(async () => {
      const s = (await (await fetch(`${node.url}/health/node-state`)).json()) as { activeRequests: number };
      return s.activeRequests >= 2;
    }, 'the upload to be in flight');

    node.child.kill('SIGTERM');
    await waitFor(async () => !(await canConnect(node.port)), 'the listener to close after SIGTERM');
    let exited = false;
    void node.exited.then(() => (exited = true));
    await sleep(500);
    expect(exited).toBe(false); // still finishing the upload

    // Keep streaming the in-flight body slowly; it completes with a real response.
    for (let at = half; at < body.length; at += 16 * 1024) {
      await up.write(body.subarray(at, Math.min(at + 16 * 1024, body.length)));
      await sleep(20);
    }
    const res = await up.read(30_000);
    expect(res, `no response to the in-flight upload; stderr:\n${node.stderr()}`).not.toBeNull();
    expect([202, 415]).toContain(res!.status);
    if (res!.status === 202) expect(JSON.parse(res!.body)).toMatchObject({ documentId: expect.any(String), statusInt: expect.any(Number) });

    const { code, signal } = await node.exited;
    expect(signal).toBeNull();
    expect(code).toBe(0);
    expect(await idle.waitClosed(5000)).toBe(true);
    expect(node.stderr()).not.toMatch(/Error|uncaught/i);
  });
});

describe('native uWS required', () => {
  it('refuses to start on the pure-JS fallback server', async () => {
    const dir = await tempDir('dp-fallback-');
    const port = await freePort();
    try {
      const child = spawn(process.execPath, [cliEntry(), 'serve'], {
        cwd: REPO_ROOT,
        env: { ...process.env, UWS_USE_FALLBACK: '1', PORT: String(port), DOCPARSE_DATA_DIR: dir, DOCPARSE_WORKER_THREADS: '1', LOG_LEVEL: 'warn' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout!.on('data', (d) => (out += d));
      child.stderr!.on('data', (d) => (out += d));
      const code = await new Promise<number | null>((r) => child.once('close', (c) => r(c)));
      expect(code).not.toBe(0);
      expect(out).toMatch(/native binary did not load/);
      expect(await canConnect(port)).toBe(false);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
