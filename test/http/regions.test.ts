// The front's region routing (src/http/regions.ts) between two real fronts on 127.0.0.1: a
// request of region `far` reaching the `near` front is forwarded with its body streamed there
// and the answer streamed back (64 MiB each way, compared by SHA-256), the caller's
// Authorization passed on; a region that does not answer in time, or whose host name resolves
// to an address the outbound policy refuses, is 502 region_unavailable; without forwarding, for
// a region no URL serves, or for a request forwarded once already, 421 wrong_region. The
// routes read the region from a header through `regionOf`, as the signed upload URLs do.
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpServer } from '../../src/http/server.js';
import { RegionRouter } from '../../src/http/regions.js';
import { RegionTable, regionCovers } from '../../src/http/region-table.js';
import type { RouteDef } from '../../src/http/route.js';

const MiB = 1024 * 1024;
const logger = pino({ level: 'silent' });

/** `bytes` deterministic bytes, in 1 MiB chunks generated as they are read. */
function generated(bytes: number): Readable {
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= bytes) return void this.push(null);
      const n = Math.min(MiB, bytes - sent);
      const chunk = Buffer.alloc(n);
      for (let i = 0; i < n; i += 4096) chunk[i] = (sent + i) & 0xff;
      sent += n;
      this.push(chunk);
    },
  });
}

async function sha256Of(stream: AsyncIterable<Uint8Array>): Promise<{ sha256: string; bytes: number }> {
  const h = createHash('sha256');
  let bytes = 0;
  for await (const c of stream) {
    h.update(c);
    bytes += c.length;
  }
  return { sha256: h.digest('hex'), bytes };
}

/** The test routes; `served` counts the requests each front handled itself. */
function routes(served: { n: number }): RouteDef[] {
  const regionOf = (ctx: { headers: Record<string, string> }) => ctx.headers['x-test-region'] ?? null;
  const base = { tags: ['test'], auth: 'public' as const, regionOf, responses: { 200: { description: 'ok' } } };
  return [
    {
      ...base,
      method: 'PUT',
      path: '/echo',
      operationId: 'echo',
      summary: 'hash of the body',
      body: { kind: 'raw', description: 'bytes' },
      handler: async (ctx) => {
        served.n++;
        const got = await sha256Of(ctx.bodyStream!);
        return { status: 200, json: { ...got, authorization: ctx.headers.authorization, forwardedFrom: ctx.headers['x-docparse-forwarded-from'] ?? null } };
      },
    },
    {
      ...base,
      method: 'GET',
      path: '/big',
      operationId: 'big',
      summary: '64 MiB',
      handler: async () => {
        served.n++;
        return { status: 200, stream: generated(64 * MiB), contentType: 'application/octet-stream', length: 64 * MiB, headers: { 'X-Test': 'far' } };
      },
    },
    {
      ...base,
      method: 'GET',
      path: '/hang',
      operationId: 'hang',
      summary: 'never answers until the client goes',
      handler: (ctx) => {
        served.n++;
        return new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve({ status: 200, empty: true })));
      },
    },
  ];
}

let far: HttpServer;
let farUrl: string;
const farServed = { n: 0 };
const fronts: HttpServer[] = [];

/** A `near` front whose table has `far` (and `named`, the far front by host name). */
async function front(forwarding: boolean, served: { n: number }): Promise<string> {
  const table = new RegionTable(
    new Map([
      ['near', 'http://192.0.2.1:8080'],
      ['far', farUrl],
      ['named', farUrl.replace('127.0.0.2', 'localhost')],
    ]),
  );
  const regions = new RegionRouter({ table, local: 'near-1', forwarding, timeoutMs: 1000, outboundAllow: [], logger });
  const server = new HttpServer({ logger, maxHeaderBytes: 16 * 1024, trustProxy: false, regions });
  for (const r of routes(served)) server.add(r);
  fronts.push(server);
  return `http://127.0.0.1:${await server.listen('127.0.0.1', 0)}`;
}

let nearUrl: string;
let strictUrl: string;
const nearServed = { n: 0 };
const strictServed = { n: 0 };

beforeAll(async () => {
  far = new HttpServer({ logger, maxHeaderBytes: 16 * 1024, trustProxy: false });
  for (const r of routes(farServed)) far.add(r);
  // On 127.0.0.2: the table's IP literal is allowed, and `localhost` (127.0.0.1) is not.
  farUrl = `http://127.0.0.2:${await far.listen('127.0.0.2', 0)}`;
  nearUrl = await front(true, nearServed);
  strictUrl = await front(false, strictServed);
});

afterAll(async () => {
  await Promise.all([far, ...fronts].map((s) => s?.drain(500)));
});

describe('region table', () => {
  it('covers codes by prefix at a dash; the most specific region wins', () => {
    expect(regionCovers('eu', 'eu-central-1')).toBe(true);
    expect(regionCovers('eu', 'EU')).toBe(true);
    expect(regionCovers('eu', 'europe')).toBe(false);
    expect(regionCovers('eu-central-1', 'eu')).toBe(false);
    const t = RegionTable.parse('eu=https://eu.example/,eu-west=https://euw.example,us=https://us.example') as RegionTable;
    expect(t.regionOf('eu-central-1')).toBe('eu');
    expect(t.regionOf('eu-west-2')).toBe('eu-west');
    expect(t.regionOf('ap-south-1')).toBeNull();
    expect(t.urls.get('eu')).toBe('https://eu.example');
    expect(t.sameRegion('eu-central-1', 'eu')).toBe(true);
    expect(t.sameRegion('eu-central-1', 'us-east-1')).toBe(false);
    expect(t.sameRegion('ap-1', 'ap-2')).toBe(false);
  });

  it('names each bad entry', () => {
    expect(RegionTable.parse('eu=ftp://x,us,=https://a,eu=https://b,ap=https://u:p@c')).toEqual([
      'eu: "ftp://x" must use http:// or https://',
      '"us" is not code=url (the code letters, digits and dashes)',
      '"=https://a" is not code=url (the code letters, digits and dashes)',
      'region eu is listed twice',
      'ap: the URL must not carry credentials',
    ]);
  });
});

describe('forwarding to another region', () => {
  it("streams a 64 MiB chunked body to the region and its answer back, with the caller's Authorization", async () => {
    const before = { near: nearServed.n, far: farServed.n };
    const expected = await sha256Of(generated(64 * MiB));
    const res = await fetch(`${nearUrl}/echo`, {
      method: 'PUT',
      headers: { 'x-test-region': 'far-west-2', authorization: 'Bearer the-callers-token' },
      body: Readable.toWeb(generated(64 * MiB)) as ReadableStream,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ...expected, authorization: 'Bearer the-callers-token', forwardedFrom: 'near' });
    expect({ near: nearServed.n, far: farServed.n }).toEqual({ near: before.near, far: before.far + 1 });
  });

  it('streams a 64 MiB answer back with its length and headers', async () => {
    const res = await fetch(`${nearUrl}/big`, { headers: { 'x-test-region': 'far' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe(String(64 * MiB));
    expect(res.headers.get('x-test')).toBe('far');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await sha256Of(res.body as unknown as AsyncIterable<Uint8Array>)).toEqual(await sha256Of(generated(64 * MiB)));
  });

  it('serves its own region itself', async () => {
    const before = nearServed.n;
    const res = await fetch(`${nearUrl}/echo`, { method: 'PUT', headers: { 'x-test-region': 'near' }, body: 'abc' });
    expect(await res.json()).toMatchObject({ bytes: 3, forwardedFrom: null });
    expect(nearServed.n).toBe(before + 1);
  });

  it('answers 502 region_unavailable when the region does not answer within the timeout', async () => {
    const res = await fetch(`${nearUrl}/hang`, { headers: { 'x-test-region': 'far' } });
    expect(res.status).toBe(502);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(await res.json()).toMatchObject({ code: 'region_unavailable', region: 'far', reason: 'no byte moved for 1 s' });
  });

  it('goes through the outbound policy: a host name resolving to loopback is refused (the IP literals of the table are allowed)', async () => {
    const res = await fetch(`${nearUrl}/echo`, { method: 'PUT', headers: { 'x-test-region': 'named' }, body: 'abc' });
    expect(res.status).toBe(502);
    const body = (await res.json()) as { code: string; reason: string };
    expect(body.code).toBe('region_unavailable');
    expect(body.reason).toMatch(/outbound policy \(loopback/);
  });
});

describe('421 wrong_region', () => {
  it("names the region's base URL when this node does not forward, and handles nothing", async () => {
    const before = strictServed.n;
    const res = await fetch(`${strictUrl}/echo`, { method: 'PUT', headers: { 'x-test-region': 'far-1' }, body: 'abc' });
    expect(res.status).toBe(421);
    expect(await res.json()).toMatchObject({ code: 'wrong_region', region: 'far', baseUrl: farUrl });
    expect(strictServed.n).toBe(before);
  });

  it('for a license region no region serves', async () => {
    const res = await fetch(`${nearUrl}/echo`, { method: 'PUT', headers: { 'x-test-region': 'ap-south-1' }, body: 'abc' });
    expect(res.status).toBe(421);
    expect(await res.json()).toMatchObject({ code: 'wrong_region', region: null, baseUrl: null });
  });

  it('for a request another region forwarded already (no loops)', async () => {
    const res = await fetch(`${nearUrl}/echo`, { method: 'PUT', headers: { 'x-test-region': 'far', 'x-docparse-forwarded-from': 'far' }, body: 'abc' });
    expect(res.status).toBe(421);
    expect(await res.json()).toMatchObject({ code: 'wrong_region', baseUrl: farUrl });
  });
});
