// A tenant's storage behind the node's outbound policy, against a real S3-compatible server
// (s3rver) and counting listeners on loopback: refused unless an operator allows the range,
// checked again on every connection (a name rebound to loopback after the check is refused),
// no redirect followed, and every failure told as one fixed reason — never the network error.
import { randomBytes } from 'node:crypto';
import type { LookupAddress } from 'node:dns';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sealer } from '../../src/crypto/sealed.js';
import { ProblemError } from '../../src/http/problem.js';
import { OutboundPolicy, type Resolve } from '../../src/outbound/outbound-policy.js';
import { s3StoreFor, storageSecretContext } from '../../src/storage/router.js';
import { S3BlobStore, type S3BlobStoreOptions } from '../../src/storage/s3-blob-store.js';
import type { StorageConfig } from '../../src/tenancy/types.js';
import { startS3, type TestS3 } from '../helpers/s3.js';
import { startCountingListener } from '../outbound/counting-listener.js';

async function* bytes(b: Buffer): AsyncIterable<Buffer> {
  yield b;
}

const LOOPBACK = new OutboundPolicy({ allow: ['127.0.0.0/8'] });
const CHECK_MS = 5_000;

/** The problem a tenant store's write failed with (it must fail). */
async function writeFailure(store: S3BlobStore, key = 'jobs/x/upload'): Promise<ProblemError> {
  const err = await store.write(key, bytes(Buffer.from('tenant bytes'))).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProblemError);
  return err as ProblemError;
}

describe("a tenant's storage behind the outbound policy", () => {
  let s3: TestS3;
  let direct: S3Client;
  let options: S3BlobStoreOptions;
  const stores: S3BlobStore[] = [];
  const open = (o: Partial<S3BlobStoreOptions>, policy: OutboundPolicy) => {
    const store = new S3BlobStore({ ...options, ...o }, policy);
    stores.push(store);
    return store;
  };
  const objects = async () => ((await direct.send(new ListObjectsV2Command({ Bucket: s3.bucket }))).Contents ?? []).map((o) => o.Key!);

  beforeAll(async () => {
    s3 = await startS3(`tenant-${randomBytes(4).toString('hex')}`);
    options = {
      endpoint: s3.endpoint,
      region: 'us-east-1',
      bucket: s3.bucket,
      prefix: 'p',
      accessKeyId: s3.accessKeyId,
      secretAccessKey: s3.secretAccessKey,
      forcePathStyle: true,
    };
    direct = new S3Client({
      endpoint: s3.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    });
  });
  afterAll(async () => {
    for (const s of stores) s.close();
    direct?.destroy();
    await s3?.close();
  });

  it('a saved config on a loopback endpoint is refused at use: the write fails with a fixed reason and nothing is written', async () => {
    const sealer = new Sealer(randomBytes(32).toString('hex'));
    const cfg: StorageConfig = {
      id: 'cfg-1',
      tenantId: 'tenant-1',
      provider: 'minio',
      endpoint: s3.endpoint,
      region: 'us-east-1',
      bucket: s3.bucket,
      prefix: 'p',
      accessKeyId: s3.accessKeyId,
      secretAccessKeySealed: sealer.seal(s3.secretAccessKey, storageSecretContext('tenant-1')),
      forcePathStyle: true,
      checksums: 'when_required',
      createdAt: new Date().toISOString(),
    };
    // The policy a node has without DOCPARSE_OUTBOUND_ALLOW.
    const store = s3StoreFor(cfg, sealer);
    stores.push(store);
    expect(await store.check(CHECK_MS)).toMatchObject({ reason: 'endpoint not reachable' });
    const failure = await writeFailure(store);
    expect(failure).toMatchObject({ status: 502, code: 'storage_unavailable', extras: { bucket: s3.bucket, reason: 'endpoint not reachable' } });
    expect(failure.detail).toBe(`The app's own storage (bucket ${JSON.stringify(s3.bucket)}) could not be used: endpoint not reachable.`);
    await expect(store.read('jobs/x/upload')).rejects.toMatchObject({ code: 'storage_unavailable' });
    expect(await objects()).toEqual([]);

    // The same config where the operator allows the range: written and read back.
    const allowed = s3StoreFor(cfg, sealer, LOOPBACK);
    stores.push(allowed);
    expect(await allowed.check(CHECK_MS)).toBeNull();
    expect((await allowed.write('jobs/x/upload', bytes(Buffer.from('tenant bytes')))).bytes).toBe(12);
    const blob = await allowed.read('jobs/x/upload');
    expect(Buffer.concat(await blob!.stream.toArray()).toString()).toBe('tenant bytes');
    expect(await objects()).toEqual(['p/jobs/x/upload']);
  });

  it('tells refused credentials as "access denied" and a missing bucket as "bucket not found", nothing more', async () => {
    expect(await open({ accessKeyId: 'NOBODY' }, LOOPBACK).check(CHECK_MS)).toMatchObject({ reason: 'access denied' });
    const unknownKey = await writeFailure(open({ accessKeyId: 'NOBODY' }, LOOPBACK));
    expect(unknownKey.extras).toEqual({ bucket: s3.bucket, reason: 'access denied' });
    expect(JSON.stringify({ ...unknownKey, detail: unknownKey.detail })).not.toMatch(/InvalidAccessKeyId|Forbidden|403/);
    expect(await open({ bucket: 'no-such-bucket' }, LOOPBACK).check(CHECK_MS)).toMatchObject({ reason: 'bucket not found' });
    // A server that answers 401 or 403 to everything (s3rver does not check signatures).
    for (const status of [401, 403]) {
      const denying = await startCountingListener({ answer: (_req, res) => res.writeHead(status).end() });
      try {
        expect(await open({ endpoint: denying.url }, LOOPBACK).check(CHECK_MS), String(status)).toMatchObject({ reason: 'access denied' });
      } finally {
        await denying.close();
      }
    }
  });

  it('a closed port is "endpoint not reachable", not ECONNREFUSED', async () => {
    const gone = await startCountingListener();
    await gone.close();
    const store = open({ endpoint: gone.url }, LOOPBACK);
    expect(await store.check(CHECK_MS)).toMatchObject({ reason: 'endpoint not reachable' });
    const failure = await writeFailure(store);
    expect(failure.extras.reason).toBe('endpoint not reachable');
    expect(JSON.stringify({ ...failure, detail: failure.detail })).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|connect/);
  });

  it('follows no redirect: the listener it points to never sees a request', async () => {
    const elsewhere = await startCountingListener();
    for (const status of [301, 302, 307, 308]) {
      const redirecting = await startCountingListener({
        answer: (req, res) => res.writeHead(status, { location: `${elsewhere.url}${req.url}` }).end(),
      });
      try {
        const store = open({ endpoint: redirecting.url }, LOOPBACK);
        expect(await store.check(CHECK_MS), String(status)).toMatchObject({ reason: 'endpoint not reachable' });
        expect((await writeFailure(store)).extras.reason).toBe('endpoint not reachable');
        expect(redirecting.requests.length).toBeGreaterThan(0);
      } finally {
        await redirecting.close();
      }
    }
    expect(elsewhere.connections).toBe(0);
    expect(elsewhere.requests).toEqual([]);
    await elsewhere.close();
  });

  it('DNS rebinding: the bucket checked on an allowed address, then the name answers 127.0.0.1 — refused at the next connection', async () => {
    // 127.0.0.2 stands in for the public address the name had at save time.
    const publicSide = await startCountingListener({ host: '127.0.0.2' });
    const target = await startCountingListener({ host: '127.0.0.1', port: publicSide.port });
    try {
      const answers: LookupAddress[][] = [[{ address: '127.0.0.2', family: 4 }], [{ address: '127.0.0.1', family: 4 }]];
      let lookups = 0;
      const resolve: Resolve = async () => answers[Math.min(lookups++, answers.length - 1)];
      const store = open({ endpoint: `http://storage.rebind.test:${publicSide.port}` }, new OutboundPolicy({ allow: ['127.0.0.2/32'], resolve }));

      await store.ping();
      expect(publicSide.requests).toEqual([{ method: 'HEAD', url: `/${s3.bucket}/` }]);
      publicSide.dropIdle();

      const failure = await writeFailure(store);
      expect(failure.extras.reason).toBe('endpoint not reachable');
      expect(lookups).toBeGreaterThanOrEqual(2);
      expect(target.connections).toBe(0);
      expect(target.requests).toEqual([]);
      expect(publicSide.requests).toHaveLength(1);
    } finally {
      await publicSide.close();
      await target.close();
    }
  });

  it('an endpoint with credentials in its URL is never requested', async () => {
    const listener = await startCountingListener();
    try {
      const store = open({ endpoint: `http://user:pass@127.0.0.1:${listener.port}` }, LOOPBACK);
      expect(await store.check(CHECK_MS)).toMatchObject({ reason: 'endpoint not reachable' });
      expect((await writeFailure(store)).extras.reason).toBe('endpoint not reachable');
      expect(listener.connections).toBe(0);
    } finally {
      await listener.close();
    }
  });
});
