// Two regions as two deployments on 127.0.0.1: region `eu` (a node on the cluster's Redis and
// bucket) and region `us` (a node on a Redis and a bucket of its own, and a second `us` node
// that does not forward), sharing only the control plane and the master key, as regions do.
// An app licensed for `eu-central-1` (in `eu` by the prefix rule) is served through the `us`
// node — upload, status, batch, result, a presigned upload PUT to the `us` node, its tus HEAD —
// every request forwarded to `eu`; the non-forwarding `us` node answers 421 naming `eu`'s base
// URL; the `us` bucket never holds an object of the `eu` app; the management API refuses a
// storage config of another region; and once `eu` is down the `us` node answers 502.
import { CreateBucketCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { OperatorKeysStore } from '../../src/tenancy/operator-keys-store.js';
import { csvOf, startCluster, uploadCsv, type ClusterApp, type TestCluster } from '../helpers/cluster.js';
import { freePort, type ChildNode } from '../helpers/http.js';
import { startRedis, type TestServer } from '../helpers/servers.js';
import { getToken, waitFor } from '../helpers/node.js';

vi.setConfig({ testTimeout: 240_000, hookTimeout: 240_000 });

const US_BUCKET = 'docparse-us';

let cluster: TestCluster;
let usRedis: TestServer;
let s3: S3Client;
let eu: ChildNode;
let us: ChildNode;
let usStrict: ChildNode;
let euApp: ClusterApp;
let usApp: ClusterApp;
let euToken: string;
let usToken: string;

beforeAll(async () => {
  cluster = await startCluster();
  usRedis = await startRedis();
  s3 = new S3Client({
    endpoint: cluster.s3.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: cluster.s3.accessKeyId, secretAccessKey: cluster.s3.secretAccessKey },
  });
  await s3.send(new CreateBucketCommand({ Bucket: US_BUCKET }));
  const [euPort, usPort, strictPort] = [await freePort(), await freePort(), await freePort()];
  const euUrl = `http://127.0.0.1:${euPort}`;
  const usUrl = `http://127.0.0.1:${usPort}`;
  const regionEnv = {
    DOCPARSE_REGION_URLS: `eu=${euUrl},us=${usUrl}`,
    DOCPARSE_REGIONS: 'eu-central-1,us-east-1',
    DOCPARSE_REGION_FORWARD_TIMEOUT_SECONDS: '10',
  };
  const usEnv = { ...regionEnv, DOCPARSE_REGION: 'us-east-1', DOCPARSE_BASE_URL: usUrl, REDIS_URL: usRedis.url, DOCPARSE_S3_BUCKET: US_BUCKET };
  eu = await cluster.startNode('eu', {
    env: { ...regionEnv, PORT: String(euPort), DOCPARSE_REGION: 'eu', DOCPARSE_BASE_URL: euUrl, DOCPARSE_REGION_FORWARDING: 'true' },
  });
  us = await cluster.startNode('us', { env: { ...usEnv, PORT: String(usPort), DOCPARSE_REGION_FORWARDING: 'true' } });
  usStrict = await cluster.startNode('us-strict', { roles: ['api'], env: { ...usEnv, PORT: String(strictPort), DOCPARSE_REGION_FORWARDING: 'false' } });
  euApp = await cluster.createApp({}, { licenseRegion: 'eu-central-1' });
  usApp = await cluster.createApp({}, { licenseRegion: 'us-east-1' });
  // Tokens come from any node: the control plane and the signing keys are shared.
  euToken = await getToken(us.url, euApp.clientId, euApp.clientSecret);
  usToken = await getToken(eu.url, usApp.clientId, usApp.clientSecret);
});

afterAll(async () => {
  s3?.destroy();
  await cluster?.close();
  await usRedis?.close();
});

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Every key in a bucket. */
async function keysIn(bucket: string): Promise<string[]> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, ContinuationToken: token }));
    keys.push(...(page.Contents ?? []).map((o) => o.Key!));
    token = page.NextContinuationToken;
  } while (token);
  return keys;
}

async function completed(url: string, token: string, documentId: string): Promise<void> {
  await waitFor(
    async () => {
      const res = await fetch(`${url}/api/v1/documents/${documentId}/status`, { headers: bearer(token) });
      const body = (await res.json()) as { statusInt?: number };
      if (body.statusInt === 9) throw new Error(`${documentId} failed: ${JSON.stringify(body)}`);
      return res.status === 200 && body.statusInt === 8;
    },
    `${documentId} to complete`,
    120_000,
  );
}

describe('two regions (eu, us): forwarding, 421, residency', () => {
  it("serves an eu app through the us node: direct upload, status, batch and result forwarded to eu; the us app's the other way", async () => {
    const csv = csvOf(1, 50);
    const up = await uploadCsv(us.url, euToken, 'eu-doc-1', csv);
    expect(up.status, await up.clone().text()).toBe(202);
    await completed(us.url, euToken, 'eu-doc-1');

    const batch = await fetch(`${us.url}/api/v1/documents/status/batch`, {
      method: 'POST',
      headers: { ...bearer(euToken), 'content-type': 'application/json', 'x-request-id': 'regions-batch-1' },
      body: JSON.stringify({ documentIds: ['eu-doc-1', 'nope'] }),
    });
    expect(batch.status).toBe(200);
    expect(batch.headers.get('x-request-id')).toBe('regions-batch-1');
    const { results } = (await batch.json()) as { results: { documentId: string; statusInt?: number }[] };
    expect(results.map((r) => [r.documentId, r.statusInt])).toEqual([
      ['eu-doc-1', 8],
      ['nope', undefined],
    ]);

    // The result through us is eu's, byte for byte.
    const [viaUs, atEu] = await Promise.all([us.url, eu.url].map((u) => fetch(`${u}/api/v1/documents/eu-doc-1/result`, { headers: bearer(euToken) })));
    expect(viaUs.status).toBe(200);
    expect(viaUs.headers.get('content-type')).toBe(atEu.headers.get('content-type'));
    const [a, b] = [await viaUs.text(), await atEu.text()];
    expect(a).toBe(b);
    expect(JSON.parse(a)).toMatchObject({ documentId: 'eu-doc-1' });

    // The us app through the eu node goes to us.
    const usUp = await uploadCsv(eu.url, usToken, 'us-doc-1', csvOf(2, 20));
    expect(usUp.status, await usUp.clone().text()).toBe(202);
    await completed(eu.url, usToken, 'us-doc-1');
  });

  it('forwards a presigned upload: upload-request, the PUT and the tus HEAD sent to the us node, upload-complete', async () => {
    const bytes = Buffer.from(csvOf(3, 2000));
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const req = await fetch(`${us.url}/api/v1/documents/upload-request`, {
      method: 'POST',
      headers: { ...bearer(euToken), 'content-type': 'application/json' },
      body: JSON.stringify({ fileName: 'big.csv', sizeBytes: bytes.length, sha256, documentId: 'eu-presigned-1' }),
    });
    expect(req.status, await req.clone().text()).toBe(201);
    const session = (await req.json()) as { uploadId: string; uploadUrl: string };
    // eu issued it: the URL is eu's.
    expect(session.uploadUrl.startsWith(eu.url)).toBe(true);
    // A client (or a balancer) sends it to the us node anyway: the URL carries its region.
    const onUs = session.uploadUrl.replace(eu.url, us.url);
    const put = await fetch(onUs, { method: 'PUT', body: bytes });
    expect(put.status, await put.clone().text()).toBe(204);
    const head = await fetch(onUs, { method: 'HEAD', headers: { 'tus-resumable': '1.0.0' } });
    expect(head.status).toBe(200);
    expect(head.headers.get('upload-offset')).toBe(String(bytes.length));
    expect(head.headers.get('tus-resumable')).toBe('1.0.0');
    const done = await fetch(`${us.url}/api/v1/documents/upload-complete`, {
      method: 'POST',
      headers: { ...bearer(euToken), 'content-type': 'application/json' },
      body: JSON.stringify({ uploadId: session.uploadId, csvRoute: 'Tabular' }),
    });
    expect(done.status, await done.clone().text()).toBe(202);
    await completed(us.url, euToken, 'eu-presigned-1');
  });

  it('forwards resumable (tus) PATCHes sent to the us node, a wrong offset answered by eu with 409', async () => {
    const bytes = Buffer.from(csvOf(6, 3000));
    const req = await fetch(`${us.url}/api/v1/documents/upload-request`, {
      method: 'POST',
      headers: { ...bearer(euToken), 'content-type': 'application/json' },
      body: JSON.stringify({ fileName: 'resumable.csv', sizeBytes: bytes.length, documentId: 'eu-resumable-1' }),
    });
    expect(req.status, await req.clone().text()).toBe(201);
    const session = (await req.json()) as { uploadId: string; uploadUrl: string };
    const onUs = session.uploadUrl.replace(eu.url, us.url);
    const patch = (offset: number, part: Buffer) =>
      fetch(onUs, {
        method: 'PATCH',
        headers: { 'tus-resumable': '1.0.0', 'upload-offset': String(offset), 'content-type': 'application/offset+octet-stream' },
        body: part,
      });
    const half = Math.floor(bytes.length / 2);
    const first = await patch(0, bytes.subarray(0, half));
    expect(first.status, await first.clone().text()).toBe(204);
    expect(first.headers.get('upload-offset')).toBe(String(half));
    const wrong = await patch(1, bytes.subarray(1, half));
    expect(wrong.status).toBe(409);
    expect(await wrong.json()).toMatchObject({ code: 'upload_offset_mismatch', offset: half });
    const second = await patch(half, bytes.subarray(half));
    expect(second.status, await second.clone().text()).toBe(204);
    expect(second.headers.get('upload-offset')).toBe(String(bytes.length));
    const done = await fetch(`${us.url}/api/v1/documents/upload-complete`, {
      method: 'POST',
      headers: { ...bearer(euToken), 'content-type': 'application/json' },
      body: JSON.stringify({ uploadId: session.uploadId, csvRoute: 'Tabular' }),
    });
    expect(done.status, await done.clone().text()).toBe(202);
    await completed(us.url, euToken, 'eu-resumable-1');
  });

  it("refuses with 421 wrong_region naming eu's base URL where the us node does not forward", async () => {
    const status = await fetch(`${usStrict.url}/api/v1/documents/eu-doc-1/status`, { headers: bearer(euToken) });
    expect(status.status).toBe(421);
    expect(status.headers.get('content-type')).toContain('application/problem+json');
    expect(await status.json()).toMatchObject({ code: 'wrong_region', region: 'eu', baseUrl: eu.url });

    const up = await uploadCsv(usStrict.url, euToken, 'eu-doc-refused', csvOf(4, 10));
    expect(up.status).toBe(421);
    expect(await up.json()).toMatchObject({ code: 'wrong_region', baseUrl: eu.url });

    // A signed upload URL of eu, sent to the non-forwarding us node.
    const req = await fetch(`${eu.url}/api/v1/documents/upload-request`, {
      method: 'POST',
      headers: { ...bearer(euToken), 'content-type': 'application/json' },
      body: JSON.stringify({ fileName: 'x.csv', sizeBytes: 5 }),
    });
    const { uploadUrl } = (await req.json()) as { uploadUrl: string };
    const put = await fetch(uploadUrl.replace(eu.url, usStrict.url), { method: 'PUT', body: 'a,b\n1' });
    expect(put.status).toBe(421);
    expect(await put.json()).toMatchObject({ code: 'wrong_region', region: 'eu', baseUrl: eu.url });

    // The OpenAPI document names both answers where they can come.
    const doc = (await (await fetch(`${usStrict.url}/openapi/v1.json`)).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    for (const [p, method] of [
      ['/api/v1/documents/{documentId}/status', 'get'],
      ['/api/v1/documents/upload', 'post'],
      ['/api/v1/uploads/{uploadId}', 'put'],
      ['/api/v1/uploads/{uploadId}', 'patch'],
    ])
      expect(Object.keys(doc.paths[p][method].responses), `${method} ${p}`).toEqual(expect.arrayContaining(['421', '502']));

    // The us app is served by it as ever.
    expect((await fetch(`${usStrict.url}/api/v1/documents/us-doc-1/status`, { headers: bearer(usToken) })).status).toBe(200);
  });

  it('keeps every object of the eu app in the eu bucket and none in the us bucket', async () => {
    const [euKeys, usKeys] = await Promise.all([keysIn(cluster.s3.bucket), keysIn(US_BUCKET)]);
    const of = (keys: string[], app: ClusterApp) => keys.filter((k) => k.includes(app.tenantId));
    // The eu app's uploads and artifacts are there (the listing sees them)…
    expect(of(euKeys, euApp).some((k) => k.endsWith('artifact.json'))).toBe(true);
    expect(of(usKeys, usApp).some((k) => k.endsWith('artifact.json'))).toBe(true);
    // …and never in the other region's bucket.
    expect(of(usKeys, euApp)).toEqual([]);
    expect(of(euKeys, usApp)).toEqual([]);
  });

  it('refuses an app a storage config outside its license region (400 naming the field), and a license region its storage is not in', async () => {
    const opKey = (await new OperatorKeysStore(cluster.control.db).create('regions')).key;
    const storage = (region: string) =>
      cluster.control.createStorageConfig({
        tenantId: euApp.tenantId,
        provider: 'minio',
        endpoint: cluster.s3.endpoint,
        region,
        bucket: 'tenant-bucket',
        prefix: '',
        accessKeyId: 'k',
        secretAccessKeySealed: 'not-used',
        forcePathStyle: true,
      });
    const [inUs, inEu] = [await storage('us-east-1'), await storage('eu-west-1')];
    // A second app of the tenant, so the eu app above keeps the node's storage.
    const spare = await cluster.control.createApp({
      tenantId: euApp.tenantId,
      name: 'spare',
      licenseRegion: 'eu-central-1',
      dbCode: 'db1',
      clientId: `c-spare-${Date.now()}`,
      secretHash: 'x',
    });
    const patch = (body: object) =>
      fetch(`${eu.url}/manage/v1/apps/${spare.id}`, {
        method: 'PATCH',
        headers: { ...bearer(opKey), 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });

    const refused = await patch({ storageConfigId: inUs.id });
    expect(refused.status).toBe(400);
    const problem = (await refused.json()) as { code: string; parameter: string; detail: string };
    expect(problem).toMatchObject({ code: 'invalid_parameter', parameter: 'storageConfigId' });
    expect(problem.detail).toContain('us-east-1');
    expect((await cluster.control.getApp(spare.id))?.storageConfigId).toBeNull();

    // eu-west-1 is in eu, as eu-central-1 is.
    const accepted = await patch({ storageConfigId: inEu.id });
    expect(accepted.status, await accepted.clone().text()).toBe(200);
    expect(await accepted.json()).toMatchObject({ storageConfigId: inEu.id });

    // Moving the app to us while it keeps an eu bucket is refused on licenseRegion.
    const moved = await patch({ licenseRegion: 'us-east-1' });
    expect(moved.status).toBe(400);
    expect(await moved.json()).toMatchObject({ code: 'invalid_parameter', parameter: 'licenseRegion' });
    expect((await cluster.control.getApp(spare.id))?.licenseRegion).toBe('eu-central-1');
  });

  it('answers 502 region_unavailable when eu cannot be reached, and stores nothing in us', async () => {
    eu.kill();
    await eu.exited;
    const res = await uploadCsv(us.url, euToken, 'eu-doc-down', csvOf(5, 10));
    expect(res.status).toBe(502);
    expect(res.headers.get('retry-after')).toBeTruthy();
    expect(await res.json()).toMatchObject({ code: 'region_unavailable', region: 'eu' });
    expect((await keysIn(US_BUCKET)).filter((k) => k.includes(euApp.tenantId))).toEqual([]);
  });
});
