// The upload endpoints of a real node on raw sockets: the plan's byte rate holds whatever the
// framing (a chunked body is counted as it streams and refused mid-stream), and an upload
// that stalls gets 408. Either way nothing is stored, queued or charged.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  createApp,
  createTestEnv,
  destroyTestEnv,
  filesUnder,
  getToken,
  startTestNode,
  waitFor,
  type Mode,
  type TestEnv,
  type TestNode,
} from '../helpers/node.js';
import { RawConnection, type RawResponse } from '../helpers/http.js';
import { monthOf } from '../../src/tenancy/month.js';

vi.setConfig({ testTimeout: 90_000, hookTimeout: 120_000 });

const CSV_CHUNK = 'a,b\n' + '1,2\n'.repeat(4095); // 16 KiB of CSV

/** Request head for a raw upload; `framing` is the Content-Length or Transfer-Encoding line. */
const head = (method: string, target: string, framing: string, token?: string) =>
  `${method} ${target} HTTP/1.1\r\nHost: x\r\n${token ? `Authorization: Bearer ${token}\r\n` : ''}${framing}\r\n\r\n`;

/**
 * Streams up to `total` bytes of CSV in 16 KiB pieces (chunked, or raw after a Content-Length)
 * until the server answers; ends a chunked body only if it has not answered by then.
 */
async function streamUntilAnswered(c: RawConnection, total: number, chunked: boolean): Promise<{ response: RawResponse | null; sent: number }> {
  let response: RawResponse | null | undefined;
  const reading = c.read(60_000).then((r) => (response = r));
  let sent = 0;
  while (response === undefined && !c.closed && sent < total) {
    const piece = CSV_CHUNK.slice(0, Math.min(CSV_CHUNK.length, total - sent));
    const ok = await c.write(chunked ? `${piece.length.toString(16)}\r\n${piece}\r\n` : piece).then(
      () => true,
      () => false,
    );
    if (!ok) break;
    sent += piece.length;
    await new Promise((r) => setTimeout(r, 5));
  }
  if (chunked && response === undefined && !c.closed && sent >= total) await c.write('0\r\n\r\n').catch(() => {});
  await reading;
  return { response: response ?? null, sent };
}

function expectRateLimited(r: RawResponse | null, limit: number) {
  expect(r?.status).toBe(429);
  expect(r!.headers['content-type']).toBe('application/problem+json');
  expect(Number(r!.headers['retry-after'])).toBeGreaterThan(0);
  expect(JSON.parse(r!.body)).toMatchObject({ status: 429, code: 'rate_limited', limit });
}

function limitsSuite(mode: Mode) {
  describe(`upload byte rate, whatever the framing (${mode})`, () => {
    let env: TestEnv;
    let n: TestNode;
    beforeAll(async () => {
      env = await createTestEnv(mode);
      n = await startTestNode(env);
    });
    afterAll(async () => {
      await n?.close();
      if (env) await destroyTestEnv(env);
    });

    const blobFiles = async (tenantId: string) => (await filesUnder(path.join(env.dataDir, 'blobs'))).filter((f) => f.includes(tenantId));
    const api = (p: string, token: string, init: RequestInit = {}) =>
      fetch(`${n.url}${p}`, { ...init, headers: { authorization: `Bearer ${token}`, ...(init.headers ?? {}) } });
    const appWithRate = async (maxBytesPerSecond: number) => {
      const app = await createApp(n.node, { maxBytesPerSecond });
      return { ...app, token: await getToken(n.url, app.clientId, app.clientSecret) };
    };
    const nothingCharged = async (appId: string) => {
      expect(await n.node.controlPlane.unitsCommitted(appId, monthOf(new Date()))).toBe(0);
      expect(await n.node.controlPlane.listUsage({ appId })).toEqual([]);
    };

    it('a chunked upload over the plan rate → 429 rate_limited mid-stream; nothing stored, queued or charged', async () => {
      const app = await appWithRate(10 * 1024); // 100 KiB per 10 s window
      const c = new RawConnection(n.node.port);
      await c.connected;
      await c.write(head('POST', '/api/v1/documents/upload?fileName=fast.csv&csvRoute=Tabular&documentId=fast-1', 'Transfer-Encoding: chunked', app.token));
      const { response, sent } = await streamUntilAnswered(c, 4 * 1024 * 1024, true);
      expectRateLimited(response, 10 * 1024);
      expect(sent).toBeLessThan(4 * 1024 * 1024); // refused while the body was still coming
      expect(response!.headers.connection).toBe('close');
      expect(await c.waitClosed(10_000)).toBe(true);
      c.destroy();
      expect(await blobFiles(app.tenantId)).toEqual([]);
      expect((await api('/api/v1/documents/fast-1/status', app.token)).status).toBe(404);
      await nothingCharged(app.appId);
    });

    it('a chunked upload within the rate is accepted, and its bytes count against the next upload', async () => {
      const csv = 'a,b\n' + '1,2\n'.repeat(200); // 804 bytes
      const window = () => Math.floor(Date.now() / 10_000);
      // Both uploads must fall in one fixed 10 s window: a pair that straddles two is retried.
      for (let attempt = 0; ; attempt++) {
        const app = await appWithRate(100); // 1000 bytes per window
        const started = window();
        const chunked = new ReadableStream({ start: (ctl) => (ctl.enqueue(new TextEncoder().encode(csv)), ctl.close()) });
        const first = await api('/api/v1/documents/upload?fileName=c1.csv&csvRoute=Tabular', app.token, {
          method: 'POST',
          body: chunked,
          duplex: 'half',
        } as RequestInit);
        expect(first.status).toBe(202);
        const second = await api('/api/v1/documents/upload?fileName=c2.csv&csvRoute=Tabular', app.token, { method: 'POST', body: csv });
        if (window() !== started && attempt < 3) continue;
        expect(second.status).toBe(429);
        expect(((await second.json()) as Record<string, unknown>).code).toBe('rate_limited');
        return;
      }
    });

    it('a declared Content-Length is counted once, not again as it streams', async () => {
      const app = await appWithRate(100); // 1000 bytes per window: 600 fits once, not twice
      const csv = 'a,b\n' + '1,2\n'.repeat(149); // 600 bytes
      const res = await api('/api/v1/documents/upload?fileName=d1.csv&csvRoute=Tabular', app.token, { method: 'POST', body: csv });
      expect(res.status).toBe(202);
    });

    for (const framing of ['chunked', 'Content-Length'] as const) {
      it(`a presigned PUT (${framing}) over the plan rate → 429 mid-stream; the session has no bytes`, async () => {
        const app = await appWithRate(10 * 1024);
        const size = 2 * 1024 * 1024;
        const req = await api('/api/v1/documents/upload-request', app.token, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ fileName: 'p.csv', sizeBytes: size }),
        });
        expect(req.status).toBe(201);
        const session = (await req.json()) as { uploadId: string; uploadUrl: string };
        const u = new URL(session.uploadUrl);
        const c = new RawConnection(n.node.port);
        await c.connected;
        await c.write(head('PUT', `${u.pathname}${u.search}`, framing === 'chunked' ? 'Transfer-Encoding: chunked' : `Content-Length: ${size}`));
        const { response, sent } = await streamUntilAnswered(c, size, framing === 'chunked');
        expectRateLimited(response, 10 * 1024);
        expect(sent).toBeLessThan(size);
        c.destroy();
        expect(await blobFiles(app.tenantId)).toEqual([]);
        const done = await api('/api/v1/documents/upload-complete', app.token, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ uploadId: session.uploadId, csvRoute: 'Tabular' }),
        });
        expect(done.status).toBe(409);
        await nothingCharged(app.appId);
      });
    }
  });
}

limitsSuite('embedded');
limitsSuite('distributed');

describe('an upload that stalls (embedded)', () => {
  let env: TestEnv;
  let n: TestNode;
  beforeAll(async () => {
    env = await createTestEnv('embedded');
    n = await startTestNode(env);
  });
  afterAll(async () => {
    await n?.close();
    if (env) await destroyTestEnv(env);
  });

  it('headers and 20 KB, then nothing → 408 request_timeout, then the connection closes; nothing stored, queued or charged', async () => {
    const app = await createApp(n.node, {});
    const token = await getToken(n.url, app.clientId, app.clientSecret);
    const c = new RawConnection(n.node.port);
    await c.connected;
    await c.write(head('POST', '/api/v1/documents/upload?fileName=stall.csv&csvRoute=Tabular&documentId=stall-1', 'Content-Length: 1000000', token));
    await c.write(CSV_CHUNK + CSV_CHUNK.slice(0, 4000));
    const stored = async () => (await filesUnder(path.join(env.dataDir, 'blobs'))).filter((f) => f.includes(app.tenantId));
    // Past the first 8 KiB the upload is being written (so there is something to remove)...
    await waitFor(async () => ((await stored()).length > 0 ? true : null), 'the partial upload file');
    const r = await c.read(30_000);
    expect(r?.status).toBe(408);
    expect(r!.headers.connection).toBe('close');
    expect(JSON.parse(r!.body)).toMatchObject({ status: 408, code: 'request_timeout' });
    expect(await c.waitClosed(10_000)).toBe(true);
    c.destroy();
    // ...and none of it is left.
    await waitFor(async () => ((await stored()).length === 0 ? true : null), 'the partial upload to be removed');
    const status = await fetch(`${n.url}/api/v1/documents/stall-1/status`, { headers: { authorization: `Bearer ${token}` } });
    expect(status.status).toBe(404);
    expect(await n.node.controlPlane.unitsCommitted(app.appId, monthOf(new Date()))).toBe(0);
  });
});
