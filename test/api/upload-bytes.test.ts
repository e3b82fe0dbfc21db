// The bytes of presigned uploads to the disk store, as stored, against what was sent: tus
// PATCHes and single PUTs of random bytes, written in chunks of many sizes, several uploads
// at once with their chunks interleaved, over real HTTP. The body's chunks are copied into
// reused 1 MiB slabs on the way in and on the way to disk (src/http/slab-pool.ts): a slab
// reused while still in use would put one upload's bytes into another's file.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { createApp, createTestEnv, destroyTestEnv, filesUnder, getToken, startTestNode, type TestEnv, type TestNode } from '../helpers/node.js';

const KiB = 1024;
const MiB = 1024 * KiB;
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** Chunk sizes a client's writes come in: tiny, odd, around uWS's and the slabs' sizes, larger than a slab. */
const CHUNK_SIZES = [1, 7, 4093, 16 * KiB, 64 * KiB + 1, 512 * KiB - 3, MiB, MiB + 5, 3 * MiB + 11];

describe('presigned upload bytes on the disk store', () => {
  let env: TestEnv;
  let n: TestNode;
  let token: string;
  let tenantId: string;

  beforeAll(async () => {
    env = await createTestEnv('embedded', { DOCPARSE_RETENTION_SECONDS: '7200' });
    n = await startTestNode(env);
    // Room for every session of the file at once (they stay open: nothing here completes them).
    const app = await createApp(n.node, { maxConcurrentJobs: 100 });
    tenantId = app.tenantId;
    token = await getToken(n.url, app.clientId, app.clientSecret);
  });
  afterAll(async () => {
    await n?.close();
    if (env) await destroyTestEnv(env);
  });

  const openSession = async (file: Buffer): Promise<string> => {
    const r = await fetch(`${n.url}/api/v1/documents/upload-request`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ fileName: 'bytes.csv', sizeBytes: file.length, sha256: sha256(file) }),
    });
    expect(r.status).toBe(201);
    const u = new URL(((await r.json()) as { uploadUrl: string }).uploadUrl);
    return `${u.pathname}${u.search}`;
  };

  /**
   * One request whose body is written in chunks cycling through CHUNK_SIZES from `first`,
   * yielding to the event loop between writes so other uploads' chunks come in between.
   */
  const send = (urlPath: string, method: string, headers: Record<string, string>, body: Buffer, first: number) =>
    new Promise<{ status: number; offset: string | undefined; text: string }>((resolve, reject) => {
      const port = Number(new URL(n.url).port);
      const req = http.request({ host: '127.0.0.1', port, path: urlPath, method, headers: { ...headers, 'content-length': String(body.length) } });
      req.on('error', reject);
      req.on('response', (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, offset: res.headers['upload-offset'] as string | undefined, text }));
      });
      void (async () => {
        let at = 0;
        for (let i = first; at < body.length; i++) {
          const size = CHUNK_SIZES[i % CHUNK_SIZES.length];
          const ok = req.write(body.subarray(at, at + size));
          at += size;
          await new Promise<void>((r) => (ok ? setImmediate(r) : req.once('drain', r)));
        }
        req.end();
      })().catch(reject);
    });

  /** tus: the file as PATCHes of the given sizes (the last one takes the rest). */
  const tusUpload = async (file: Buffer, patchSizes: number[], first: number) => {
    const urlPath = await openSession(file);
    let offset = 0;
    for (let i = 0; offset < file.length; i++) {
      const size = Math.min(patchSizes[i % patchSizes.length], file.length - offset);
      const r = await send(
        urlPath,
        'PATCH',
        { 'tus-resumable': '1.0.0', 'upload-offset': String(offset), 'content-type': 'application/offset+octet-stream' },
        file.subarray(offset, offset + size),
        first + i,
      );
      expect(r.status, r.text).toBe(204);
      offset += size;
      expect(r.offset).toBe(String(offset));
    }
  };

  const putUpload = async (file: Buffer, first: number) => {
    const r = await send(await openSession(file), 'PUT', { 'content-type': 'application/octet-stream' }, file, first);
    expect(r.status, r.text).toBe(204);
  };

  /** SHA-256 of every blob stored for the tenant. */
  const storedHashes = async (): Promise<string[]> => {
    const files = (await filesUnder(path.join(env.dataDir, 'blobs'))).filter((f) => f.includes(`/${tenantId}/`));
    return Promise.all(files.map(async (f) => sha256(await fs.readFile(f))));
  };

  it('stores every upload byte for byte, tus PATCHes and single PUTs at once, whatever the chunk sizes', async () => {
    // Sizes not multiples of anything the server batches by, each upload's bytes its own.
    const files = [5 * MiB + 3, 9 * MiB - 17, 3 * MiB + 1, 12 * MiB + 777, 2 * MiB - 1, 7 * MiB + 4097].map((size) => randomBytes(size));
    await Promise.all([
      tusUpload(files[0], [MiB - 1, 2 * MiB + 5], 0),
      tusUpload(files[1], [4 * MiB], 3),
      tusUpload(files[2], [1, 333 * KiB, MiB], 5),
      putUpload(files[3], 1),
      putUpload(files[4], 6),
      tusUpload(files[5], [3 * MiB + 3], 8),
    ]);
    expect((await storedHashes()).sort()).toEqual(files.map(sha256).sort());
  });

  it('many small PATCHes and PUTs at once, each a few chunks (slabs shared among many bodies)', async () => {
    const before = await storedHashes();
    const files = Array.from({ length: 16 }, (_, i) => randomBytes(200 * KiB + i * 37 * KiB + i));
    await Promise.all(files.map((f, i) => (i % 2 ? putUpload(f, i) : tusUpload(f, [64 * KiB + i, 300 * KiB], i))));
    const now = await storedHashes();
    expect(now.filter((h) => !before.includes(h)).sort()).toEqual(files.map(sha256).sort());
  });
});
