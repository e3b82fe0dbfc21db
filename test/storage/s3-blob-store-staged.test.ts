// Staged (tus) uploads on the S3 store with several parts on their way at a time: the bytes
// stored, the state after a cut-off body and after a failed part, against the tests' s3rver
// (which checks each part's payload SHA-256).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import { S3BlobStore } from '../../src/storage/s3-blob-store.js';
import { startS3, storeOn, type TestS3 } from '../helpers/s3.js';

const MiB = 1024 * 1024;
const PART = 8 * MiB;

async function* chunks(buf: Buffer, size = MiB): AsyncIterable<Buffer> {
  for (let i = 0; i < buf.length; i += size) yield buf.subarray(i, i + size);
}

/** The bytes of buf in chunks, then the connection's end: an error after them. */
async function* cutOff(buf: Buffer, err: Error): AsyncIterable<Buffer> {
  yield* chunks(buf);
  throw err;
}

class ConnectionCut extends Error {}
const keepCut = (err: unknown) => err instanceof ConnectionCut;
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('S3 staged uploads, parts in flight', () => {
  let s3: TestS3;
  let store: S3BlobStore;
  let n = 0;
  const partPath = (key: string) => `/${s3.bucket}/staged/${key}`;

  beforeAll(async () => {
    s3 = await startS3();
    store = storeOn(s3, { prefix: 'staged', partsInFlight: 4 });
  });
  afterEach(() => {
    s3.beforeRequest = null;
  });
  afterAll(async () => {
    store?.close();
    await s3?.close();
  });

  const readBack = async (key: string) => {
    const blob = await store.read(key);
    const parts: Buffer[] = [];
    for await (const c of blob!.stream) parts.push(c as Buffer);
    return Buffer.concat(parts);
  };
  const statedParts = async (key: string) => {
    const blob = await store.read(key + '.staging-state');
    if (!blob) return [];
    const parts: Buffer[] = [];
    for await (const c of blob.stream) parts.push(c as Buffer);
    return (JSON.parse(Buffer.concat(parts).toString('utf8')) as { parts: { PartNumber: number }[] }).parts.map((p) => p.PartNumber);
  };

  it('sends 4 parts at a time and stores exactly the bytes of several appends', async () => {
    const key = `up-${++n}`;
    const data = randomBytes(11 * PART + 3 * MiB);
    // Each UploadPart waits until 4 are waiting (or the append has no more to send): a
    // store sending one part at a time would never reach 4; the wait lets go after 1 s.
    let waiting: (() => void)[] = [];
    let most = 0;
    s3.beforeRequest = async ({ method, path }) => {
      if (method !== 'PUT' || path !== partPath(key)) return;
      await new Promise<void>((resolve) => {
        waiting.push(resolve);
        most = Math.max(most, waiting.length);
        const release = () => {
          const all = waiting;
          waiting = [];
          all.forEach((r) => r());
        };
        if (waiting.length >= 4) release();
        else setTimeout(release, 1000).unref();
      });
    };
    const cuts = [0, 5 * PART + 2 * MiB, 9 * PART + 5 * MiB, data.length];
    let offset = 0;
    for (let i = 1; i < cuts.length; i++) {
      const r = await store.appendStaged(key, offset, chunks(data.subarray(cuts[i - 1], cuts[i])), { totalBytes: data.length, keepOnFailure: () => false });
      expect(r.failure).toBeNull();
      expect(r.offset).toBe(cuts[i]);
      offset = r.offset;
    }
    expect(most).toBe(4);
    expect(await statedParts(key)).toEqual([...Array(11).keys()].map((i) => i + 1));
    await store.finishStaged(key);
    expect(sha256(await readBack(key))).toBe(sha256(data));
  });

  it('a body cut off with parts on their way keeps the parts that arrived and its tail; the resumed upload completes byte-exact', async () => {
    const key = `up-${++n}`;
    const data = randomBytes(9 * PART + MiB);
    const first = 6 * PART + 3 * MiB;
    const r = await store.appendStaged(key, 0, cutOff(data.subarray(0, first), new ConnectionCut('cut')), {
      totalBytes: data.length,
      keepOnFailure: keepCut,
    });
    expect(r.failure).toBeInstanceOf(ConnectionCut);
    expect(r.offset).toBe(first);
    expect(await store.stagedSize(key)).toBe(first);
    expect(await statedParts(key)).toEqual([1, 2, 3, 4, 5, 6]);
    const rest = await store.appendStaged(key, first, chunks(data.subarray(first)), { totalBytes: data.length, keepOnFailure: () => false });
    expect(rest.offset).toBe(data.length);
    await store.finishStaged(key);
    expect(sha256(await readBack(key))).toBe(sha256(data));
  });

  it('a failed part leaves the state of the append before, with none of its parts; a retry completes byte-exact', async () => {
    const key = `up-${++n}`;
    const data = randomBytes(10 * PART + 2 * MiB);
    const first = 3 * PART + MiB;
    expect((await store.appendStaged(key, 0, chunks(data.subarray(0, first)), { totalBytes: data.length, keepOnFailure: () => false })).offset).toBe(first);
    // The server fails part 6 (the 3rd of the next append), and every retry of it, while
    // the others around it arrive.
    let failed = 0;
    s3.beforeRequest = ({ method, path, query }) => {
      if (method !== 'PUT' || path !== partPath(key) || query.get('partNumber') !== '6') return;
      failed++;
      throw new Error('the server fails this part');
    };
    await expect(
      store.appendStaged(key, first, cutOff(data.subarray(first), new ConnectionCut('cut')), { totalBytes: data.length, keepOnFailure: keepCut }),
    ).rejects.toThrow();
    s3.beforeRequest = null;
    expect(failed).toBeGreaterThan(0);
    expect(await store.stagedSize(key)).toBe(first);
    expect(await statedParts(key)).toEqual([1, 2, 3]);
    const retry = await store.appendStaged(key, first, chunks(data.subarray(first)), { totalBytes: data.length, keepOnFailure: () => false });
    expect(retry.offset).toBe(data.length);
    expect(await statedParts(key)).toEqual([...Array(10).keys()].map((i) => i + 1));
    await store.finishStaged(key);
    expect(sha256(await readBack(key))).toBe(sha256(data));
  });
});
