// The test S3 server (test/helpers/s3.ts) keeps S3's read-after-write: a read sent once a
// write was answered gets the whole object. s3rver alone answered PutObject while the
// object's file was still being written, and a read right after got a prefix of it (a
// cluster test parsed a 7 MB workbook read as 6 MiB: "its end-of-archive record is missing").
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3BlobStore } from '../../src/storage/s3-blob-store.js';
import { startS3, type TestS3 } from '../helpers/s3.js';

describe('the test S3 server: read after write', () => {
  let s3: TestS3;
  let store: S3BlobStore;
  beforeAll(async () => {
    s3 = await startS3();
    const { endpoint, bucket, accessKeyId, secretAccessKey } = s3;
    store = new S3BlobStore({ endpoint, region: 'us-east-1', bucket, prefix: '', accessKeyId, secretAccessKey, forcePathStyle: true });
  });
  afterAll(async () => {
    store?.close();
    await s3?.close();
  });

  it('a read sent as soon as a write was answered gets the whole object (one PutObject, and multipart)', async () => {
    // Several rounds: the write's file lagging behind its answer is a matter of timing.
    const objects = [randomBytes(7 * 1024 * 1024), randomBytes(9 * 1024 * 1024)];
    const read: number[] = [];
    for (let round = 0; round < 8; round++) {
      for (const [i, data] of objects.entries()) {
        const key = `raw/${round}-${i}`;
        await store.write(key, [data]);
        const local = await store.localPath(key);
        read.push((await fs.readFile(local.path)).length);
        await local.release();
      }
    }
    expect(read).toEqual(read.map((_, n) => objects[n % 2].length));
  });

  it('an object written again is read whole, as the one or the other', async () => {
    const first = Buffer.alloc(7 * 1024 * 1024, 1);
    const second = Buffer.alloc(7 * 1024 * 1024, 2);
    await store.write('raw/again', [first]);
    const rewrite = store.write('raw/again', [second]);
    const local = await store.localPath('raw/again');
    const seen = await fs.readFile(local.path);
    await local.release();
    await rewrite;
    expect(seen.equals(first) || seen.equals(second)).toBe(true);
  });
});
