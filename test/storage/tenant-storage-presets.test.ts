// Tenant storage presets and failures (issue 29, items 2 and 3), on a real node against two real
// S3-compatible servers over HTTP (s3rver): one is the node's own bucket, the other the
// tenant's. The presets are listed; a new config is resolved against its preset; the live
// check writes, reads and deletes a probe object and names what failed (credentials, bucket,
// permission) in the fixed failure terms, storing nothing then; an app's documents and results
// land in the tenant's bucket only and are served through the API; a bucket deleted mid-job
// sends the job to retrying, then fails it with storage_unavailable naming the bucket, with
// nothing written to the node's bucket and nothing charged.
import { randomUUID } from 'node:crypto';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OperatorKeysStore } from '../../src/tenancy/operator-keys-store.js';
import type { SqlControlPlaneStore } from '../../src/tenancy/sql-store.js';
import { PresetRuleError, resolveStorageSettings, STORAGE_PRESETS } from '../../src/storage/presets.js';
import { storageFailureTerm } from '../../src/outbound/failure-terms.js';
import { OutboundPolicy } from '../../src/outbound/outbound-policy.js';
import { S3BlobStore } from '../../src/storage/s3-blob-store.js';
import { createApp, createTestEnv, destroyTestEnv, getToken, startTestNode, waitFor, type TestEnv, type TestNode } from '../helpers/node.js';
import { startS3, type TestS3 } from '../helpers/s3.js';
import { selfSignedCertificate, type TestCertificate } from '../helpers/tls.js';

describe('storage presets resolve a new config', () => {
  it('fills each template from the region and account id, and keeps each preset’s addressing and checksum mode', () => {
    expect(resolveStorageSettings({ provider: 's3', region: 'eu-west-1' })).toEqual({
      provider: 's3',
      endpoint: 'https://s3.eu-west-1.amazonaws.com',
      region: 'eu-west-1',
      forcePathStyle: false,
      checksums: 'when_supported',
    });
    expect(resolveStorageSettings({ provider: 'r2', accountId: 'abc123' })).toMatchObject({
      endpoint: 'https://abc123.r2.cloudflarestorage.com',
      region: 'auto',
      checksums: 'when_required',
    });
    expect(resolveStorageSettings({ provider: 'b2', region: 'eu-central-003' }).endpoint).toBe('https://s3.eu-central-003.backblazeb2.com');
    expect(resolveStorageSettings({ provider: 'wasabi', region: 'eu-central-1' }).endpoint).toBe('https://s3.eu-central-1.wasabisys.com');
    expect(resolveStorageSettings({ provider: 'spaces', region: 'ams3' }).endpoint).toBe('https://ams3.digitaloceanspaces.com');
    expect(resolveStorageSettings({ provider: 'gcs-s3' })).toMatchObject({ endpoint: 'https://storage.googleapis.com', region: 'auto', forcePathStyle: true });
    expect(resolveStorageSettings({ provider: 'minio', endpoint: 'https://minio.example.com:9000/' })).toMatchObject({
      endpoint: 'https://minio.example.com:9000',
      forcePathStyle: true,
    });
    // A custom template, and other-s3 (its earlier name) saved as custom.
    expect(
      resolveStorageSettings({
        provider: 'other-s3',
        endpoint: 'https://{accountId}.{region}.store.example',
        region: 'x1',
        accountId: 'acme',
        forcePathStyle: false,
      }),
    ).toEqual({ provider: 'custom', endpoint: 'https://acme.x1.store.example', region: 'x1', forcePathStyle: false, checksums: 'when_required' });
  });

  it('refuses what a preset’s rules exclude, naming the parameter', () => {
    const refusal = (input: Parameters<typeof resolveStorageSettings>[0]) => {
      try {
        resolveStorageSettings(input);
        return null;
      } catch (err) {
        expect(err).toBeInstanceOf(PresetRuleError);
        return (err as PresetRuleError).parameter;
      }
    };
    expect(refusal({ provider: 'r2', region: 'us-east-1', accountId: 'a' })).toBe('region');
    expect(refusal({ provider: 'r2' })).toBe('accountId');
    expect(refusal({ provider: 'spaces', region: 'eu-west-1' })).toBe('region');
    expect(refusal({ provider: 'minio' })).toBe('endpoint');
    expect(refusal({ provider: 'custom', endpoint: 'https://{bucket}.example' })).toBe('endpoint');
    expect(refusal({ provider: 'ftp' })).toBe('provider');
  });

  it('tells socket errors by layer: DNS and TLS by name, everything else as not reachable', () => {
    expect(storageFailureTerm(Object.assign(new Error('x'), { code: 'ENOTFOUND' }))).toBe('DNS lookup failed');
    expect(storageFailureTerm(Object.assign(new Error('x'), { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }))).toBe('TLS handshake failed');
    expect(storageFailureTerm(Object.assign(new Error('x'), { code: 'ERR_TLS_CERT_ALTNAME_INVALID' }))).toBe('TLS handshake failed');
    expect(storageFailureTerm(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }))).toBe('endpoint not reachable');
    expect(storageFailureTerm(Object.assign(new Error('x'), { code: 'EOUTBOUNDREFUSED' }))).toBe('endpoint not reachable');
  });
});

describe("a tenant's own bucket on a node with its own bucket", { timeout: 120_000 }, () => {
  let t: TestEnv;
  let n: TestNode;
  let nodeS3: TestS3;
  let tenantS3: TestS3;
  let operatorKey: string;
  const clients: S3Client[] = [];

  const m = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${n.url}/manage/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${operatorKey}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, text, body: text ? JSON.parse(text) : null };
  };
  const keysIn = async (s3: TestS3, bucket = s3.bucket) => {
    const client = new S3Client({
      endpoint: s3.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    });
    clients.push(client);
    return ((await client.send(new ListObjectsV2Command({ Bucket: bucket }))).Contents ?? []).map((o) => o.Key!);
  };
  const tenantStorage = (over: Record<string, unknown> = {}) => ({
    provider: 'minio',
    endpoint: tenantS3.endpoint,
    bucket: tenantS3.bucket,
    prefix: 'docparse',
    accessKeyId: tenantS3.accessKeyId,
    secretAccessKey: tenantS3.secretAccessKey,
    ...over,
  });
  const configsOf = async (tenantId: string) => (await m('GET', `/tenants/${tenantId}/storage-configs`)).body.items as unknown[];

  /** An app whose documents live in a fresh bucket of the tenant's server (checked and saved through the API). */
  async function appOnOwnBucket() {
    const app = await createApp(n.node, null);
    const bucket = `tenant-${randomUUID().slice(0, 8)}`;
    await tenantS3.createBucket(bucket);
    const saved = await m('POST', `/tenants/${app.tenantId}/storage-configs`, tenantStorage({ bucket }));
    expect(saved.status, saved.text).toBe(201);
    expect((await m('PATCH', `/apps/${app.appId}`, { storageConfigId: saved.body.id })).status).toBe(200);
    const token = await getToken(n.url, app.clientId, app.clientSecret);
    return { ...app, bucket, auth: { authorization: `Bearer ${token}` } };
  }

  beforeAll(async () => {
    nodeS3 = await startS3(`node-${randomUUID().slice(0, 8)}`);
    tenantS3 = await startS3(`tenant-${randomUUID().slice(0, 8)}`);
    t = await createTestEnv('embedded', {
      DOCPARSE_SEED_DEMO: 'false',
      DOCPARSE_OUTBOUND_ALLOW: '127.0.0.0/8',
      DOCPARSE_MAX_ATTEMPTS: '2',
      DOCPARSE_S3_BUCKET: nodeS3.bucket,
      DOCPARSE_S3_ENDPOINT: nodeS3.endpoint,
      DOCPARSE_S3_ACCESS_KEY_ID: nodeS3.accessKeyId,
      DOCPARSE_S3_SECRET_ACCESS_KEY: nodeS3.secretAccessKey,
      DOCPARSE_S3_FORCE_PATH_STYLE: 'true',
    });
    n = await startTestNode(t);
    operatorKey = (await new OperatorKeysStore((n.node.controlPlane as SqlControlPlaneStore).db).create('presets')).key;
  }, 60_000);
  afterAll(async () => {
    for (const c of clients) c.destroy();
    await n?.close();
    await nodeS3?.close();
    await tenantS3?.close();
    if (t) await destroyTestEnv(t);
  });

  it('GET /manage/v1/storage-presets lists the eight presets with their rules', async () => {
    const presets = await m('GET', '/storage-presets');
    expect(presets.status).toBe(200);
    expect(presets.body.items.map((p: { id: string }) => p.id)).toEqual(['s3', 'r2', 'b2', 'wasabi', 'spaces', 'gcs-s3', 'minio', 'custom']);
    expect(presets.body.items).toEqual(JSON.parse(JSON.stringify(STORAGE_PRESETS)));
    expect(presets.body.items.find((p: { id: string }) => p.id === 'r2')).toMatchObject({
      endpointTemplate: 'https://{accountId}.r2.cloudflarestorage.com',
      needsAccountId: true,
      region: { default: 'auto', fixed: true },
      checksums: 'when_required',
    });
  });

  it('the check names what failed — the key, the bucket, the permission to write — and nothing is stored', async () => {
    const app = await createApp(n.node, null);
    const path = `/tenants/${app.tenantId}/storage-configs`;

    const wrongKey = await m('POST', path, tenantStorage({ accessKeyId: 'NOBODY' }));
    expect(wrongKey.status).toBe(422);
    expect(wrongKey.body).toMatchObject({ code: 'storage_unreachable', bucket: tenantS3.bucket, reason: 'access denied' });

    const missing = await m('POST', path, tenantStorage({ bucket: 'no-such-bucket' }));
    expect(missing.body).toMatchObject({ code: 'storage_unreachable', bucket: 'no-such-bucket', reason: 'bucket not found', step: 'bucket' });

    const readOnly = await m('POST', path, tenantStorage({ accessKeyId: tenantS3.readOnlyAccessKeyId, secretAccessKey: tenantS3.readOnlySecretAccessKey }));
    expect(readOnly.body).toMatchObject({ code: 'storage_unreachable', reason: 'permission denied', step: 'write' });
    expect(readOnly.body.detail).toBe(
      `Bucket ${JSON.stringify(tenantS3.bucket)} could not be written to with these credentials: permission denied; nothing was saved.`,
    );

    // A rule of the preset: refused before anything is sent.
    const badRegion = await m('POST', path, tenantStorage({ provider: 'r2', endpoint: undefined, accountId: 'acme', region: 'eu-west-1' }));
    expect(badRegion.status).toBe(400);
    expect(badRegion.body).toMatchObject({ code: 'invalid_parameter', parameter: 'region' });

    expect(await configsOf(app.tenantId)).toEqual([]);
    expect(await keysIn(tenantS3)).toEqual([]);

    // The right key: checked (the probe written, read and deleted) and saved; other-s3 is saved as custom.
    const saved = await m('POST', path, tenantStorage({ provider: 'other-s3' }));
    expect(saved.status, saved.text).toBe(201);
    expect(saved.body).toMatchObject({
      provider: 'custom',
      endpoint: tenantS3.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      checksums: 'when_required',
    });
    expect(await keysIn(tenantS3)).toEqual([]);
  });

  it("an app's upload and result land in the tenant's bucket only, and the result is served through the API", async () => {
    const app = await appOnOwnBucket();
    const before = await keysIn(nodeS3);
    const up = await fetch(`${n.url}/api/v1/documents/upload?fileName=a.csv&csvRoute=Tabular&documentId=own-bucket`, {
      method: 'POST',
      headers: app.auth,
      body: 'a,b\n1,2\n3,4\n',
    });
    expect(up.status, await up.clone().text()).toBe(202);
    const status = await waitFor(async () => {
      const s = (await (await fetch(`${n.url}/api/v1/documents/own-bucket/status`, { headers: app.auth })).json()) as { statusInt: number };
      return s.statusInt >= 8 ? s : null;
    }, 'the job to finish');
    expect(status.statusInt).toBe(8);
    const result = await fetch(`${n.url}/api/v1/documents/own-bucket/result`, { headers: app.auth });
    expect(result.status).toBe(200);
    expect(((await result.json()) as { documentId: string }).documentId).toBe('own-bucket');

    const keys = await keysIn(tenantS3, app.bucket);
    expect(keys.some((k) => k.startsWith('docparse/') && k.endsWith('/upload'))).toBe(true);
    expect(keys.some((k) => k.startsWith('docparse/') && k.endsWith('/artifact.json'))).toBe(true);
    expect(await keysIn(nodeS3)).toEqual(before);
    expect(await n.node.controlPlane.listUsage({ appId: app.appId })).toHaveLength(1);

    // The bucket deleted afterwards: the result is not "gone" (404) but the storage failing, named.
    await tenantS3.deleteBucket(app.bucket);
    const lost = await fetch(`${n.url}/api/v1/documents/own-bucket/result`, { headers: app.auth });
    expect(lost.status).toBe(502);
    expect(await lost.json()).toMatchObject({ code: 'storage_unavailable', bucket: app.bucket, reason: 'bucket not found' });
  });

  it('a bucket deleted mid-job: retrying, then failed storage_unavailable naming the bucket; nothing in the node bucket, nothing charged', async () => {
    const app = await appOnOwnBucket();
    const before = await keysIn(nodeS3);
    // The parse has run; the tenant deletes the bucket as the worker writes the result.
    tenantS3.beforeRequest = async ({ method, path }) => {
      if (method === 'PUT' && path.startsWith(`/${app.bucket}/`) && path.endsWith('/artifact.json')) await tenantS3.deleteBucket(app.bucket);
    };
    try {
      const up = await fetch(`${n.url}/api/v1/documents/upload?fileName=a.csv&csvRoute=Tabular&documentId=bucket-gone`, {
        method: 'POST',
        headers: app.auth,
        body: 'a,b\n1,2\n',
      });
      expect(up.status).toBe(202);
      const seen = new Set<number>();
      const failed = await waitFor(async () => {
        const s = (await (await fetch(`${n.url}/api/v1/documents/bucket-gone/status`, { headers: app.auth })).json()) as {
          statusInt: number;
          status: string;
          attempts: number;
          error?: { code: string; message: string };
        };
        seen.add(s.statusInt);
        return s.statusInt === 9 ? s : null;
      }, 'the job to fail');
      expect(seen.has(5)).toBe(true); // retrying
      expect(failed.attempts).toBe(2);
      expect(failed.error?.code).toBe('storage_unavailable');
      expect(failed.error?.message).toBe(
        `The app's own storage (bucket ${JSON.stringify(app.bucket)}) could not be used: bucket not found. (after 2 attempts)`,
      );
      const result = await fetch(`${n.url}/api/v1/documents/bucket-gone/result`, { headers: app.auth });
      expect(result.status).toBe(422);
    } finally {
      tenantS3.beforeRequest = null;
    }
    expect(await keysIn(nodeS3)).toEqual(before);
    expect(await n.node.controlPlane.listUsage({ appId: app.appId })).toEqual([]);
  });
});

describe('the check names a DNS and a TLS failure as such', () => {
  let certificate: TestCertificate;
  let tls: https.Server;
  let port: number;

  beforeAll(async () => {
    // A self-signed certificate: the TLS handshake itself fails, after the connection is made.
    certificate = await selfSignedCertificate();
    tls = https.createServer({ key: certificate.key, cert: certificate.cert }, (_req, res) => res.writeHead(200).end());
    await new Promise<void>((r) => tls.listen(0, '127.0.0.1', r));
    port = (tls.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((r) => tls?.close(r));
    await certificate?.remove();
  });

  const check = async (endpoint: string) => {
    const store = new S3BlobStore(
      { endpoint, region: 'us-east-1', bucket: 'docs', prefix: '', accessKeyId: 'AK', secretAccessKey: 'SK', forcePathStyle: true },
      new OutboundPolicy({ allow: ['127.0.0.0/8'] }),
    );
    try {
      return await store.check(5_000);
    } finally {
      store.close();
    }
  };

  it('a host name that does not resolve: "DNS lookup failed"', async () => {
    expect(await check('https://no-such-storage.invalid')).toEqual({ reason: 'DNS lookup failed', step: 'bucket' });
  });

  it('a certificate the node does not trust: "TLS handshake failed"', async () => {
    expect(await check(`https://127.0.0.1:${port}`)).toEqual({ reason: 'TLS handshake failed', step: 'bucket' });
  });
});
