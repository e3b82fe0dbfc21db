// The storage check of the management API is no port scanner (issue 26): on a real node, a
// signed-in user's new, not yet activated tenant asks the node to check storage at every form
// of a loopback or private address; each is refused with the fixed reason, nothing reaches
// the listeners, and the answer never repeats a network error. A tenant gets 10 checks a
// minute. Storage an operator saved unchecked on such an address is refused at use: the
// upload fails with storage_unavailable and nothing is written.
import { randomUUID } from 'node:crypto';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import type { RequestContext } from '../../src/http/route.js';
import { startNode, type RunningNode } from '../../src/node.js';
import { MembersStore } from '../../src/tenancy/members-store.js';
import { OperatorKeysStore } from '../../src/tenancy/operator-keys-store.js';
import type { SqlControlPlaneStore } from '../../src/tenancy/sql-store.js';
import { createApp, createTestEnv, destroyTestEnv, getToken, type TestEnv } from '../helpers/node.js';
import { startS3, type TestS3 } from '../helpers/s3.js';
import { startCountingListener, type CountingListener } from '../outbound/counting-listener.js';

/** The signed-in dashboard user, by header (as test/manage/api-suite.ts does); the rest is the real code. */
const CSRF = 'outbound-csrf';
const signedInUser = async (ctx: RequestContext) => {
  const email = ctx.headers['x-test-user'];
  return email ? { userId: `user:${email}`, email, csrfToken: CSRF } : null;
};

/** What must never appear in an answer: the network error, the address class, the SDK's words. */
const RAW = /ECONNREFUSED|EOUTBOUNDREFUSED|ENOTFOUND|ETIMEDOUT|loopback|private|linkLocal|Unknown|socket|connect /i;

describe('storage checks through the outbound policy (management API)', () => {
  let t: TestEnv;
  let node: RunningNode;
  let url: string;
  let operatorKey: string;
  let v4: CountingListener;
  let v6: CountingListener;
  let s3: TestS3;

  type As = { user: string } | { key: string };
  const ALICE = { user: 'alice@example.test' };
  async function m(method: string, path: string, as: As, body?: unknown) {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if ('user' in as) Object.assign(headers, { 'x-test-user': as.user, 'x-csrf-token': CSRF });
    else headers.authorization = `Bearer ${as.key}`;
    const res = await fetch(`${url}/manage/v1${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, body: text ? JSON.parse(text) : null };
  }
  /** A tenant still Pending Activation that Alice owns (an operator makes it: a user may create only 3 pending ones). */
  const newTenant = async () => {
    const created = await m('POST', '/tenants', { key: operatorKey }, { name: `t-${randomUUID().slice(0, 8)}` });
    expect(created.body.state, created.text).toBe('Pending Activation');
    await new MembersStore((node.controlPlane as SqlControlPlaneStore).db).upsertMember({ tenantId: created.body.id, email: ALICE.user, role: 'owner' });
    return created.body.id as string;
  };
  const storage = (endpoint: string) => ({ provider: 'minio', endpoint, bucket: 'docs', accessKeyId: 'AK', secretAccessKey: 'SK', forcePathStyle: true });

  beforeAll(async () => {
    v4 = await startCountingListener();
    v6 = await startCountingListener({ host: '::1', port: v4.port });
    s3 = await startS3(`tenant-${randomUUID().slice(0, 8)}`);
    t = await createTestEnv('embedded', { DOCPARSE_SEED_DEMO: 'false' });
    node = await startNode(loadConfig(t.env, ['api', 'auth']), { logger: pino({ level: 'silent' }), redisPrefix: t.redisPrefix, manageSessions: signedInUser });
    url = `http://127.0.0.1:${node.port}`;
    operatorKey = (await new OperatorKeysStore((node.controlPlane as SqlControlPlaneStore).db).create('outbound')).key;
  });
  afterAll(async () => {
    await node?.close();
    await v4?.close();
    await v6?.close();
    await s3?.close();
    if (t) await destroyTestEnv(t);
  });

  it('refuses every loopback, private, link-local, CGNAT, multicast and metadata form with "endpoint not reachable"; nothing reaches the listeners', async () => {
    const p = v4.port;
    // Loopback forms first: the listeners would see them. Only when all are refused do the
    // others (which no listener here could see) get sent to the node.
    const loopback = [
      `http://127.0.0.1:${p}`,
      `http://127.1:${p}`,
      `http://2130706433:${p}`,
      `http://0x7f000001:${p}`,
      `http://0177.0.0.1:${p}`,
      `http://[::1]:${p}`,
      `http://[::ffff:127.0.0.1]:${p}`,
      `http://[::ffff:7f00:1]:${p}`,
      `http://0.0.0.0:${p}`,
      `http://localhost:${p}`,
    ];
    const elsewhere = [
      'http://169.254.169.254',
      'http://[fd00:ec2::254]',
      'http://10.0.0.1:9000',
      'http://172.16.0.1:9000',
      'http://192.168.0.1:9000',
      'http://100.64.0.1:9000',
      'http://[fc00::1]:9000',
      'http://[fe80::1]:9000',
      'http://224.0.0.1:9000',
    ];
    for (const [i, endpoint] of [...loopback, ...elsewhere].entries()) {
      const tenantId = await newTenant();
      const answer = await m('POST', `/tenants/${tenantId}/storage-configs`, ALICE, storage(endpoint));
      expect(answer.status, endpoint).toBe(422);
      expect(answer.body, endpoint).toMatchObject({ code: 'storage_unreachable', bucket: 'docs', reason: 'endpoint not reachable' });
      expect(answer.body.detail).toBe('Bucket "docs" could not be reached with these credentials: endpoint not reachable; nothing was saved.');
      expect(answer.text, endpoint).not.toMatch(RAW);
      expect((await m('GET', `/tenants/${tenantId}/storage-configs`, ALICE)).body.items).toEqual([]);
      if (i === loopback.length - 1) {
        expect(v4.connections + v6.connections).toBe(0);
        expect([...v4.requests, ...v6.requests]).toEqual([]);
      }
    }
    expect(v4.connections + v6.connections).toBe(0);
  });

  it('refuses an endpoint with credentials in its URL as a bad parameter, without a request', async () => {
    const tenantId = await newTenant();
    const answer = await m('POST', `/tenants/${tenantId}/storage-configs`, ALICE, storage(`http://user:pw@127.0.0.1:${v4.port}`));
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: 'invalid_parameter', parameter: 'endpoint' });
    expect(v4.connections).toBe(0);
  });

  it('the 11th check of a tenant in a minute answers 429 with Retry-After, checks nothing; other tenants are not held up', async () => {
    // Ten checks and the eleventh inside one fixed minute (they take milliseconds).
    const second = new Date().getUTCSeconds();
    if (second > 45) await new Promise((r) => setTimeout(r, (61 - second) * 1000));
    const tenantId = await newTenant();
    const body = storage(`http://127.0.0.1:${v4.port}`);
    for (let i = 0; i < 10; i++) expect((await m('POST', `/tenants/${tenantId}/storage-configs`, ALICE, body)).status).toBe(422);
    const limited = await m('POST', `/tenants/${tenantId}/storage-configs`, ALICE, body);
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ code: 'rate_limited', limit: 10 });
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect((await m('POST', `/tenants/${await newTenant()}/storage-configs`, ALICE, body)).status).toBe(422);

    // The ten checks are on the audit record, with their endpoint and reason; the refused eleventh checked nothing.
    const audit = await m('GET', `/audit?tenantId=${tenantId}&limit=100`, ALICE);
    const failed = audit.body.items.filter((e: { action: string }) => e.action === 'storage.check-failed');
    expect(failed).toHaveLength(10);
    expect(failed[0]).toMatchObject({
      actor: { email: ALICE.user },
      diff: { endpoint: `http://127.0.0.1:${v4.port}`, bucket: 'docs', reason: 'endpoint not reachable' },
    });
    expect(v4.connections).toBe(0);
  });

  it('storage an operator saved unchecked on a loopback address is refused at use: the upload fails, nothing is written or charged', async () => {
    const app = await createApp(node, null);
    const op = { key: operatorKey };
    const saved = await m('POST', `/tenants/${app.tenantId}/storage-configs`, op, {
      ...storage(s3.endpoint),
      bucket: s3.bucket,
      accessKeyId: s3.accessKeyId,
      secretAccessKey: s3.secretAccessKey,
      verify: false,
    });
    expect(saved.status).toBe(201);
    expect((await m('PATCH', `/apps/${app.appId}`, op, { storageConfigId: saved.body.id })).body.storageConfigId).toBe(saved.body.id);

    const token = await getToken(url, app.clientId, app.clientSecret);
    const auth = { authorization: `Bearer ${token}` };
    const upload = await fetch(`${url}/api/v1/documents/upload?fileName=a.csv&csvRoute=Tabular&documentId=to-loopback`, {
      method: 'POST',
      headers: auth,
      body: 'a,b\n1,2\n',
    });
    const text = await upload.text();
    expect(upload.status).toBe(502);
    expect(JSON.parse(text)).toMatchObject({ code: 'storage_unavailable', bucket: s3.bucket, reason: 'endpoint not reachable' });
    expect(text).not.toMatch(RAW);
    expect((await fetch(`${url}/api/v1/documents/to-loopback/status`, { headers: auth })).status).toBe(404);
    expect(await node.controlPlane.listUsage({ appId: app.appId })).toEqual([]);

    const client = new S3Client({
      endpoint: s3.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    });
    try {
      expect((await client.send(new ListObjectsV2Command({ Bucket: s3.bucket }))).Contents ?? []).toEqual([]);
    } finally {
      client.destroy();
    }
  });
});

describe('storage checks where the operator allows a range (DOCPARSE_OUTBOUND_ALLOW=127.0.0.0/8)', () => {
  let t: TestEnv;
  let node: RunningNode;
  let url: string;
  let s3: TestS3;
  let operatorKey: string;
  const m = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${url}/manage/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${operatorKey}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any };
  };

  beforeAll(async () => {
    s3 = await startS3(`onprem-${randomUUID().slice(0, 8)}`);
    t = await createTestEnv('embedded', { DOCPARSE_SEED_DEMO: 'false', DOCPARSE_OUTBOUND_ALLOW: '127.0.0.0/8' });
    node = await startNode(loadConfig(t.env, ['api', 'auth']), { logger: pino({ level: 'silent' }), redisPrefix: t.redisPrefix });
    url = `http://127.0.0.1:${node.port}`;
    operatorKey = (await new OperatorKeysStore((node.controlPlane as SqlControlPlaneStore).db).create('outbound')).key;
  });
  afterAll(async () => {
    await node?.close();
    await s3?.close();
    if (t) await destroyTestEnv(t);
  });

  it('the check reaches the S3 server in the allowed range and saves; uploads are written there', async () => {
    const app = await createApp(node, null);
    const saved = await m('POST', `/tenants/${app.tenantId}/storage-configs`, {
      provider: 'minio',
      endpoint: s3.endpoint,
      bucket: s3.bucket,
      accessKeyId: s3.accessKeyId,
      secretAccessKey: s3.secretAccessKey,
      forcePathStyle: true,
    });
    expect(saved.status).toBe(201);
    expect(saved.body).toMatchObject({ endpoint: s3.endpoint, bucket: s3.bucket });
    const missing = await m('POST', `/tenants/${app.tenantId}/storage-configs`, {
      endpoint: s3.endpoint,
      bucket: 'no-such-bucket',
      accessKeyId: s3.accessKeyId,
      secretAccessKey: s3.secretAccessKey,
      forcePathStyle: true,
    });
    expect(missing.body).toMatchObject({ code: 'storage_unreachable', reason: 'bucket not found' });
    // [::1] is not in the allowed range.
    const v6 = await m('POST', `/tenants/${app.tenantId}/storage-configs`, {
      endpoint: s3.endpoint.replace('127.0.0.1', '[::1]'),
      bucket: s3.bucket,
      accessKeyId: s3.accessKeyId,
      secretAccessKey: s3.secretAccessKey,
      forcePathStyle: true,
    });
    expect(v6.body).toMatchObject({ code: 'storage_unreachable', reason: 'endpoint not reachable' });

    await m('PATCH', `/apps/${app.appId}`, { storageConfigId: saved.body.id });
    const token = await getToken(url, app.clientId, app.clientSecret);
    const upload = await fetch(`${url}/api/v1/documents/upload?fileName=a.csv&csvRoute=Tabular&documentId=on-prem`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: 'a,b\n1,2\n',
    });
    expect(upload.status).toBe(202);
    const client = new S3Client({
      endpoint: s3.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    });
    try {
      const keys = ((await client.send(new ListObjectsV2Command({ Bucket: s3.bucket }))).Contents ?? []).map((o) => o.Key!);
      expect(keys.some((k) => k.endsWith('/upload'))).toBe(true);
    } finally {
      client.destroy();
    }
  });

  it('follows no redirect: a listener redirecting to another fails the check, and the other never sees a request', async () => {
    const target = await startCountingListener();
    const redirecting = await startCountingListener({ answer: (req, res) => res.writeHead(307, { location: `${target.url}${req.url}` }).end() });
    try {
      const app = await createApp(node, null);
      const answer = await m('POST', `/tenants/${app.tenantId}/storage-configs`, {
        endpoint: redirecting.url,
        bucket: 'docs',
        accessKeyId: 'AK',
        secretAccessKey: 'SK',
        forcePathStyle: true,
      });
      expect(answer.status).toBe(422);
      expect(answer.body).toMatchObject({ code: 'storage_unreachable', reason: 'endpoint not reachable' });
      expect(redirecting.requests.length).toBeGreaterThan(0);
      expect(target.connections).toBe(0);
      expect(target.requests).toEqual([]);
    } finally {
      await redirecting.close();
      await target.close();
    }
  });
});
