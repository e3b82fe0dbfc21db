// The uWS front over real HTTP: routing, typed query parsing, bodies, problem responses,
// request ids, access logs, streamed responses, aborts, header limits and draining.
import fs from 'node:fs/promises';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { pino } from 'pino';
import { HttpServer } from '../../src/http/server.js';
import { testRoutes, type TestHooks } from './routes.js';
import { RawConnection, canConnect, filesUnder, freePort, rawRequest, sleep, startTestServer, tempDir, waitFor, type TestServer } from '../helpers/http.js';

// Real sockets and processes: independent of the runner's default timeouts.
vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let blobDir: string;
let srv: TestServer;
const logLines: Record<string, unknown>[] = [];
const hooks: TestHooks = {};

beforeAll(async () => {
  blobDir = await tempDir();
  const sink = new Writable({
    write(chunk, _enc, cb) {
      for (const line of String(chunk).split('\n')) if (line.trim()) logLines.push(JSON.parse(line));
      cb();
    },
  });
  srv = await startTestServer(testRoutes(blobDir, hooks), { logger: pino({ level: 'info' }, sink) });
});

afterAll(async () => {
  await srv?.close();
  await fs.rm(blobDir, { recursive: true, force: true });
});

async function problem(res: Response, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toBe('application/problem+json');
  const body = (await res.json()) as Record<string, unknown>;
  expect(body).toMatchObject({ status, code, type: expect.stringContaining(code), title: expect.any(String) });
  expect(body.requestId).toBe(res.headers.get('x-request-id'));
  return body;
}

async function stillServing() {
  const res = await fetch(`${srv.url}/items?limit=1`);
  expect(res.status).toBe(200);
}

describe('routing', () => {
  it('parses typed query parameters: integer, boolean, case-insensitive enum, string', async () => {
    const res = await fetch(`${srv.url}/items?limit=5&verbose=true&sort=DESC&name=a%20b`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.json()).toEqual({
      query: { limit: 5, verbose: true, sort: 'desc', name: 'a b' },
      types: { limit: 'number', verbose: 'boolean', sort: 'string', name: 'string' },
    });
    const off = await (await fetch(`${srv.url}/items?verbose=0`)).json();
    expect(off).toMatchObject({ query: { verbose: false } });
  });

  it('matches path parameters (decoded) and prefers static segments', async () => {
    expect(await (await fetch(`${srv.url}/items/abc%20d%C3%A9f`)).json()).toEqual({ id: 'abc déf' });
    expect(await (await fetch(`${srv.url}/items/special`)).json()).toEqual({ special: true });
    expect(await (await fetch(`${srv.url}/items/x1/parts/p2`)).json()).toEqual({ id: 'x1', part: 'p2' });
  });

  it('validates path parameters against their schema', async () => {
    const body = await problem(await fetch(`${srv.url}/items/${'a'.repeat(41)}`), 400, 'invalid_parameter');
    expect(body.parameter).toBe('id');
  });

  it('unknown route → 404 problem', async () => {
    const res = await fetch(`${srv.url}/nope/deeper`);
    const body = await problem(res, 404, 'not_found');
    expect(body.instance).toBe('/nope/deeper');
  });

  it('wrong method → 405 problem with Allow', async () => {
    const res = await fetch(`${srv.url}/items`, { method: 'DELETE' });
    await problem(res, 405, 'method_not_allowed');
    const allow = res.headers.get('allow')!.split(/,\s*/);
    expect(allow).toContain('GET');
    expect(allow).not.toContain('DELETE');
    const res2 = await fetch(`${srv.url}/echo`, { method: 'GET' });
    await problem(res2, 405, 'method_not_allowed');
    expect(res2.headers.get('allow')).toContain('POST');
  });

  it('HEAD answers like GET without a body, and the connection stays usable', async () => {
    const res = await fetch(`${srv.url}/items?limit=2`, { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
    const c = new RawConnection(srv.port);
    await c.connected;
    await c.write('HEAD /items?limit=2 HTTP/1.1\r\nHost: x\r\n\r\n');
    const h = await c.read(10_000, { head: true });
    expect(h?.status).toBe(200);
    expect(Number(h?.headers['content-length'])).toBe(JSON.stringify({ query: { limit: 2 }, types: { limit: 'number' } }).length);
    await sleep(100);
    await c.write('GET /items?limit=3 HTTP/1.1\r\nHost: x\r\n\r\n');
    const r = await c.read(10_000);
    expect(r?.status).toBe(200);
    expect(JSON.parse(r!.body).query.limit).toBe(3);
    c.destroy();
  });

  it('OPTIONS preflight lists the methods of the path', async () => {
    const res = await fetch(`${srv.url}/echo`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-methods')).toContain('POST');
    expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example');
  });

  it('a bearer route without an authenticator is a 503 problem, not a crash', async () => {
    await problem(await fetch(`${srv.url}/private`), 503, 'service_unavailable');
  });

  it('a reply that cannot be serialised is a 500 problem, and the process keeps serving', async () => {
    await problem(await fetch(`${srv.url}/unserialisable`), 500, 'internal_error');
    await waitFor(() => srv.server.activeRequests === 0, 'the request to be counted finished');
    await stillServing();
  });

  it('an unhandled error is a 500 problem that does not leak the message', async () => {
    const res = await fetch(`${srv.url}/boom`);
    const body = await problem(res, 500, 'internal_error');
    expect(JSON.stringify(body)).not.toContain('secret internal detail');
    await stillServing();
  });
});

describe('malformed query → 400 invalid_parameter naming the parameter', () => {
  const cases: [string, string][] = [
    ['limit=abc', 'limit'],
    ['limit=1.5', 'limit'],
    ['limit=0', 'limit'],
    ['limit=1000', 'limit'],
    ['verbose=maybe', 'verbose'],
    ['sort=sideways', 'sort'],
    ['name=' + 'x'.repeat(21), 'name'],
    ['limit=1&limit=2', 'limit'],
    ['unknownThing=1', 'unknownThing'],
  ];
  for (const [qs, param] of cases) {
    it(`?${qs.slice(0, 40)}`, async () => {
      const body = await problem(await fetch(`${srv.url}/items?${qs}`), 400, 'invalid_parameter');
      expect(body.parameter).toBe(param);
      expect(body.detail).toContain(param);
    });
  }

  it('an enum error lists the allowed values', async () => {
    const body = await problem(await fetch(`${srv.url}/items?sort=sideways`), 400, 'invalid_parameter');
    expect(body.allowed).toEqual(['asc', 'desc']);
  });

  it('a route without a query schema refuses any query parameter', async () => {
    const body = await problem(await fetch(`${srv.url}/items/special?x=1`), 400, 'invalid_parameter');
    expect(body.parameter).toBe('x');
  });
});

describe('JSON bodies', () => {
  const post = (body: string, ct = 'application/json') => fetch(`${srv.url}/echo`, { method: 'POST', headers: { 'content-type': ct }, body });

  it('accepts a valid body', async () => {
    const res = await post(JSON.stringify({ name: 'n', count: 2 }));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ body: { name: 'n', count: 2 } });
  });

  it('malformed JSON → 400 naming the body', async () => {
    const b = await problem(await post('{"name":'), 400, 'invalid_parameter');
    expect(b.parameter).toBe('body');
  });

  it('schema violations name the field', async () => {
    expect((await problem(await post('{"name":"n","count":"x"}'), 400, 'invalid_parameter')).parameter).toBe('count');
    expect((await problem(await post('{"count":1}'), 400, 'invalid_parameter')).parameter).toBe('name');
    expect((await problem(await post('{"name":"n","extra":1}'), 400, 'invalid_parameter')).parameter).toBe('extra');
  });

  it('an empty body → 400 naming the body', async () => {
    const res = await fetch(`${srv.url}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' } });
    expect((await problem(res, 400, 'invalid_parameter')).parameter).toBe('body');
  });

  it('wrong content type → 415; too large → 413', async () => {
    await problem(await post('name=n', 'text/plain'), 415, 'unsupported_media_type');
    // One code for every 413, a JSON body's as a document's (issue 18), naming the limit.
    const tooLarge = await problem(await post(JSON.stringify({ name: 'x'.repeat(5000) })), 413, 'document_too_large');
    expect(tooLarge.maxBytes).toBe(1024);
    await stillServing();
  });
});

describe('bad input on raw sockets', () => {
  it('a body on GET → 400 invalid_parameter, and the server keeps serving', async () => {
    const r = await rawRequest(srv.port, 'GET /items HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello');
    expect(r.response?.status).toBe(400);
    const body = JSON.parse(r.response!.body);
    expect(body).toMatchObject({ code: 'invalid_parameter', parameter: 'body' });
    await stillServing();
  });

  it('a chunked body on GET → 400 as well', async () => {
    const r = await rawRequest(srv.port, 'GET /items HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n');
    expect(r.response?.status).toBe(400);
    expect(JSON.parse(r.response!.body)).toMatchObject({ parameter: 'body' });
  });

  it('a malformed request line gets a clean close and the server keeps serving', async () => {
    const r = await rawRequest(srv.port, 'THIS IS NOT HTTP\r\n\r\n');
    expect(r.closed || (r.response !== null && r.response.status >= 400)).toBe(true);
    await stillServing();
  });

  it('keep-alive: several requests on one connection', async () => {
    const c = new RawConnection(srv.port);
    await c.connected;
    for (let i = 0; i < 3; i++) {
      await c.write(`GET /items?limit=${i + 1} HTTP/1.1\r\nHost: x\r\n\r\n`);
      const r = await c.read();
      expect(r?.status).toBe(200);
      expect(JSON.parse(r!.body).query.limit).toBe(i + 1);
    }
    c.destroy();
  });
});

describe('request ids', () => {
  it('a well-formed X-Request-Id is echoed in the header and in problems', async () => {
    const res = await fetch(`${srv.url}/nope`, { headers: { 'x-request-id': 'abc-123.DEF_4:5' } });
    expect(res.headers.get('x-request-id')).toBe('abc-123.DEF_4:5');
    expect((await res.json()).requestId).toBe('abc-123.DEF_4:5');
  });

  it('a missing one is generated', async () => {
    const res = await fetch(`${srv.url}/items`);
    expect(res.headers.get('x-request-id')).toMatch(UUID);
  });

  for (const garbage of ['has spaces in it', '<script>alert(1)</script>', 'x'.repeat(129), '"quoted"', 'ünïcode']) {
    it(`garbage X-Request-Id ${JSON.stringify(garbage.slice(0, 20))} is replaced by a generated one`, async () => {
      const r = await rawRequest(srv.port, Buffer.from(`GET /nope HTTP/1.1\r\nHost: x\r\nX-Request-Id: ${garbage}\r\n\r\n`, 'utf8'));
      expect(r.response?.status).toBe(404);
      const id = r.response!.headers['x-request-id'];
      expect(id).toMatch(UUID);
      expect(JSON.parse(r.response!.body).requestId).toBe(id);
    });
  }
});

describe('access log', () => {
  it('writes one structured line per request with id, method, path, status, duration, bytes', async () => {
    const res = await fetch(`${srv.url}/items?limit=3`, { headers: { 'x-request-id': 'log-check-1' } });
    await res.text();
    const line = await waitFor(() => logLines.find((l) => l.requestId === 'log-check-1' && l.msg === 'request'), 'the access log line');
    expect(line).toMatchObject({ method: 'GET', path: '/items', status: 200, level: 30, remote: '127.0.0.1' });
    expect(typeof line.ms).toBe('number');
    expect(line.bytesOut).toBeGreaterThan(0);
  });

  it('logs unhandled errors with the request id', async () => {
    await (await fetch(`${srv.url}/boom`, { headers: { 'x-request-id': 'log-boom-1' } })).text();
    const line = await waitFor(() => logLines.find((l) => l.requestId === 'log-boom-1' && l.level === 50), 'the error log line');
    expect(JSON.stringify(line)).toContain('secret internal detail');
  });
});

describe('raw request bodies', () => {
  it('streams an upload to disk with the right size and hash', async () => {
    const data = Buffer.alloc(3 * 1024 * 1024 + 17);
    for (let i = 0; i < data.length; i++) data[i] = (i * 31) & 0xff;
    const res = await fetch(`${srv.url}/blobs/ok1`, { method: 'POST', body: data });
    expect(res.status).toBe(201);
    const r = (await res.json()) as { bytes: number; sha256: string };
    expect(r.bytes).toBe(data.length);
    expect(r.sha256).toBe(createHash('sha256').update(data).digest('hex'));
    expect((await fs.readFile(path.join(blobDir, 'uploads/ok1'))).equals(data)).toBe(true);
  });

  it('accepts a chunked upload', async () => {
    const parts = [Buffer.from('hello '), Buffer.from('chunked '), Buffer.from('world')];
    const stream = new ReadableStream({
      start(c) {
        for (const p of parts) c.enqueue(p);
        c.close();
      },
    });
    const res = await fetch(`${srv.url}/blobs/chunked1`, { method: 'POST', body: stream, duplex: 'half' } as RequestInit);
    expect(res.status).toBe(201);
    expect(await fs.readFile(path.join(blobDir, 'uploads/chunked1'), 'utf8')).toBe('hello chunked world');
  });

  it('backpressure: the server does not buffer a body its handler is not reading', async () => {
    let release!: () => void;
    hooks.holdUpload = new Promise<void>((r) => (release = r));
    let received: (() => number) | null = null;
    hooks.uploadStarted = (fn) => (received = fn);
    try {
      const total = 64 * 1024 * 1024;
      const c = new RawConnection(srv.port);
      await c.connected;
      await c.write(`POST /blobs/bp1 HTTP/1.1\r\nHost: x\r\nContent-Length: ${total}\r\n\r\n`);
      const chunk = Buffer.alloc(1024 * 1024, 7);
      let sent = 0;
      const pump = (async () => {
        while (sent < total) {
          const ok = c.sock.write(chunk);
          sent += chunk.length;
          if (!ok) await new Promise((r) => c.sock.once('drain', r));
        }
      })();
      await waitFor(() => received, 'the upload handler to start');
      // Give the client every chance to push the whole body while the handler is not reading.
      await sleep(1500);
      expect(received!()).toBeLessThan(16 * 1024 * 1024);
      expect(sent).toBeLessThan(total);
      release();
      // Now the handler reads: the rest of the body goes through.
      await pump;
      const r = await c.read(60_000);
      expect(r?.status).toBe(201);
      expect(JSON.parse(r!.body).bytes).toBe(total);
      c.destroy();
    } finally {
      hooks.holdUpload = undefined;
      hooks.uploadStarted = undefined;
      release?.();
    }
  });

  it('a client that disconnects mid-body leaves no partial file, and the server keeps serving', async () => {
    const dir = path.join(blobDir, 'uploads');
    const before = new Set(await filesUnder(dir));
    const c = new RawConnection(srv.port);
    await c.connected;
    await c.write(`POST /blobs/aborted1 HTTP/1.1\r\nHost: x\r\nX-Request-Id: abort-1\r\nContent-Length: ${50 * 1024 * 1024}\r\n\r\n`);
    await c.write(Buffer.alloc(2 * 1024 * 1024, 1));
    // The partial file exists while the upload is in flight (so the check below can fail)...
    await waitFor(async () => (await filesUnder(dir)).some((f) => !before.has(f) && f.includes('aborted1')), 'the partial upload file');
    c.destroy();
    // ...and is gone once the client has gone.
    await waitFor(async () => !(await filesUnder(dir)).some((f) => !before.has(f)), 'the partial file to be removed');
    expect(await filesUnder(dir)).toEqual([...before]);
    const line = await waitFor(() => logLines.find((l) => l.requestId === 'abort-1'), 'the aborted request log line');
    expect(line.aborted).toBe(true);
    await waitFor(() => srv.server.activeRequests === 0, 'active requests to drop to 0');
    await stillServing();
  });

  it('a disconnect before the handler reads anything leaves nothing either', async () => {
    const dir = path.join(blobDir, 'uploads');
    const before = (await filesUnder(dir)).sort();
    for (let i = 0; i < 5; i++) {
      const c = new RawConnection(srv.port);
      await c.connected;
      await c.write(`POST /blobs/early${i} HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\nabc`);
      c.destroy();
    }
    await waitFor(() => srv.server.activeRequests === 0, 'active requests to drop to 0');
    await sleep(200);
    expect((await filesUnder(dir)).sort()).toEqual(before);
    await stillServing();
  });
});

describe('streamed responses', () => {
  it('streams a body with a known length to a slow reader, then counts the request finished', async () => {
    const size = 24 * 1024 * 1024;
    const c = new RawConnection(srv.port);
    await c.connected;
    c.sock.pause();
    await c.write(`GET /stream/${size}?chunk=${4 * 1024 * 1024} HTTP/1.1\r\nHost: x\r\n\r\n`);
    await sleep(500);
    c.sock.resume();
    const r = await c.read(60_000);
    expect(r?.status).toBe(200);
    expect(Number(r!.headers['content-length'])).toBe(size);
    expect(r!.body).toBe('x'.repeat(size));
    c.destroy();
    await waitFor(() => srv.server.activeRequests === 0, 'the streamed request to be counted finished');
  });

  it('streams a chunked body of unknown length', async () => {
    const res = await fetch(`${srv.url}/stream/300000?chunked=true`);
    expect(res.status).toBe(200);
    expect((await res.arrayBuffer()).byteLength).toBe(300000);
  });

  it('an empty stream with length 0 completes', async () => {
    const r = await rawRequest(srv.port, 'GET /stream/0 HTTP/1.1\r\nHost: x\r\n\r\n', 5000);
    expect(r.response?.status).toBe(200);
    expect(r.response?.body).toBe('');
    await waitFor(() => srv.server.activeRequests === 0, 'the request to be counted finished');
  });

  it('HEAD on a streamed route sends headers only, keeping the connection usable', async () => {
    const c = new RawConnection(srv.port);
    await c.connected;
    await c.write('HEAD /stream/1000 HTTP/1.1\r\nHost: x\r\n\r\n');
    const h = await c.read(10_000, { head: true });
    expect(h?.status).toBe(200);
    expect(h?.headers['content-length']).toBe('1000');
    await sleep(200);
    await c.write('GET /items?limit=4 HTTP/1.1\r\nHost: x\r\n\r\n');
    const r = await c.read(10_000);
    expect(r?.status).toBe(200);
    expect(JSON.parse(r!.body).query.limit).toBe(4);
    c.destroy();
    await waitFor(() => srv.server.activeRequests === 0, 'the request to be counted finished');
  });

  it('a client that goes away mid-download does not leak an active request', async () => {
    const c = new RawConnection(srv.port);
    await c.connected;
    c.sock.pause();
    await c.write(`GET /stream/${64 * 1024 * 1024} HTTP/1.1\r\nHost: x\r\n\r\n`);
    await sleep(300);
    c.destroy();
    await waitFor(() => srv.server.activeRequests === 0, 'active requests to drop to 0');
    await stillServing();
  });
});

describe('limits', () => {
  it('a header block over maxHeaderBytes → 431 (or a clean close); the server keeps serving', async () => {
    const small = await startTestServer(testRoutes(blobDir), { maxHeaderBytes: 4096 });
    try {
      const r = await rawRequest(small.port, `GET /items HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(10 * 1024)}\r\n\r\n`);
      if (r.response) {
        expect(r.response.status).toBe(431);
        expect(JSON.parse(r.response.body)).toMatchObject({ status: 431, code: 'headers_too_large' });
      } else expect(r.closed).toBe(true);
      // Headers split over several packets take another path through the parser.
      const c = new RawConnection(small.port);
      await c.connected;
      await c.write(`GET /items HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(1000)}`);
      await sleep(100);
      await c.write('c'.repeat(9000) + '\r\n\r\n');
      const r2 = await c.read();
      expect(r2 === null ? c.closed : r2.status === 431).toBe(true);
      c.destroy();
      // Within the limit: fine.
      const ok = await fetch(`${small.url}/items`, { headers: { 'x-big': 'a'.repeat(2000) } });
      expect(ok.status).toBe(200);
    } finally {
      await small.close();
    }
  });

  it('an idle connection that sent half a request is closed by the server', async () => {
    const c = new RawConnection(srv.port);
    await c.connected;
    await c.write('GET /items HTTP/1.1\r\nHost: x\r\n');
    expect(await c.waitClosed(45_000)).toBe(true);
    c.destroy();
    await stillServing();
  });
});

describe('listen', () => {
  it('refuses a port another server already listens on, rather than sharing its connections', async () => {
    // An explicit port, as a node's PORT is (a port the kernel picked for the first is never shared anyway).
    const port = await freePort();
    const first = await startTestServer(testRoutes(blobDir, hooks), { port });
    const second = new HttpServer({ logger: pino({ level: 'silent' }), maxHeaderBytes: 16 * 1024, trustProxy: false });
    try {
      await expect(second.listen('127.0.0.1', port)).rejects.toThrow(`could not listen on 127.0.0.1:${port}`);
      // Every connection still reaches the first (the second, with no routes, would answer 404).
      for (let i = 0; i < 8; i++) expect((await fetch(`${first.url}/items`)).status).toBe(200);
    } finally {
      await second.drain(100);
      await first.close();
    }
  });
});

describe('drain', () => {
  it('stops accepting, lets the in-flight upload finish, then closes', async () => {
    const s = await startTestServer(testRoutes(blobDir));
    const c = new RawConnection(s.port);
    await c.connected;
    const total = 1024 * 1024;
    await c.write(`POST /blobs/drain1 HTTP/1.1\r\nHost: x\r\nContent-Length: ${total}\r\n\r\n`);
    await c.write(Buffer.alloc(total / 2, 3));
    await waitFor(() => s.server.activeRequests === 1, 'the upload to be in flight');
    let drained = false;
    const draining = s.server.drain(30_000).then(() => (drained = true));
    await waitFor(async () => !(await canConnect(s.port)), 'the listener to close');
    expect(s.server.accepting).toBe(false);
    expect(drained).toBe(false);
    await c.write(Buffer.alloc(total / 2, 3));
    const r = await c.read();
    expect(r?.status).toBe(201);
    expect(JSON.parse(r!.body).bytes).toBe(total);
    await draining;
    expect(await c.waitClosed(10_000)).toBe(true);
  });

  it('waits for a handler still running after its client went away', async () => {
    // The node closes its job store once drain resolves: a handler that outlives its client
    // (an upload being recorded) must finish first, or its record is left half-written.
    let release!: () => void;
    const hold = new Promise<void>((r) => (release = r));
    let started = false;
    const s = await startTestServer(testRoutes(blobDir, { holdUpload: hold, uploadStarted: () => (started = true) }));
    const c = new RawConnection(s.port);
    await c.connected;
    await c.write(`POST /blobs/drain2 HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n`);
    await c.write(Buffer.alloc(100, 1));
    await waitFor(() => started, 'the handler to start');
    c.destroy();
    await waitFor(() => s.server.activeRequests === 0, 'the exchange to end with its client');
    let drained = false;
    const draining = s.server.drain(30_000).then(() => (drained = true));
    await sleep(300);
    expect(drained).toBe(false);
    release();
    await draining;
    expect(drained).toBe(true);
  });
});
