// Request bodies that arrive too slowly, on raw sockets: uWS drops such a connection without
// a word 8–12 s after its body timer starts (and restarts that timer only per 160 KiB); the
// front answers 408 request_timeout first and the handler's partial file is removed.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { pino } from 'pino';
import { HttpServer } from '../../src/http/server.js';
import { testRoutes, type TestHooks } from './routes.js';
import { RawConnection, filesUnder, sleep, startTestServer, tempDir, waitFor, type TestServer } from '../helpers/http.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

let blobDir: string;
let srv: TestServer;
const hooks: TestHooks = {};

beforeAll(async () => {
  blobDir = await tempDir('dp-slow-');
  srv = await startTestServer(testRoutes(blobDir, hooks));
});
afterAll(async () => {
  await srv?.close();
  await fs.rm(blobDir, { recursive: true, force: true });
});

const uploads = () => filesUnder(path.join(blobDir, 'uploads'));

/** The 408 problem, with Connection: close, then the close itself. */
async function timedOut(c: RawConnection) {
  const r = await c.read(30_000);
  expect(r?.status).toBe(408);
  expect(r!.headers['content-type']).toBe('application/problem+json');
  expect(r!.headers.connection).toBe('close');
  expect(JSON.parse(r!.body)).toMatchObject({ status: 408, code: 'request_timeout', requestId: r!.headers['x-request-id'] });
  expect(await c.waitClosed(10_000)).toBe(true);
}

async function stillServing(port: number) {
  const res = await fetch(`http://127.0.0.1:${port}/items?limit=1`);
  expect(res.status).toBe(200);
}

describe('slow request bodies (default limits)', () => {
  it('headers and a few bytes, then silence → 408 problem, then the connection closes; the partial file is gone', async () => {
    const c = new RawConnection(srv.port);
    await c.connected;
    await c.write(`POST /blobs/slow1 HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n`);
    await c.write(Buffer.alloc(20_000, 1));
    // The handler is writing the body to disk (so there is something to remove)...
    await waitFor(async () => (await uploads()).some((f) => f.includes('slow1')), 'the partial upload file');
    await timedOut(c);
    c.destroy();
    // ...and nothing of it is left.
    await waitFor(async () => !(await uploads()).some((f) => f.includes('slow1')), 'the partial file to be removed');
    await waitFor(() => srv.server.activeRequests === 0, 'no request in flight');
    await stillServing(srv.port);
  });

  it('a body trickling in (a few bytes a second, which uWS does not count as progress) → 408 as well', async () => {
    const c = new RawConnection(srv.port);
    await c.connected;
    await c.write(`POST /blobs/trickle1 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n`);
    let stop = false;
    const trickle = (async () => {
      while (!stop && !c.closed) {
        await c.write('5\r\nabcde\r\n').catch(() => {});
        await sleep(500);
      }
    })();
    await timedOut(c);
    stop = true;
    await trickle;
    c.destroy();
    await waitFor(async () => !(await uploads()).some((f) => f.includes('trickle1')), 'no partial file');
  });
});

describe('slow request bodies (1 s limit)', () => {
  let quick: HttpServer;
  let port: number;
  beforeAll(async () => {
    quick = new HttpServer({ logger: pino({ level: 'silent' }), maxHeaderBytes: 16 * 1024, trustProxy: false, slowBodyTimeoutMs: 1000 });
    for (const r of testRoutes(blobDir, hooks)) quick.add(r);
    port = await quick.listen('127.0.0.1', 0);
  });
  afterAll(async () => {
    await quick?.drain(1000);
  });

  it('a JSON body that stops halfway → 408', async () => {
    const c = new RawConnection(port);
    await c.connected;
    await c.write('POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 30\r\n\r\n{"name":');
    await timedOut(c);
    c.destroy();
  });

  it('a body held back by its handler (backpressure) is not timed out: the client is not the slow one', async () => {
    let release!: () => void;
    hooks.holdUpload = new Promise<void>((r) => (release = r));
    let started = false;
    hooks.uploadStarted = () => (started = true);
    try {
      const total = 16 * 1024 * 1024;
      const c = new RawConnection(port);
      await c.connected;
      await c.write(`POST /blobs/held1 HTTP/1.1\r\nHost: x\r\nContent-Length: ${total}\r\n\r\n`);
      const pump = (async () => {
        const chunk = Buffer.alloc(1024 * 1024, 7);
        for (let sent = 0; sent < total && !c.closed; sent += chunk.length) {
          if (!c.sock.write(chunk)) await new Promise((r) => (c.sock.once('drain', r), c.sock.once('close', r)));
        }
      })();
      await waitFor(() => started, 'the upload handler to start');
      await sleep(2500); // well past the 1 s limit, with the socket paused by the server
      release();
      await pump;
      const r = await c.read(30_000);
      expect(r?.status).toBe(201);
      expect(JSON.parse(r!.body).bytes).toBe(total);
      c.destroy();
    } finally {
      hooks.holdUpload = undefined;
      hooks.uploadStarted = undefined;
      release?.();
    }
  });

  it('a body that keeps coming faster than 160 KiB per limit is not timed out', async () => {
    const c = new RawConnection(port);
    await c.connected;
    const chunk = Buffer.alloc(64 * 1024, 2);
    const n = 15; // 64 KiB every 200 ms: 3 s in all, 320 KiB/s
    await c.write(`POST /blobs/steady1 HTTP/1.1\r\nHost: x\r\nContent-Length: ${n * chunk.length}\r\n\r\n`);
    for (let i = 0; i < n; i++) {
      await c.write(chunk);
      await sleep(200);
    }
    const r = await c.read(30_000);
    expect(r?.status).toBe(201);
    expect(JSON.parse(r!.body).bytes).toBe(n * chunk.length);
    c.destroy();
    await stillServing(port);
  });
});
