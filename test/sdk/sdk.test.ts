// The TypeScript SDK against a real node over HTTP: direct and presigned uploads (tus; more in resumable.test.ts), status,
// batch status, waitFor, typed results, typed errors, the token kept and renewed once, and
// 429 answers retried after Retry-After (or not at all for quota_exceeded).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DocparseClient, DocparseError, DocparseTimeoutError, type DocparseClientOptions, type RetryEvent } from '../../src/sdk/index.js';
import { uploadFile } from '../../src/sdk/node.js';
import { freePort } from '../helpers/http.js';
import { createApp, createTestEnv, destroyTestEnv, startTestNode, type TestEnv, type TestNode } from '../helpers/node.js';

const CSV = new TextEncoder().encode('city,lat,lon\nParis,48.85,2.35\nLyon,45.76,4.83\n');

let env: TestEnv;
let n: TestNode;
let creds: { clientId: string; clientSecret: string };

/** Every request the SDK sends, by method and path, and the token requests among them. */
function recorder() {
  const sent: string[] = [];
  const f: typeof fetch = (input, init) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    sent.push(`${init?.method ?? 'GET'} ${url.pathname}`);
    return fetch(input, init);
  };
  return { sent, fetch: f, tokenRequests: () => sent.filter((s) => s === 'POST /connect/token').length };
}

function client(over: Partial<DocparseClientOptions> = {}, c = creds): DocparseClient {
  return new DocparseClient({ baseUrl: n.url, clientId: c.clientId, clientSecret: c.clientSecret, ...over });
}

async function caught(p: Promise<unknown>): Promise<DocparseError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DocparseError);
  return err as DocparseError;
}

beforeAll(async () => {
  env = await createTestEnv('embedded');
  // The presigned uploadUrl is built on DOCPARSE_BASE_URL: the node must listen where it says.
  const port = await freePort();
  // A direct-upload limit far below the SDK's default (900 MB): the SDK learns it from the 413.
  n = await startTestNode(env, { PORT: String(port), DOCPARSE_BASE_URL: `http://127.0.0.1:${port}`, DOCPARSE_DIRECT_UPLOAD_MAX_BYTES: '100' });
  creds = await createApp(n.node, {});
});

afterAll(async () => {
  await n?.close();
  if (env) await destroyTestEnv(env);
});

describe('uploads', () => {
  it('a small file goes direct; waitFor sees it end; result is the typed artifact with its metadata', async () => {
    const rec = recorder();
    const c = client({ fetch: rec.fetch });
    const accepted = await c.upload(CSV, { fileName: 'cities.csv', csvRoute: 'Tabular', customMetadata: { batch: 7 } });
    expect(accepted).toMatchObject({ status: 'Queued', statusInt: 2 });
    expect(accepted.documentId).toMatch(/^[0-9a-f-]{36}$/); // picked by the SDK
    const done = await c.waitFor(accepted.documentId, { timeoutMs: 30_000 });
    expect(done.status).toBe('completed');
    const artifact = await c.result(accepted.documentId);
    expect(artifact.document_format).toBe('csv');
    expect(artifact.customMetadata).toEqual({ batch: 7 });
    expect(artifact.documentUnits).toBe(1);
    expect(rec.sent.filter((s) => s.startsWith('POST /api/v1/documents/upload'))).toEqual(['POST /api/v1/documents/upload']);
    expect(rec.tokenRequests()).toBe(1);
  });

  it('a file over the direct-upload limit goes upload-request → tus HEAD, PATCH → upload-complete, with progress', async () => {
    const rec = recorder();
    const c = client({ fetch: rec.fetch, directUploadMaxBytes: 16 });
    const seen: number[] = [];
    const accepted = await c.upload(new Blob([CSV]), {
      fileName: 'big.csv',
      csvRoute: 'Tabular',
      documentId: 'sdk-presigned-1',
      onProgress: (p) => seen.push(p.sentBytes),
    });
    expect(accepted.documentId).toBe('sdk-presigned-1');
    expect(rec.sent.filter((s) => !s.includes('/connect/token') && !s.includes('/status'))).toEqual([
      'POST /api/v1/documents/upload-request',
      expect.stringMatching(/^HEAD \/api\/v1\/uploads\//),
      expect.stringMatching(/^PATCH \/api\/v1\/uploads\//),
      'POST /api/v1/documents/upload-complete',
    ]);
    expect(seen.at(-1)).toBe(CSV.byteLength);
    expect((await c.waitFor('sdk-presigned-1')).status).toBe('completed');
    const artifact = await c.result('sdk-presigned-1');
    expect(artifact.fileName).toBe('big.csv');
  });

  it('a server whose direct-upload limit is lower: its 413 sends the upload presigned, and the limit is kept', async () => {
    const rec = recorder();
    const c = client({ fetch: rec.fetch });
    const big = new TextEncoder().encode(`city,lat,lon\n${'Paris,48.85,2.35\n'.repeat(10)}`);
    expect(big.byteLength).toBeGreaterThan(100);
    const first = await c.upload(big, { fileName: 'first.csv', csvRoute: 'Tabular' });
    const calls = () => rec.sent.filter((s) => !s.includes('/connect/token')).map((s) => s.replace(/uploads\/.*/, 'uploads/…'));
    expect(calls()).toEqual([
      'POST /api/v1/documents/upload',
      'POST /api/v1/documents/upload-request',
      'HEAD /api/v1/uploads/…',
      'PATCH /api/v1/uploads/…',
      'POST /api/v1/documents/upload-complete',
    ]);
    rec.sent.length = 0;
    const second = await c.upload(big, { fileName: 'second.csv', csvRoute: 'Tabular' });
    expect(calls()).toEqual([
      'POST /api/v1/documents/upload-request',
      'HEAD /api/v1/uploads/…',
      'PATCH /api/v1/uploads/…',
      'POST /api/v1/documents/upload-complete',
    ]);
    const ends = await c.waitFor([first.documentId, second.documentId]);
    expect(ends.map((e) => e.status)).toEqual(['completed', 'completed']);
  });

  it('a file path through docparse/node (a Blob read from disk) and a ReadableStream', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sdk-'));
    try {
      const file = path.join(dir, 'from-disk.csv');
      await fs.writeFile(file, CSV);
      const c = client();
      const a = await uploadFile(c, file, { csvRoute: 'Spatial' });
      const b = await c.upload(new Blob([CSV]).stream(), { fileName: 'streamed.csv', csvRoute: 'Tabular' });
      const [da, db] = await c.waitFor([a.documentId, b.documentId]);
      expect([da.status, db.status]).toEqual(['completed', 'completed']);
      expect((await c.result(a.documentId)).fileName).toBe('from-disk.csv');
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});

describe('status', () => {
  it('status of one; a batch of 250 goes as three requests, in order, unknown ids marked', async () => {
    const rec = recorder();
    const c = client({ fetch: rec.fetch });
    const { documentId } = await c.upload(CSV, { fileName: 'a.csv', csvRoute: 'Tabular' });
    expect((await c.status(documentId)).documentId).toBe(documentId);
    const ids = Array.from({ length: 250 }, (_, i) => (i === 123 ? documentId : `missing-${i}`));
    const results = await c.statusBatch(ids);
    expect(results.map((r) => r.documentId)).toEqual(ids);
    expect(results[123]).toHaveProperty('statusInt');
    expect(results[0]).toMatchObject({ error: { code: 'document_not_found' } });
    expect(rec.sent.filter((s) => s === 'POST /api/v1/documents/status/batch')).toHaveLength(3);
    expect(rec.tokenRequests()).toBe(1);
  });

  it('waitFor: an unknown id is document_not_found; a job that never ends times out; an abort stops it', async () => {
    const c = client();
    const unknown = await caught(c.waitFor('no-such-document'));
    expect(unknown.code).toBe('document_not_found');
    // An open presigned session is a job in state 0 until someone completes it.
    const open = await openSession('sdk-never-completed');
    const timedOut = await c.waitFor(open, { timeoutMs: 300 }).catch((e: unknown) => e);
    expect(timedOut).toBeInstanceOf(DocparseTimeoutError);
    expect((timedOut as DocparseTimeoutError).documentIds).toEqual([open]);
    const ac = new AbortController();
    const waiting = c.waitFor([open], { signal: ac.signal });
    ac.abort(new Error('caller gave up'));
    await expect(waiting).rejects.toThrow('caller gave up');
  });
});

describe('live status and cancel', () => {
  it('waitFor on one job follows its event stream (no polling), and sees every state from the session on', async () => {
    const rec = recorder();
    const c = client({ fetch: rec.fetch });
    // A session (state 0) waits for its bytes: the stream sees 0 → 1 → 2 → … → 8.
    const id = 'sdk-live-1';
    const token = await tokenFor(creds);
    const session = (await (
      await fetch(`${n.url}/api/v1/documents/upload-request`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ fileName: 'later.csv', sizeBytes: CSV.byteLength, documentId: id }),
      })
    ).json()) as { uploadId: string; uploadUrl: string };
    const seen: number[] = [];
    const waiting = c.waitFor(id, { timeoutMs: 60_000, onStatus: (s) => seen.push(s.statusInt) });
    await vi.waitFor(() => expect(rec.sent).toContain(`GET /api/v1/documents/${id}/events`));
    expect((await fetch(session.uploadUrl, { method: 'PUT', body: CSV })).status).toBe(204);
    const completed = await fetch(`${n.url}/api/v1/documents/upload-complete`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ uploadId: session.uploadId, fileName: 'later.csv', csvRoute: 'Tabular' }),
    });
    expect(completed.status).toBe(202);
    const done = await waiting;
    expect(done).toMatchObject({ documentId: id, statusInt: 8, documentUnits: 1 });
    // Completing the session stores the job queued (2) in one write; then the light lane's steps.
    expect(seen).toEqual([0, 2, 3, 4, 8]);
    expect(rec.sent.filter((r) => r.includes('/status'))).toEqual([]);
  });

  it('falls back to polling where the stream cannot be had', async () => {
    const rec = recorder();
    // A proxy that refuses event streams: the SDK polls the batch status instead.
    const noStreams: typeof fetch = (input, init) =>
      String(input instanceof Request ? input.url : input).endsWith('/events') ? Promise.resolve(new Response('no', { status: 501 })) : rec.fetch(input, init);
    const c = client({ fetch: noStreams, retry: { maxRetries: 0 } });
    const accepted = await c.upload(CSV, { fileName: 'cities.csv', csvRoute: 'Tabular' });
    expect(await c.waitFor(accepted.documentId, { timeoutMs: 30_000 })).toMatchObject({ statusInt: 8 });
    expect(rec.sent).toContain('POST /api/v1/documents/status/batch');
  });

  it('cancel(id): a waiting job ends failed with code cancelled, again the same; a finished one has its result deleted; unknown is document_not_found', async () => {
    const c = client();
    const id = await openSession('sdk-cancel-1');
    expect(await c.cancel(id)).toMatchObject({ statusInt: 9, error: { code: 'cancelled' } });
    expect(await c.cancel(id)).toMatchObject({ statusInt: 9, error: { code: 'cancelled' } });
    const failed = await caught(c.result(id));
    expect(failed.code).toBe('cancelled');
    const accepted = await c.upload(CSV, { fileName: 'cities.csv', csvRoute: 'Tabular' });
    await c.waitFor(accepted.documentId, { timeoutMs: 30_000 });
    expect(await c.cancel(accepted.documentId)).toMatchObject({ statusInt: 8, resultDeleted: true });
    expect((await caught(c.result(accepted.documentId))).code).toBe('document_not_found');
    expect((await caught(c.cancel('no-such-document'))).code).toBe('document_not_found');
  });
});

/** Opens a presigned session (a job in state 0) through the API, as a second client would. */
async function openSession(documentId: string): Promise<string> {
  const token = await tokenFor(creds);
  const r = await fetch(`${n.url}/api/v1/documents/upload-request`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ fileName: 'later.csv', sizeBytes: CSV.byteLength, documentId }),
  });
  expect(r.status).toBe(201);
  return documentId;
}

async function tokenFor(c: { clientId: string; clientSecret: string }): Promise<string> {
  const r = await fetch(`${n.url}/connect/token`, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'Service.API', client_id: c.clientId, client_secret: c.clientSecret }),
  });
  return ((await r.json()) as { access_token: string }).access_token;
}

describe('the token', () => {
  it('is renewed once, shortly before it expires, for all of a batch sent at once', async () => {
    const rec = recorder();
    let clock = Date.now();
    const c = client({ fetch: rec.fetch, now: () => clock });
    await c.status('anything').catch(() => {});
    expect(rec.tokenRequests()).toBe(1);
    clock += 14.5 * 60_000; // within the last minute of its 15
    const ids = Array.from({ length: 350 }, (_, i) => `id-${i}`);
    await c.statusBatch(ids);
    expect(rec.sent.filter((s) => s.endsWith('/status/batch'))).toHaveLength(4);
    expect(rec.tokenRequests()).toBe(2);
  });

  it('a token the server finds expired mid-batch is renewed once and the requests sent again', async () => {
    // A token the SDK believes good (cached for 15 more minutes) but signed to have expired:
    // clocks of client and server apart.
    const real = await tokenFor(creds);
    const claims = JSON.parse(Buffer.from(real.split('.')[1], 'base64url').toString()) as Record<string, unknown>;
    const { kid, key } = await n.node.identity.keyring.signingKey();
    const now = Math.floor(Date.now() / 1000);
    const expired = await new SignJWT({ ...claims, iat: now - 1000, exp: now - 100 }).setProtectedHeader({ alg: 'ES256', kid, typ: 'JWT' }).sign(key);
    const rec = recorder();
    const saved: string[] = [];
    const c = client({
      fetch: rec.fetch,
      tokenCache: { load: () => ({ accessToken: expired, expiresAt: Date.now() + 15 * 60_000 }), save: (t) => void saved.push(t.accessToken) },
    });
    const results = await c.statusBatch(Array.from({ length: 300 }, (_, i) => `gone-${i}`));
    expect(results).toHaveLength(300);
    // Three requests refused with token_expired, one renewal, the three sent again.
    expect(rec.sent.filter((s) => s.endsWith('/status/batch'))).toHaveLength(6);
    expect(rec.tokenRequests()).toBe(1);
    expect(saved).toHaveLength(1);
    expect(saved[0]).not.toBe(expired);
  });

  it('wrong credentials are a DocparseError with the token endpoint code', async () => {
    const err = await caught(client({}, { clientId: creds.clientId, clientSecret: 'wrong-secret-0123456789' }).status('x'));
    expect(err).toMatchObject({ status: 401, code: 'invalid_client' });
  });
});

describe('errors and retries', () => {
  it('problem codes come typed: invalid_parameter with its parameter, document_not_found, a failed job as 422, result_not_ready', async () => {
    const c = client();
    const bad = await caught(c.upload(CSV, { fileName: 'no-route.csv' }));
    expect(bad).toMatchObject({ status: 400, code: 'invalid_parameter' });
    expect(bad.problem.parameter).toBe('csvRoute');
    expect(bad.requestId).toEqual(expect.any(String));
    expect(await caught(c.result('never-uploaded'))).toMatchObject({ status: 404, code: 'document_not_found' });

    const broken = await c.upload(new TextEncoder().encode('%PDF-1.7\nthis is not a PDF body at all\n'), { fileName: 'broken.pdf', pdfMode: 'SingleColumn' });
    const end = await c.waitFor(broken.documentId);
    expect(end.status).toBe('failed');
    const failed = await caught(c.result(broken.documentId));
    expect(failed.status).toBe(422);
    expect(failed.code).toBe(end.error!.code);

    const open = await openSession('sdk-not-ready');
    expect(await caught(c.result(open))).toMatchObject({ status: 202, code: 'result_not_ready' });
  });

  it('429 rate_limited is retried after Retry-After, and succeeds once the slot is free', async () => {
    const one = await createApp(n.node, { maxConcurrentJobs: 1 });
    const token = await tokenFor(one);
    // The plan's one slot, held by an open presigned session.
    const session = (await (
      await fetch(`${n.url}/api/v1/documents/upload-request`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ fileName: 'slot.csv', sizeBytes: CSV.byteLength }),
      })
    ).json()) as { uploadId: string; uploadUrl: string };
    const retries: RetryEvent[] = [];
    let freed: Promise<unknown> | null = null;
    const c = client(
      {
        retry: { maxRetries: 6 },
        onRetry: (e) => {
          retries.push(e);
          // Completing the session turns it into a job that ends and frees the slot.
          freed ??= fetch(session.uploadUrl, { method: 'PUT', body: CSV }).then(() =>
            fetch(`${n.url}/api/v1/documents/upload-complete`, {
              method: 'POST',
              headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
              body: JSON.stringify({ uploadId: session.uploadId, csvRoute: 'Tabular' }),
            }),
          );
        },
      },
      one,
    );
    const accepted = await c.upload(CSV, { fileName: 'waits.csv', csvRoute: 'Tabular' });
    expect(accepted.statusInt).toBe(2);
    expect(retries.length).toBeGreaterThanOrEqual(1);
    expect(retries[0]).toMatchObject({ status: 429, code: 'rate_limited', delayMs: 5000, path: '/api/v1/documents/upload' });
    expect(((await await freed!) as Response).status).toBe(202);
  });

  it('a Retry-After longer than the client will wait fails the call at once instead of retrying early', async () => {
    const one = await createApp(n.node, { maxConcurrentJobs: 1 });
    const r = await fetch(`${n.url}/api/v1/documents/upload-request`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await tokenFor(one)}`, 'content-type': 'application/json' },
      body: JSON.stringify({ fileName: 'slot.csv', sizeBytes: CSV.byteLength }),
    });
    expect(r.status).toBe(201);
    const retries: RetryEvent[] = [];
    const c = client({ retry: { maxRetryAfterMs: 1000 }, onRetry: (e) => retries.push(e) }, one);
    const err = await caught(c.upload(CSV, { fileName: 'busy.csv', csvRoute: 'Tabular' }));
    expect(err).toMatchObject({ status: 429, code: 'rate_limited', retryAfterSeconds: 5 });
    expect(retries).toEqual([]);
  });

  it('429 quota_exceeded is not retried (it lasts the month)', async () => {
    const small = await createApp(n.node, { maxDocumentUnitsPerMonth: 1 });
    const retries: RetryEvent[] = [];
    const c = client({ onRetry: (e) => retries.push(e) }, small);
    const first = await c.upload(CSV, { fileName: 'one.csv', csvRoute: 'Tabular' });
    await c.waitFor(first.documentId);
    const err = await caught(c.upload(CSV, { fileName: 'two.csv', csvRoute: 'Tabular' }));
    expect(err).toMatchObject({ status: 429, code: 'quota_exceeded' });
    expect(retries).toEqual([]);
  });
});
