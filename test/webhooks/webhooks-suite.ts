// Signed webhooks over real HTTP, in the embedded mode and with PostgreSQL + Redis: a local
// receiver verifies every delivery with the reference `standardwebhooks` verifier; a 500 is
// retried; addresses the outbound policy refuses are refused at upload with nothing stored;
// replay; the secret from the management API; in the distributed mode two nodes deliver each
// notification once.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DocparseClient } from '../../src/sdk/index.js';
import { OperatorKeysStore } from '../../src/tenancy/operator-keys-store.js';
import type { SqlControlPlaneStore } from '../../src/tenancy/sql-store.js';
import { createApp, createTestEnv, destroyTestEnv, getToken, startTestNode, waitFor, type Mode, type TestEnv, type TestNode } from '../helpers/node.js';
import { startReceiver, type Receiver } from './receiver.js';

interface Status {
  documentId: string;
  statusInt: number;
  webhook?: { state: string; attempts: number; lastStatusCode: number | null; deliveryId: string | null; deliveredAt: string | null; callbackUrl: string };
}

// The receiver listens on 127.0.0.2 and only that address is allowed: 127.0.0.1 (and whatever
// `localhost` resolves to) stays refused, as on a node without DOCPARSE_OUTBOUND_ALLOW.
const RECEIVER_HOST = '127.0.0.2';
const NODE_ENV = { DOCPARSE_ALLOW_HTTP_CALLBACKS: 'true', DOCPARSE_OUTBOUND_ALLOW: `${RECEIVER_HOST}/32`, DOCPARSE_RETENTION_SECONDS: '3600' };

export function webhooksSuite(mode: Mode): void {
  describe(`signed webhooks (${mode})`, () => {
    let env: TestEnv;
    let n: TestNode;
    let receiver: Receiver;
    let operatorKey: string;
    let app: { appId: string; clientId: string; clientSecret: string; tenantId: string };
    let token: string;
    let secret: string;

    const api = (url: string, p: string, init: RequestInit = {}, tok = token) =>
      fetch(`${url}${p}`, { ...init, headers: { authorization: `Bearer ${tok}`, ...(init.headers ?? {}) } });
    const upload = (query: Record<string, string>, body: string, url = n.url, tok = token) =>
      api(url, `/api/v1/documents/upload?${new URLSearchParams(query)}`, { method: 'POST', body }, tok);
    const status = async (id: string, url = n.url): Promise<Status> => (await (await api(url, `/api/v1/documents/${id}/status`)).json()) as Status;
    const manage = async (method: string, path: string) => {
      const res = await fetch(`${n.url}/manage/v1${path}`, { method, headers: { authorization: `Bearer ${operatorKey}` } });
      return { status: res.status, body: (await res.json()) as Record<string, any> };
    };
    const verified = (secretValue: string, r: { headers: Record<string, string>; body: string }) =>
      new Webhook(secretValue).verify(r.body, {
        'webhook-id': r.headers['webhook-id'],
        'webhook-timestamp': r.headers['webhook-timestamp'],
        'webhook-signature': r.headers['webhook-signature'],
      }) as Record<string, unknown>;
    const delivered = (id: string, url = n.url) =>
      waitFor(async () => {
        const s = await status(id, url);
        return s.webhook?.state === 'delivered' ? s : null;
      }, `webhook of ${id}`);

    beforeAll(async () => {
      receiver = await startReceiver(RECEIVER_HOST);
      env = await createTestEnv(mode, NODE_ENV);
      n = await startTestNode(env);
      operatorKey = (await new OperatorKeysStore((n.node.controlPlane as SqlControlPlaneStore).db).create('webhooks')).key;
      app = await createApp(n.node, {});
      token = await getToken(n.url, app.clientId, app.clientSecret);
    });
    afterAll(async () => {
      await n?.close();
      await receiver?.close();
      if (env) await destroyTestEnv(env);
    });

    it('refuses a callbackUrl while the app has no secret (409 webhook_secret_missing), storing nothing; an owner rotates one and reads it back', async () => {
      const id = `no-secret-${randomUUID().slice(0, 8)}`;
      const res = await upload({ fileName: 'a.csv', csvRoute: 'Tabular', documentId: id, callbackUrl: receiver.url }, 'a,b\n1,2\n');
      expect(res.status).toBe(409);
      expect(((await res.json()) as { code: string }).code).toBe('webhook_secret_missing');
      expect((await api(n.url, `/api/v1/documents/${id}/status`)).status).toBe(404);

      expect((await manage('GET', `/apps/${app.appId}/webhook-secret`)).body).toMatchObject({ webhookSecret: null });
      const rotated = await manage('POST', `/apps/${app.appId}/rotate-webhook-secret`);
      expect(rotated.status).toBe(200);
      expect(rotated.body.webhookSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      secret = rotated.body.webhookSecret;
      expect((await manage('GET', `/apps/${app.appId}/webhook-secret`)).body.webhookSecret).toBe(secret);
      // Sealed at rest: the stored value is not the secret.
      const { rows } = await (n.node.controlPlane as SqlControlPlaneStore).db.query<{ secret_sealed: string }>(
        'SELECT secret_sealed FROM app_webhook_secrets WHERE app_id = $1',
        [app.appId],
      );
      expect(rows[0].secret_sealed).not.toContain(secret.slice(6, 20));
    });

    it('POSTs a completed job signed the Standard Webhooks way, and shows the delivery on the status', async () => {
      const up = await upload({ fileName: 'a.csv', csvRoute: 'Tabular', callbackUrl: receiver.url }, 'a,b\n1,2\n');
      expect(up.status).toBe(202);
      const { documentId } = (await up.json()) as { documentId: string };
      const s = await delivered(documentId);
      expect(s.webhook).toMatchObject({ callbackUrl: receiver.url, attempts: 1, lastStatusCode: 200 });
      const [got] = receiver.for(documentId);
      expect(got.headers['content-type']).toBe('application/json');
      expect(got.headers['webhook-id']).toBe(s.webhook!.deliveryId);
      expect(verified(secret, got)).toEqual({
        type: 'document.completed',
        documentId,
        status: 'completed',
        statusInt: 8,
        completedAt: expect.stringMatching(/Z$/),
        documentUnits: 1,
      });
      // A wrong secret does not verify.
      expect(() => verified(`whsec_${Buffer.alloc(32, 7).toString('base64')}`, got)).toThrow();
    });

    it('POSTs a failed job with its error, retries after a 500 (same webhook-id) and records both attempts', async () => {
      const documentId = `fails-${randomUUID().slice(0, 8)}`;
      receiver.fail(documentId, 500, 1);
      const up = await upload({ fileName: 'a.csv', csvRoute: 'Spatial', documentId, callbackUrl: receiver.url }, 'a,b\n1,2\n');
      expect(up.status).toBe(202);
      const s = await delivered(documentId);
      expect(s.webhook).toMatchObject({ attempts: 2, lastStatusCode: 200 });
      const got = receiver.for(documentId);
      expect(got.map((r) => r.answeredWith)).toEqual([500, 200]);
      expect(got[0].headers['webhook-id']).toBe(got[1].headers['webhook-id']);
      const payload = verified(secret, got[1]);
      expect(payload).toMatchObject({ type: 'document.failed', documentId, status: 'failed', statusInt: 9, error: { code: 'extraction_failed' } });
    });

    it('refuses callbacks the outbound policy or the scheme rule forbids, with 400 naming callbackUrl and nothing stored', async () => {
      const refused = [
        'https://169.254.169.254/latest/meta-data/', // metadata (link-local)
        'https://10.0.0.1/hook', // private
        'https://localhost/hook', // a name resolving to loopback, not allowed here
        'http://127.0.0.1:9/hook', // loopback not in DOCPARSE_OUTBOUND_ALLOW
        'https://[::1]/hook',
        'http://93.184.215.14/hook', // public, but http
        'ftp://example.com/x',
        'https://user:pw@example.com/x',
        'not a url',
      ];
      for (const callbackUrl of refused) {
        const id = `ssrf-${randomUUID().slice(0, 8)}`;
        const res = await upload({ fileName: 'a.csv', csvRoute: 'Tabular', documentId: id, callbackUrl }, 'a,b\n1,2\n');
        expect(res.status, callbackUrl).toBe(400);
        expect(await res.json(), callbackUrl).toMatchObject({ code: 'invalid_parameter', parameter: 'callbackUrl' });
        expect((await api(n.url, `/api/v1/documents/${id}/status`)).status, callbackUrl).toBe(404);
      }
      expect(receiver.received.filter((r) => r.body.includes('ssrf-'))).toEqual([]);
    });

    it('replays a delivered webhook (same id and body, signed again); refuses a job without a callback and an unknown one', async () => {
      const up = await upload({ fileName: 'a.csv', csvRoute: 'Tabular', callbackUrl: receiver.url }, 'x\n1\n');
      const { documentId } = (await up.json()) as { documentId: string };
      await delivered(documentId);
      const replay = await api(n.url, `/api/v1/documents/${documentId}/webhook/replay`, { method: 'POST' });
      expect(replay.status).toBe(202);
      await waitFor(async () => receiver.for(documentId).length === 2, 'the replayed delivery');
      const [first, again] = receiver.for(documentId);
      expect(again.headers['webhook-id']).toBe(first.headers['webhook-id']);
      expect(again.body).toBe(first.body);
      expect(verified(secret, again)).toMatchObject({ documentId, type: 'document.completed' });

      const plain = await upload({ fileName: 'a.csv', csvRoute: 'Tabular' }, 'x\n1\n');
      const plainId = ((await plain.json()) as { documentId: string }).documentId;
      await waitFor(async () => (await status(plainId)).statusInt === 8, 'the plain job');
      expect((await status(plainId)).webhook).toBeUndefined();
      const noCallback = await api(n.url, `/api/v1/documents/${plainId}/webhook/replay`, { method: 'POST' });
      expect(noCallback.status).toBe(409);
      expect(((await noCallback.json()) as { code: string }).code).toBe('webhook_not_replayable');
      expect((await api(n.url, `/api/v1/documents/nope-${randomUUID()}/webhook/replay`, { method: 'POST' })).status).toBe(404);
    });

    it('takes a callbackUrl on upload-complete (presigned upload)', async () => {
      const bytes = 'k,v\n1,2\n';
      const open = await api(n.url, '/api/v1/documents/upload-request', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ fileName: 'p.csv', sizeBytes: bytes.length }),
      });
      const session = (await open.json()) as { uploadId: string; uploadUrl: string; documentId: string };
      const u = new URL(session.uploadUrl);
      expect((await fetch(`${n.url}${u.pathname}${u.search}`, { method: 'PUT', body: bytes })).status).toBe(204);
      const refused = await api(n.url, '/api/v1/documents/upload-complete', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ uploadId: session.uploadId, csvRoute: 'Tabular', callbackUrl: 'https://10.1.2.3/x' }),
      });
      expect(refused.status).toBe(400);
      expect(await refused.json()).toMatchObject({ parameter: 'callbackUrl' });
      const done = await api(n.url, '/api/v1/documents/upload-complete', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ uploadId: session.uploadId, csvRoute: 'Tabular', callbackUrl: receiver.url }),
      });
      expect(done.status).toBe(202);
      await delivered(session.documentId);
      expect(verified(secret, receiver.for(session.documentId)[0])).toMatchObject({ type: 'document.completed', documentId: session.documentId });
    });

    it('the SDK passes callbackUrl, and its status carries the webhook', async () => {
      const client = new DocparseClient({ baseUrl: n.url, clientId: app.clientId, clientSecret: app.clientSecret });
      const { documentId } = await client.upload(new Blob(['a,b\n1,2\n']), { fileName: 'sdk.csv', csvRoute: 'Tabular', callbackUrl: receiver.url });
      await delivered(documentId);
      expect((await client.status(documentId)).webhook).toMatchObject({ state: 'delivered', callbackUrl: receiver.url });
      expect(verified(secret, receiver.for(documentId)[0])).toMatchObject({ documentId, type: 'document.completed' });
    });

    it.runIf(mode === 'embedded')('the Python client passes callback_url', async () => {
      const script = [
        'import sys; from docparse_client import DocparseClient',
        'c = DocparseClient(sys.argv[1], sys.argv[2], sys.argv[3])',
        'print(c.upload(b"a,b\\n1,2\\n", file_name="py.csv", csv_route="Tabular", callback_url=sys.argv[4])["documentId"])',
      ].join('\n');
      const { stdout } = await promisify(execFile)('python3', ['-c', script, n.url, app.clientId, app.clientSecret, receiver.url], {
        cwd: path.resolve('clients/python'),
      });
      const documentId = stdout.trim();
      await delivered(documentId);
      expect(verified(secret, receiver.for(documentId)[0])).toMatchObject({ documentId, type: 'document.completed' });
    });

    it('is in the OpenAPI documents: callbackUrl, the webhook status, replay, the secret routes', async () => {
      const v1 = JSON.stringify(await (await fetch(`${n.url}/openapi/v1.json`)).json());
      expect(v1).toContain('/api/v1/documents/{documentId}/webhook/replay');
      expect(v1).toContain('"callbackUrl"');
      expect(v1).toContain('webhook_not_replayable');
      expect(v1).toContain('webhook_secret_missing');
      const m = JSON.stringify(await (await fetch(`${n.url}/openapi/manage-v1.json`)).json());
      expect(m).toContain('/manage/v1/apps/{appId}/rotate-webhook-secret');
      expect(m).toContain('/manage/v1/apps/{appId}/webhook-secret');
    });

    it.runIf(mode === 'distributed')('delivers each notification once when two nodes run senders and workers', async () => {
      const second = await startTestNode(env);
      try {
        const ids: string[] = [];
        for (let i = 0; i < 12; i++) {
          const documentId = `pair-${i}-${randomUUID().slice(0, 6)}`;
          const res = await upload({ fileName: 'a.csv', csvRoute: 'Tabular', documentId, callbackUrl: receiver.url }, `a\n${i}\n`, i % 2 ? second.url : n.url);
          expect(res.status).toBe(202);
          ids.push(documentId);
        }
        for (const id of ids) await delivered(id);
        // Give both nodes time to send anything a second time (a claim that was not exclusive).
        await new Promise((r) => setTimeout(r, 5000));
        for (const id of ids) {
          const got = receiver.for(id);
          expect(got.length, id).toBe(1);
          expect(verified(secret, got[0])).toMatchObject({ documentId: id });
        }
      } finally {
        await second.close();
      }
    });
  });
}
