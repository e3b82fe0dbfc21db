// The SDK's resumable (tus) presigned upload against a real node over HTTP: a file over the
// direct-upload limit goes as several PATCHes; a connection cut mid-PATCH by a TCP proxy is
// resumed from the offset the server holds; a 409 is resumed from the offset it names. The
// server checks the whole file's SHA-256 (declared in upload-request) and the parsed row count
// must match, so a wrongly resumed upload cannot pass.
import { createHash } from 'node:crypto';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DocparseClient, type DocparseClientOptions } from '../../src/sdk/index.js';
import { freePort } from '../helpers/http.js';
import { createApp, createTestEnv, destroyTestEnv, startTestNode, type TestEnv, type TestNode } from '../helpers/node.js';

const KiB = 1024;

/** A CSV of rows of 32 bytes, about `bytes` long. */
function csv(bytes: number): Uint8Array {
  const header = 'id,value,' + 'label'.padEnd(22, '_') + '\n';
  const rows = Math.floor((bytes - header.length) / 32);
  const buf = Buffer.alloc(header.length + rows * 32);
  buf.write(header);
  for (let i = 0; i < rows; i++)
    buf.write(`${String(i).padStart(10, '0')},${String(i * 7).padStart(9, '0')},r${String(i % 1e6).padStart(6, '0')}xxx\n`, 32 + i * 32);
  return new Uint8Array(buf);
}
const rowsOf = (b: Uint8Array) => b.length / 32 - 1;
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** A TCP proxy to the node that, once armed, cuts the connection carrying the request's `cutAfter`-th byte. */
async function startProxy(target: number, port: number) {
  let cutAfter = Infinity;
  let cuts = 0;
  const server = net.createServer((client) => {
    const upstream = net.connect(target, '127.0.0.1');
    client.on('data', (d) => {
      cutAfter -= d.length;
      if (cutAfter <= 0) {
        cutAfter = Infinity;
        cuts++;
        client.destroy();
        upstream.destroy();
        return;
      }
      upstream.write(d);
    });
    upstream.on('data', (d) => client.write(d));
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return {
    cutOnceAfter: (bytes: number) => void (cutAfter = bytes),
    cuts: () => cuts,
    close: () => new Promise<void>((r) => (server.closeAllConnections?.(), server.close(() => r()))),
  };
}

let env: TestEnv;
let n: TestNode;
let proxy: Awaited<ReturnType<typeof startProxy>>;
let proxyUrl: string;
let creds: { clientId: string; clientSecret: string };

beforeAll(async () => {
  env = await createTestEnv('embedded');
  const [port, proxyPort] = [await freePort(), await freePort()];
  // The uploadUrl is built on DOCPARSE_BASE_URL: the proxy's, so every byte goes through it.
  proxyUrl = `http://127.0.0.1:${proxyPort}`;
  n = await startTestNode(env, {
    PORT: String(port),
    DOCPARSE_BASE_URL: proxyUrl,
    DOCPARSE_DIRECT_UPLOAD_MAX_BYTES: '100',
    DOCPARSE_RETENTION_SECONDS: '7200',
  });
  proxy = await startProxy(port, proxyPort);
  creds = await createApp(n.node, {});
});

afterAll(async () => {
  await proxy?.close();
  await n?.close();
  if (env) await destroyTestEnv(env);
});

/** The SDK with every request recorded as "METHOD path". */
function client(over: Partial<DocparseClientOptions> = {}) {
  const sent: string[] = [];
  const f: typeof fetch = (input, init) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    sent.push(`${init?.method ?? 'GET'} ${url.pathname.replace(/[^/]+$/, (s) => (url.pathname.includes('/uploads/') ? ':id' : s))}`);
    return fetch(input, init);
  };
  const c = new DocparseClient({
    baseUrl: proxyUrl,
    ...creds,
    fetch: f,
    uploadChunkBytes: 256 * KiB,
    directUploadMaxBytes: 100,
    retry: { baseDelayMs: 10 },
    ...over,
  });
  return { c, sent, patches: () => sent.filter((s) => s === 'PATCH /api/v1/uploads/:id').length };
}

async function rowCount(c: DocparseClient, documentId: string): Promise<number> {
  expect((await c.waitFor(documentId, { timeoutMs: 60_000 })).status).toBe('completed');
  return ((await c.result(documentId)) as unknown as { content: { rowCount: number } }).content.rowCount;
}

describe('resumable presigned upload (tus)', () => {
  it('a file over the direct-upload limit goes as several PATCHes, with progress, and parses', async () => {
    const file = csv(1100 * KiB);
    const { c, sent, patches } = client();
    const seen: number[] = [];
    const accepted = await c.upload(file, { fileName: 'big.csv', csvRoute: 'Tabular', sha256: sha256(file), onProgress: (p) => seen.push(p.sentBytes) });
    expect(patches()).toBe(Math.ceil(file.length / (256 * KiB)));
    expect(sent).toContain('POST /api/v1/documents/upload-request');
    expect(sent).not.toContain('PUT /api/v1/uploads/:id');
    expect(sent.at(-1)).toBe('POST /api/v1/documents/upload-complete');
    expect(seen.at(-1)).toBe(file.length);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(await rowCount(c, accepted.documentId)).toBe(rowsOf(file));
  });

  it('a connection cut mid-PATCH is resumed from the offset the server holds (a Blob)', async () => {
    const file = csv(1100 * KiB);
    const { c, sent } = client();
    proxy.cutOnceAfter(600 * KiB);
    const before = proxy.cuts();
    const accepted = await c.upload(new Blob([file]), { fileName: 'cut.csv', csvRoute: 'Tabular', sha256: sha256(file) });
    expect(proxy.cuts()).toBe(before + 1);
    // Asked where it stands after the cut (one HEAD at the start, one after).
    expect(sent.filter((s) => s === 'HEAD /api/v1/uploads/:id').length).toBe(2);
    expect(await rowCount(c, accepted.documentId)).toBe(rowsOf(file));
  });

  it('a ReadableStream resumes within the chunk it keeps in memory', async () => {
    const file = csv(900 * KiB);
    const { c } = client();
    // Sent in small pieces, as a file or network stream would be.
    const stream = new ReadableStream<Uint8Array>({
      start(ctl) {
        for (let i = 0; i < file.length; i += 16 * KiB) ctl.enqueue(file.slice(i, i + 16 * KiB));
        ctl.close();
      },
    });
    proxy.cutOnceAfter(400 * KiB);
    const before = proxy.cuts();
    const accepted = await c.upload(stream, { fileName: 'stream.csv', csvRoute: 'Tabular', sizeBytes: file.length, sha256: sha256(file) });
    expect(proxy.cuts()).toBe(before + 1);
    expect(await rowCount(c, accepted.documentId)).toBe(rowsOf(file));
  });

  it('a 409 (another client moved the offset on) is resumed from the offset it names', async () => {
    const file = csv(700 * KiB);
    let sneaked = false;
    // A second writer sends the first 100 KiB after the SDK's HEAD: the SDK's first PATCH (at 0) gets 409.
    const f: typeof fetch = async (input, init) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      if (init?.method === 'PATCH' && !sneaked) {
        sneaked = true;
        const r = await fetch(url, {
          method: 'PATCH',
          headers: { 'Tus-Resumable': '1.0.0', 'Upload-Offset': '0', 'Content-Type': 'application/offset+octet-stream' },
          body: file.slice(0, 100 * KiB),
        });
        expect(r.status).toBe(204);
      }
      return fetch(input, init);
    };
    const statuses: number[] = [];
    const recording: typeof fetch = async (input, init) => {
      const res = await f(input, init);
      if (init?.method === 'PATCH') statuses.push(res.status);
      return res;
    };
    const c = new DocparseClient({
      baseUrl: proxyUrl,
      ...creds,
      fetch: recording,
      uploadChunkBytes: 256 * KiB,
      directUploadMaxBytes: 100,
      retry: { baseDelayMs: 10 },
    });
    const accepted = await c.upload(file, { fileName: 'conflict.csv', csvRoute: 'Tabular', sha256: sha256(file) });
    expect(statuses[0]).toBe(409);
    expect(statuses.slice(1).every((s) => s === 204)).toBe(true);
    expect(await rowCount(c, accepted.documentId)).toBe(rowsOf(file));
  });

  it('an upload URL that does not speak tus (its HEAD refused, as before tus) gets the file as one PUT', async () => {
    const file = csv(300 * KiB);
    const sent: string[] = [];
    // The node's answer to HEAD replaced by a pre-tus server's 405; everything else is the node's.
    const f: typeof fetch = async (input, init) => {
      sent.push(init?.method ?? 'GET');
      if (init?.method === 'HEAD') return new Response(null, { status: 405 });
      return fetch(input, init);
    };
    const c = new DocparseClient({ baseUrl: proxyUrl, ...creds, fetch: f, uploadChunkBytes: 64 * KiB, directUploadMaxBytes: 100 });
    const accepted = await c.upload(file, { fileName: 'put.csv', csvRoute: 'Tabular', sha256: sha256(file) });
    expect(sent).toContain('PUT');
    expect(sent).not.toContain('PATCH');
    expect(await rowCount(c, accepted.documentId)).toBe(rowsOf(file));
  });
});
