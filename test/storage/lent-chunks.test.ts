// Lent chunks (valid only until the next one is asked for): the request body lends chunks
// out of reused slabs, and the disk and S3 stores copy them before asking for the next (the
// S3 store into part buffers it reuses once a part's request has settled). Each side is
// tested against a partner that reuses (or keeps) memory as early as the contract allows.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { BodyStream } from '../../src/http/body.js';
import { DiskBlobStore } from '../../src/storage/disk-blob-store.js';
import { S3BlobStore } from '../../src/storage/s3-blob-store.js';
import { SLAB_BYTES, SlabPool, slabs } from '../../src/http/slab-pool.js';
import { startS3, storeOn, type TestS3 } from '../helpers/s3.js';

const KiB = 1024;
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const noSource = { pause() {}, resume() {} };
/** Chunk sizes of a lending source: tiny, odd, and past a part's end. */
const SIZES_S3 = [1, 4093, 64 * KiB + 1, 3 * 1024 * KiB + 11, 9 * 1024 * KiB + 5];

/** A source that lends one buffer: each chunk is written into it, and scribbled over once the next is asked for. */
async function* reusingSource(data: Buffer, sizes: number[]): AsyncGenerator<Buffer> {
  const lent = Buffer.alloc(Math.max(...sizes));
  let at = 0;
  for (let i = 0; at < data.length; i++) {
    const n = Math.min(sizes[i % sizes.length], data.length - at);
    data.copy(lent, 0, at, at + n);
    at += n;
    yield lent.subarray(0, n);
    lent.fill(0xee); // the memory is the source's again
  }
}

describe('BodyStream.lent', () => {
  it('keeps a chunk intact while its consumer holds it, though more bytes arrive meanwhile', async () => {
    const body = new BodyStream(noSource, null);
    const it = body.lent()[Symbol.asyncIterator]();
    const a = randomBytes(600 * KiB);
    const b = randomBytes(600 * KiB);
    const c = randomBytes(600 * KiB);
    body.push(a, false); // into one slab
    body.push(b, false); // does not fit: a second slab
    const first = (await it.next()).value as Buffer;
    // While the consumer still holds `first`, the socket brings more: a third slab, which
    // must not be the one `first` lies in.
    body.push(c, true);
    expect(sha256(first)).toBe(sha256(a));
    const rest: Buffer[] = [];
    for (let r = await it.next(); !r.done; r = await it.next()) rest.push(Buffer.from(r.value));
    expect(sha256(Buffer.concat(rest))).toBe(sha256(Buffer.concat([b, c])));
  });

  it('gives its slabs back to the pool once the body is read to its end', async () => {
    const before = slabs.freeCount;
    const body = new BodyStream(noSource, null);
    const chunks = body.lent();
    // 31 chunks of 100 KiB (the last 5 bytes): 10 to a slab, so 4 slabs.
    const data = randomBytes(3 * SLAB_BYTES + 5);
    for (let at = 0; at < data.length; at += 100 * KiB) body.push(data.subarray(at, at + 100 * KiB), at + 100 * KiB >= data.length);
    const hash = createHash('sha256');
    for await (const chunk of chunks) hash.update(chunk);
    expect(hash.digest('hex')).toBe(sha256(data));
    expect(slabs.freeCount).toBe(Math.max(before, 4));
  });

  it('a small declared body arrives into one buffer of its size, which readAll hands over whole', async () => {
    const body = new BodyStream(noSource, 10);
    body.push(Buffer.from('hello'), false);
    body.push(Buffer.from('world'), true);
    const parts: Buffer[] = [];
    for await (const c of body) parts.push(c);
    const [a, b] = parts;
    expect(b.buffer).toBe(a.buffer);
    expect(b.byteOffset).toBe(a.byteOffset + 5);

    const again = new BodyStream(noSource, 10);
    again.push(Buffer.from('hello'), false);
    again.push(Buffer.from('world'), true);
    expect((await again.readAll(100)).toString()).toBe('helloworld');
  });
});

describe('SlabPool', () => {
  it('refuses a slab given back twice, and what is not one of its slabs', () => {
    const pool = new SlabPool(4);
    const slab = pool.take();
    pool.give(slab);
    expect(() => pool.give(slab)).toThrow(/twice/);
    expect(() => pool.give(Buffer.alloc(10))).toThrow(/not a whole slab/);
    expect(() => new SlabPool(4, 64).give(Buffer.allocUnsafeSlow(128).subarray(0, 64))).toThrow(/not a whole slab/);
  });

  it('with an idle time, drops the slabs it keeps once none was given back for that long', async () => {
    const pool = new SlabPool(4, 4096, 30);
    pool.give(pool.take());
    pool.give(pool.take());
    expect(pool.freeCount).toBe(1);
    await new Promise((r) => setTimeout(r, 80));
    expect(pool.freeCount).toBe(0);
  });
});

describe('DiskBlobStore with lent chunks', () => {
  const newStore = async () => {
    const d = await mkdtemp(path.join(tmpdir(), 'docparse-lent-'));
    dirs.push(d);
    return { store: new DiskBlobStore(d), root: d };
  };
  const SIZES = [1, 4093, 64 * KiB + 1, SLAB_BYTES - 7, SLAB_BYTES, 3 * SLAB_BYTES + 11];

  it('write copies each chunk before asking for the next', async () => {
    const { store, root } = await newStore();
    const data = randomBytes(9 * SLAB_BYTES + 123);
    const r = await store.write('jobs/t/d.g/upload', reusingSource(data, SIZES), { lent: true });
    expect(r.sha256).toBe(sha256(data));
    expect(sha256(await readFile(path.join(root, 'jobs/t/d.g/upload')))).toBe(sha256(data));
  });

  it('appendStaged copies each chunk before asking for the next, across appends', async () => {
    const { store, root } = await newStore();
    const data = randomBytes(7 * SLAB_BYTES + 999);
    const cut = 2 * SLAB_BYTES + 17;
    const opts = { totalBytes: data.length, keepOnFailure: () => true, lent: true };
    expect(await store.appendStaged('jobs/t/d.g/upload', 0, reusingSource(data.subarray(0, cut), SIZES), opts)).toEqual({ offset: cut, failure: null });
    expect(await store.appendStaged('jobs/t/d.g/upload', cut, reusingSource(data.subarray(cut), SIZES.slice().reverse()), opts)).toEqual({
      offset: data.length,
      failure: null,
    });
    await store.finishStaged('jobs/t/d.g/upload');
    expect(sha256(await readFile(path.join(root, 'jobs/t/d.g/upload')))).toBe(sha256(data));
  });

  it('a source failing midway keeps, byte for byte, what was taken from it', async () => {
    const { store, root } = await newStore();
    const data = randomBytes(3 * SLAB_BYTES + 5);
    async function* failing() {
      yield* reusingSource(data, [300 * KiB]);
      throw new Error('client gone');
    }
    const r = await store.appendStaged('jobs/t/d.g/upload', 0, failing(), { totalBytes: 10 * SLAB_BYTES, keepOnFailure: () => true, lent: true });
    expect(r.offset).toBe(data.length);
    expect((r.failure as Error).message).toBe('client gone');
    expect(sha256(await readFile(path.join(root, 'jobs/t/d.g/upload.staging')))).toBe(sha256(data));
  });
});

describe('S3BlobStore with lent chunks and reused part buffers', () => {
  const MiB = 1024 * KiB;
  const PART = 8 * MiB;
  let s3: TestS3;
  let store: S3BlobStore;
  beforeAll(async () => {
    s3 = await startS3();
    store = storeOn(s3, { prefix: 'lent', partsInFlight: 3 });
  });
  afterEach(() => {
    s3.beforeRequest = null;
  });
  afterAll(async () => {
    store?.close();
    await s3?.close();
  });
  const readBack = async (key: string) => {
    const hash = createHash('sha256');
    for await (const c of (await store.read(key))!.stream) hash.update(c as Buffer);
    return hash.digest('hex');
  };
  /** Each UploadPart answered only after ms: parts stay in flight while the next ones fill (and their buffers with them). */
  const slowParts = (ms: number) => {
    s3.beforeRequest = async ({ method, query }) => {
      if (method === 'PUT' && query.has('partNumber')) await new Promise((r) => setTimeout(r, ms));
    };
  };

  it('write copies each chunk before asking for the next; two writes at once share the part buffers and each stores its own bytes', async () => {
    slowParts(50);
    const a = randomBytes(5 * PART + 3 * MiB + 7);
    const b = randomBytes(4 * PART + 11);
    const [ra, rb] = await Promise.all([
      store.write('w/a', reusingSource(a, SIZES_S3), { lent: true }),
      store.write('w/b', reusingSource(b, SIZES_S3.slice().reverse()), { lent: true }),
    ]);
    expect(ra).toEqual({ bytes: a.length, sha256: sha256(a) });
    expect(rb).toEqual({ bytes: b.length, sha256: sha256(b) });
    expect(await readBack('w/a')).toBe(sha256(a));
    expect(await readBack('w/b')).toBe(sha256(b));
    // Under one part: a single PutObject of the part being filled.
    const small = randomBytes(3 * MiB + 1);
    await store.write('w/small', reusingSource(small, SIZES_S3), { lent: true });
    expect(await readBack('w/small')).toBe(sha256(small));
  });

  it('appendStaged copies each chunk before asking for the next, across appends with tails, two sessions at once', async () => {
    slowParts(30);
    const upload = async (key: string, data: Buffer, cuts: number[]) => {
      const opts = { totalBytes: data.length, keepOnFailure: () => true, lent: true };
      let offset = 0;
      for (const cut of [...cuts, data.length]) {
        const r = await store.appendStaged(key, offset, reusingSource(data.subarray(offset, cut), SIZES_S3), opts);
        expect(r).toEqual({ offset: cut, failure: null });
        offset = cut;
      }
      await store.finishStaged(key);
      return readBack(key);
    };
    const a = randomBytes(6 * PART + 5 * MiB + 3);
    const b = randomBytes(5 * PART + 17);
    const [ha, hb] = await Promise.all([upload('s/a', a, [3 * MiB + 1, 2 * PART + 5, 5 * PART]), upload('s/b', b, [PART + 1, 4 * PART - 9])]);
    expect(ha).toBe(sha256(a));
    expect(hb).toBe(sha256(b));
  });
});
