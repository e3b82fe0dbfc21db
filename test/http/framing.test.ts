// Request framing on raw sockets (RFC 9112 §6.3): a request whose body length is in doubt is
// refused before any body byte reaches a handler, and its connection is closed; chunked
// bodies keep working. Some requests uWS 20.30 closes by itself, before we can answer.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Type } from '@sinclair/typebox';
import type { RouteDef } from '../../src/http/route.js';
import { RawConnection, startTestServer, type TestServer } from '../helpers/http.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

/** Keys of the requests whose handler ran, with the body each one read. */
const seen = new Map<string, string>();

const sink: RouteDef = {
  method: 'POST',
  path: '/sink/:key',
  operationId: 'sink',
  summary: 'reads the raw body',
  tags: ['t'],
  auth: 'public',
  params: Type.Object({ key: Type.String() }),
  body: { kind: 'raw', description: 'bytes' },
  responses: { 201: { description: 'read' } },
  handler: async (ctx) => {
    seen.set(ctx.params.key, '');
    const parts: Buffer[] = [];
    if (ctx.bodyStream) for await (const c of ctx.bodyStream) parts.push(c);
    const text = Buffer.concat(parts).toString('latin1');
    seen.set(ctx.params.key, text);
    return { status: 201, json: { text } };
  },
};

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer([sink]);
});
afterAll(async () => {
  await srv?.close();
});

const post = (key: string, headers: string[], body = '') => `POST /sink/${key} HTTP/1.1\r\nHost: x\r\n${headers.map((h) => `${h}\r\n`).join('')}\r\n${body}`;
const chunked = (...parts: string[]) => parts.map((p) => `${p.length.toString(16)}\r\n${p}\r\n`).join('') + '0\r\n\r\n';

/** Sends a request that must be refused: the problem, Connection: close, a closed socket. */
async function refused(data: string, status: number, code: string) {
  const c = new RawConnection(srv.port);
  await c.connected;
  await c.write(data);
  const r = await c.read(10_000);
  expect(r?.status).toBe(status);
  expect(r!.headers['content-type']).toBe('application/problem+json');
  expect(r!.headers.connection).toBe('close');
  const body = JSON.parse(r!.body) as Record<string, unknown>;
  expect(body).toMatchObject({ status, code, requestId: r!.headers['x-request-id'] });
  expect(await c.waitClosed(10_000)).toBe(true);
  c.destroy();
  return body;
}

/** Sends a request on a connection and reads the answer; the connection stays open. */
async function accepted(c: RawConnection, data: string) {
  await c.write(data);
  const r = await c.read(10_000);
  expect(r?.status).toBe(201);
  return (JSON.parse(r!.body) as { text: string }).text;
}

async function stillServing() {
  const c = new RawConnection(srv.port);
  await c.connected;
  expect(await accepted(c, post('alive', ['Content-Length: 2'], 'ok'))).toBe('ok');
  c.destroy();
}

describe('Content-Length', () => {
  it('two different values → 400 invalid_framing naming Content-Length, closed, the body read by no handler', async () => {
    const body = await refused(post('dup1', ['Content-Length: 3', 'Content-Length: 10'], 'abcdefghij'), 400, 'invalid_framing');
    expect(body.header).toBe('Content-Length');
    expect(body.detail).toContain('differing');
    await refused(post('dup2', ['Content-Length: 10', 'Content-Length: 3'], 'abcdefghij'), 400, 'invalid_framing');
    expect(seen.has('dup1') || seen.has('dup2')).toBe(false);
    await stillServing();
  });

  it('a request hidden after the first of two lengths is never served, and the connection is closed', async () => {
    // uWS frames by the first line (3 bytes) and parses the rest as the next request. With
    // that request in the same packet, uWS closes the connection before our 400 is written.
    const hidden = 'POST /sink/smuggled HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\nx';
    const c = new RawConnection(srv.port);
    await c.connected;
    await c.write(post('dup3', ['Content-Length: 3', `Content-Length: ${3 + hidden.length}`], `abc${hidden}`));
    const r = await c.read(10_000);
    if (r) expect(JSON.parse(r.body)).toMatchObject({ status: 400, code: 'invalid_framing' });
    expect(await c.waitClosed(10_000)).toBe(true);
    c.destroy();
    expect(seen.has('dup3') || seen.has('smuggled')).toBe(false);
    await stillServing();
  });

  it('identical repeated lines are one length (RFC 9112 allows it): accepted, and the connection stays usable', async () => {
    const c = new RawConnection(srv.port);
    await c.connected;
    expect(await accepted(c, post('same1', ['Content-Length: 5', 'Content-Length: 5'], 'hello'))).toBe('hello');
    expect(await accepted(c, post('same2', ['Content-Length: 3'], 'abc'))).toBe('abc');
    c.destroy();
  });

  it('an empty value → 400 invalid_framing (uWS reads it as 0 and the body as the next request)', async () => {
    const body = await refused(post('empty', ['Content-Length: '], 'hello'), 400, 'invalid_framing');
    expect(body.header).toBe('Content-Length');
    expect(seen.has('empty')).toBe(false);
  });

  it('values uWS cannot frame (a list in one line, a non-number, 10^9 or more) close the connection before any handler runs', async () => {
    // uWS 20.30 calls the request handler, then closes the socket and drops what was
    // written: our 400 cannot reach the client, but the handler never starts.
    const cases = ['5, 5', '5x', '+5', '1000000000'];
    for (const [i, v] of cases.entries()) {
      const c = new RawConnection(srv.port);
      await c.connected;
      await c.write(post(`unframed${i}`, [`Content-Length: ${v}`], 'hello'));
      const r = await c.read(10_000);
      if (r) {
        expect(r.status).toBe(400);
        expect(JSON.parse(r.body)).toMatchObject({ code: 'invalid_framing', header: 'Content-Length' });
      }
      expect(await c.waitClosed(10_000)).toBe(true);
      c.destroy();
    }
    expect(cases.some((_, i) => seen.has(`unframed${i}`))).toBe(false);
    await stillServing();
  });
});

describe('Content-Length with Transfer-Encoding', () => {
  it('both → 400 invalid_framing naming Transfer-Encoding, when uWS lets the request through', async () => {
    // An empty Transfer-Encoding is invisible to uWS, which frames by Content-Length.
    const body = await refused(post('clte1', ['Transfer-Encoding: ', 'Content-Length: 3'], 'abc'), 400, 'invalid_framing');
    expect(body.header).toBe('Transfer-Encoding');
    expect(seen.has('clte1')).toBe(false);
  });

  it('both with a coding → the connection is closed (by uWS itself, before any handler)', async () => {
    for (const [i, headers] of [
      ['Content-Length: 3', 'Transfer-Encoding: chunked'],
      ['Transfer-Encoding: chunked', 'Content-Length: 0'],
    ].entries()) {
      const c = new RawConnection(srv.port);
      await c.connected;
      await c.write(post(`clte-uws${i}`, headers, chunked('abc')));
      const r = await c.read(10_000);
      if (r) expect(r.status).toBe(400);
      expect(await c.waitClosed(10_000)).toBe(true);
      c.destroy();
    }
    expect(seen.has('clte-uws0') || seen.has('clte-uws1')).toBe(false);
  });
});

describe('Transfer-Encoding', () => {
  it('xchunked → 501 unsupported_transfer_coding, closed, the body read by no handler', async () => {
    const body = await refused(post('x1', ['Transfer-Encoding: xchunked'], chunked('abc')), 501, 'unsupported_transfer_coding');
    expect(body).toMatchObject({ header: 'Transfer-Encoding', coding: 'xchunked' });
    expect(seen.has('x1')).toBe(false);
    await stillServing();
  });

  it('any coding but chunked, wherever it is in the list → 501', async () => {
    const cases: [string[], string][] = [
      [['Transfer-Encoding: chunked, gzip'], 'gzip'],
      [['Transfer-Encoding: gzip, chunked'], 'gzip'],
      [['Transfer-Encoding: chunked', 'Transfer-Encoding: gzip'], 'gzip'],
      [['Transfer-Encoding: identity'], 'identity'],
    ];
    for (const [i, [headers, coding]] of cases.entries()) {
      expect(await refused(post(`te${i}`, headers, chunked('abc')), 501, 'unsupported_transfer_coding')).toMatchObject({ coding });
      expect(seen.has(`te${i}`)).toBe(false);
    }
  });

  it('chunked twice, or no coding at all → 400 invalid_framing', async () => {
    expect(await refused(post('twice', ['Transfer-Encoding: chunked, chunked'], chunked('abc')), 400, 'invalid_framing')).toMatchObject({
      header: 'Transfer-Encoding',
    });
    expect(await refused(post('none', ['Transfer-Encoding: ,'], chunked('abc')), 400, 'invalid_framing')).toMatchObject({ header: 'Transfer-Encoding' });
    expect(seen.has('twice') || seen.has('none')).toBe(false);
  });

  it('chunked (names are case-insensitive) still works, and the connection carries the next request', async () => {
    const c = new RawConnection(srv.port);
    await c.connected;
    expect(await accepted(c, post('ch1', ['Transfer-Encoding: chunked'], chunked('hello ', 'chunked ', 'world')))).toBe('hello chunked world');
    expect(await accepted(c, post('ch2', ['Transfer-Encoding: Chunked'], chunked('again')))).toBe('again');
    expect(await accepted(c, post('ch3', ['Content-Length: 4'], 'next'))).toBe('next');
    c.destroy();
  });
});
