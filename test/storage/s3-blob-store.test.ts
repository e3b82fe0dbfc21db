// The S3 blob store against a real S3-compatible server, and a tenant app whose documents
// live in its own bucket end to end.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { S3BlobStore } from '../../src/storage/s3-blob-store.js';
import { BlobTooLargeError } from '../../src/storage/blob-store.js';
import { storageSecretContext } from '../../src/storage/router.js';
import { Sealer } from '../../src/crypto/sealed.js';
import { runAdmin } from '../helpers/admin-cli.js';
import type { SqlControlPlaneStore } from '../../src/tenancy/sql-store.js';
import { startS3, type TestS3 } from '../helpers/s3.js';
import { createApp, createTestEnv, destroyTestEnv, filesUnder, getToken, startTestNode, waitFor, type TestEnv, type TestNode } from '../helpers/node.js';
import { resolveMasterKey } from '../../src/data-dir/master-key.js';

async function* chunks(buf: Buffer, size = 1 << 20): AsyncIterable<Buffer> {
  for (let i = 0; i < buf.length; i += size) yield buf.subarray(i, i + size);
}

describe('S3 blob store', () => {
  let s3: TestS3;
  let store: S3BlobStore;
  let client: S3Client;
  const keys = async (prefix = '') => ((await client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: prefix }))).Contents ?? []).map((o) => o.Key!);

  beforeAll(async () => {
    s3 = await startS3();
    const creds = { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey };
    store = new S3BlobStore({ endpoint: s3.endpoint, region: 'us-east-1', bucket: s3.bucket, prefix: 'tenant-a', ...creds, forcePathStyle: true });
    client = new S3Client({ endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: creds });
  });
  afterAll(async () => {
    store?.close();
    client?.destroy();
    await s3?.close();
  });

  it('streams a multipart object (20 MiB) and reads back the same bytes and hash', async () => {
    const data = randomBytes(20 * 1024 * 1024);
    const r = await store.write('jobs/x/upload', chunks(data));
    expect(r.bytes).toBe(data.length);
    expect(r.sha256).toBe(createHash('sha256').update(data).digest('hex'));
    const local = await store.localPath('jobs/x/upload');
    expect(
      createHash('sha256')
        .update(await fs.readFile(local.path))
        .digest('hex'),
    ).toBe(r.sha256);
    await local.release();
    await expect(fs.access(local.path)).rejects.toThrow();
    expect(await keys('tenant-a/')).toContain('tenant-a/jobs/x/upload');
  });

  it('over the limit: nothing is left in the bucket', async () => {
    await expect(store.write('jobs/big/upload', chunks(randomBytes(10 * 1024 * 1024)), { maxBytes: 9 * 1024 * 1024 })).rejects.toBeInstanceOf(
      BlobTooLargeError,
    );
    expect(await keys('tenant-a/jobs/big')).toEqual([]);
    expect(await store.read('jobs/big/upload')).toBeNull();
  });

  it('deletes a whole prefix', async () => {
    await store.write('jobs/p/upload', chunks(Buffer.from('a')));
    await store.write('jobs/p/artifact.json', chunks(Buffer.from('{}')));
    await store.deletePrefix('jobs/p');
    expect(await keys('tenant-a/jobs/p/')).toEqual([]);
  });
});

describe('a tenant app with its own S3 storage', () => {
  let s3: TestS3;
  let env: TestEnv;
  let n: TestNode;
  beforeAll(async () => {
    s3 = await startS3('tenant-bucket');
    // The tenant's storage is s3rver on loopback.
    env = await createTestEnv('embedded', { DOCPARSE_OUTBOUND_ALLOW: '127.0.0.0/8' });
    n = await startTestNode(env);
  });
  afterAll(async () => {
    await n?.close();
    if (env) await destroyTestEnv(env);
    await s3?.close();
  });

  it('stores upload and artifact in the tenant bucket (sealed credentials) and serves the result through the API', async () => {
    const app = await createApp(n.node, {});
    const sealer = new Sealer(await resolveMasterKey(n.node.config));
    const out: string[] = [];
    const code = await runAdmin(
      [
        'storage',
        'create',
        '--tenant',
        app.tenantId,
        '--provider',
        'other-s3',
        '--endpoint',
        s3.endpoint,
        '--bucket',
        s3.bucket,
        '--prefix',
        'docparse',
        '--access-key-id',
        s3.accessKeyId,
        '--secret-access-key',
        s3.secretAccessKey,
        '--path-style',
        '--json',
      ],
      n.node.controlPlane as SqlControlPlaneStore,
      (l) => out.push(l),
      { sealer },
    );
    expect(code).toBe(0);
    const cfg = JSON.parse(out.at(-1)!) as { id: string };
    const stored = await n.node.controlPlane.getStorageConfig(cfg.id);
    expect(stored!.secretAccessKeySealed).not.toContain(s3.secretAccessKey);
    expect(sealer.open(stored!.secretAccessKeySealed, storageSecretContext(app.tenantId))).toBe(s3.secretAccessKey);
    expect(await runAdmin(['app', 'set-storage', app.appId, cfg.id], n.node.controlPlane as SqlControlPlaneStore, () => {}, { sealer })).toBe(0);

    const token = await getToken(n.url, app.clientId, app.clientSecret);
    const before = await filesUnder(`${env.dataDir}/blobs`);
    // The app's limits are cached for a few seconds; wait for the new storage to apply.
    await new Promise((r) => setTimeout(r, 5100));
    const res = await fetch(`${n.url}/api/v1/documents/upload?fileName=s.csv&csvRoute=Tabular&documentId=in-s3`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: 'a,b\n1,2\n3,4\n',
    });
    expect(res.status).toBe(202);
    await waitFor(
      async () =>
        ((await (await fetch(`${n.url}/api/v1/documents/in-s3/status`, { headers: { authorization: `Bearer ${token}` } })).json()) as { statusInt: number })
          .statusInt === 8,
      'completion',
    );
    const result = await fetch(`${n.url}/api/v1/documents/in-s3/result`, { headers: { authorization: `Bearer ${token}` } });
    expect(result.status).toBe(200);
    expect(((await result.json()) as { content: { rowCount: number } }).content.rowCount).toBe(2);

    const client = new S3Client({
      endpoint: s3.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    });
    const objects = ((await client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: 'docparse/' }))).Contents ?? []).map((o) => o.Key!);
    client.destroy();
    expect(objects.some((k) => k.endsWith('/upload'))).toBe(true);
    expect(objects.some((k) => k.endsWith('/artifact.json'))).toBe(true);
    // Nothing of this tenant's document landed on the node's disk.
    expect(await filesUnder(`${env.dataDir}/blobs`)).toEqual(before);
  });
});

describe('a node whose own storage is an S3 bucket (DOCPARSE_S3_BUCKET)', () => {
  it('keeps uploads and artifacts in the bucket, none on local disk', async () => {
    const s3 = await startS3('node-bucket');
    const env = await createTestEnv('embedded', {
      DOCPARSE_S3_BUCKET: s3.bucket,
      DOCPARSE_S3_ENDPOINT: s3.endpoint,
      DOCPARSE_S3_ACCESS_KEY_ID: s3.accessKeyId,
      DOCPARSE_S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
      DOCPARSE_S3_FORCE_PATH_STYLE: 'true',
      DOCPARSE_S3_PREFIX: 'node-a',
    });
    const n = await startTestNode(env);
    try {
      const token = await getToken(n.url, 'demo-client', 'demo-secret-0123456789');
      const res = await fetch(`${n.url}/api/v1/documents/upload?fileName=n.csv&csvRoute=Tabular&documentId=node-s3`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
        body: 'x\n1\n2\n3\n',
      });
      expect(res.status).toBe(202);
      await waitFor(
        async () =>
          ((await (await fetch(`${n.url}/api/v1/documents/node-s3/status`, { headers: { authorization: `Bearer ${token}` } })).json()) as { statusInt: number })
            .statusInt === 8,
        'completion',
      );
      const artifact = (await (await fetch(`${n.url}/api/v1/documents/node-s3/result`, { headers: { authorization: `Bearer ${token}` } })).json()) as {
        content: { rowCount: number };
      };
      expect(artifact.content.rowCount).toBe(3);
      const client = new S3Client({
        endpoint: s3.endpoint,
        region: 'us-east-1',
        forcePathStyle: true,
        credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
      });
      const objects = ((await client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: 'node-a/jobs/' }))).Contents ?? []).map((o) => o.Key!);
      client.destroy();
      expect(objects.filter((k) => k.endsWith('/upload') || k.endsWith('/artifact.json'))).toHaveLength(2);
      expect(await filesUnder(`${env.dataDir}/blobs`)).toEqual([]);
      const ready = await fetch(`${n.url}/health/ready`);
      expect(ready.status).toBe(200);
    } finally {
      await n.close();
      await destroyTestEnv(env);
      await s3.close();
    }
  });
});
