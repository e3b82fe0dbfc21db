// Presigned upload sessions over real HTTP, in the embedded and the distributed mode: a
// session on an existing documentId replaces the job only when its upload completes, and
// sessions hold concurrency slots only while they can still be used.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import path from 'node:path';
import {
  createApp,
  createTestEnv,
  destroyTestEnv,
  filesUnder,
  getToken,
  startTestNode,
  waitFor,
  type Mode,
  type TestEnv,
  type TestNode,
} from '../helpers/node.js';

interface Status {
  documentId: string;
  statusInt: number;
  completedAt: string | null;
}

interface Session {
  uploadId: string;
  documentId: string;
  uploadUrl: string;
  expiresAt: string;
}

export function uploadSessionsSuite(mode: Mode): void {
  describe(`presigned upload sessions (${mode})`, () => {
    let env: TestEnv;
    let n: TestNode;
    let token: string;

    const api = (p: string, init: RequestInit = {}, tok = token) =>
      fetch(`${n.url}${p}`, { ...init, headers: { authorization: `Bearer ${tok}`, ...(init.headers ?? {}) } });
    const postJson = (p: string, body: unknown, tok = token) =>
      api(p, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }, tok);
    const upload = (query: Record<string, string>, body: string, tok = token) =>
      api(`/api/v1/documents/upload?${new URLSearchParams(query)}`, { method: 'POST', body }, tok);
    const status = async (id: string, tok = token) => (await (await api(`/api/v1/documents/${id}/status`, {}, tok)).json()) as Status;
    const rows = async (id: string, tok = token) => {
      const r = await api(`/api/v1/documents/${id}/result`, {}, tok);
      expect(r.status).toBe(200);
      return ((await r.json()) as { content: { rowCount: number } }).content.rowCount;
    };
    const settled = (id: string, tok = token) =>
      waitFor(async () => {
        const s = await status(id, tok);
        return s.statusInt === 8 || s.statusInt === 9 ? s : null;
      }, `job ${id} to finish`);
    const openSession = async (body: Record<string, unknown>, tok = token): Promise<Session> => {
      const r = await postJson('/api/v1/documents/upload-request', body, tok);
      expect(r.status).toBe(201);
      return (await r.json()) as Session;
    };
    const putBytes = (s: Session, bytes: string, opts: { chunked?: boolean } = {}) => {
      const u = new URL(s.uploadUrl);
      // Chunked: no Content-Length, so an oversized body is refused while it streams.
      const body = opts.chunked ? new ReadableStream({ start: (c) => (c.enqueue(new TextEncoder().encode(bytes)), c.close()) }) : bytes;
      return fetch(`${n.url}${u.pathname}${u.search}`, { method: 'PUT', body, duplex: 'half' } as RequestInit);
    };
    const complete = (s: Session, tok = token) => postJson('/api/v1/documents/upload-complete', { uploadId: s.uploadId, csvRoute: 'Tabular' }, tok);
    const blobFiles = async (tenantId: string) => (await filesUnder(path.join(env.dataDir, 'blobs'))).filter((f) => f.includes(`/${tenantId}/`));

    beforeAll(async () => {
      // Sessions last one hour; jobs are kept for two, so a session can expire before its job.
      env = await createTestEnv(mode, { DOCPARSE_RETENTION_SECONDS: '7200' });
      n = await startTestNode(env);
      token = await getToken(n.url, 'demo-client', 'demo-secret-0123456789');
    });
    afterAll(async () => {
      await n?.close();
      if (env) await destroyTestEnv(env);
    });

    it('a session on an existing documentId keeps serving the old result until its upload completes, and a failed second PUT keeps the good bytes', async () => {
      const app = await createApp(n.node, {});
      const t = await getToken(n.url, app.clientId, app.clientSecret);
      const id = 'report-7';
      expect((await upload({ fileName: 'r.csv', csvRoute: 'Tabular', documentId: id }, 'a\n1\n', t)).status).toBe(202);
      const first = await settled(id, t);
      expect(first.statusInt).toBe(8);
      const oldFiles = await blobFiles(app.tenantId);

      const v2 = 'a\n1\n2\n';
      const session = await openSession({ fileName: 'r.csv', sizeBytes: v2.length, documentId: id }, t);
      expect(session.documentId).toBe(id);
      // The session's own record is no document.
      const { g } = JSON.parse(Buffer.from(session.uploadId.split('.')[0], 'base64url').toString()) as { g: string };
      expect((await api(`/api/v1/documents/${encodeURIComponent(`upload-session/${g}`)}/status`, {}, t)).status).toBe(404);
      const batch = await postJson('/api/v1/documents/status/batch', { documentIds: [`upload-session/${g}`, id] }, t);
      expect(((await batch.json()) as { results: Record<string, unknown>[] }).results.map((r) => r.statusInt ?? r.error)).toEqual([
        expect.objectContaining({ code: 'document_not_found' }),
        8,
      ]);
      expect(await status(id, t)).toMatchObject({ statusInt: 8, completedAt: first.completedAt });
      expect(await rows(id, t)).toBe(1);

      expect((await putBytes(session, v2)).status).toBe(204);
      // A second PUT that fails (too few bytes, then too many while streaming) leaves the first one's bytes.
      expect((await putBytes(session, 'a\n')).status).toBe(400);
      expect((await putBytes(session, v2 + 'xx', { chunked: true })).status).toBe(413);
      expect(await rows(id, t)).toBe(1);
      expect(await blobFiles(app.tenantId)).toEqual(expect.arrayContaining(oldFiles));

      const done = await complete(session, t);
      expect(done.status).toBe(202);
      expect(await done.json()).toEqual({ documentId: id, status: 'Queued', statusInt: 2 });
      const second = await settled(id, t);
      expect(second.statusInt).toBe(8);
      expect(await rows(id, t)).toBe(2);
      // Only now is the old generation gone; calling complete again answers the same job.
      const left = await blobFiles(app.tenantId);
      expect(left.filter((f) => oldFiles.includes(f))).toEqual([]);
      expect(left).toHaveLength(2); // the new upload and its artifact
      const again = await complete(session, t);
      expect(again.status).toBe(202);
      expect(((await again.json()) as Status).statusInt).toBe(8);
      expect((await putBytes(session, v2)).status).toBe(409);
    });

    it('an abandoned or failed session leaves the old job untouched, also after the session expires', async () => {
      const app = await createApp(n.node, {});
      const t = await getToken(n.url, app.clientId, app.clientSecret);
      const id = 'kept-7';
      await upload({ fileName: 'k.csv', csvRoute: 'Tabular', documentId: id }, 'a\n1\n', t);
      const first = await settled(id, t);
      const oldFiles = await blobFiles(app.tenantId);

      const abandoned = await openSession({ fileName: 'k.csv', sizeBytes: 100, documentId: id }, t);
      const failed = await openSession({ fileName: 'k.csv', sizeBytes: 6, documentId: id, sha256: createHash('sha256').update('other!').digest('hex') }, t);
      expect((await putBytes(failed, 'a\n1\n2\n')).status).toBe(400);
      expect((await complete(failed, t)).status).toBe(409);
      expect(await status(id, t)).toMatchObject({ statusInt: 8, completedAt: first.completedAt });
      expect(await rows(id, t)).toBe(1);

      // Past the sessions' expiry (one hour), inside the job's retention (two hours).
      await n.node.retention.sweep(new Date(Date.parse(abandoned.expiresAt) + 60_000));
      expect(await status(id, t)).toMatchObject({ statusInt: 8, completedAt: first.completedAt });
      expect(await rows(id, t)).toBe(1);
      expect((await blobFiles(app.tenantId)).sort()).toEqual(oldFiles.sort());
      expect((await complete(abandoned, t)).status).toBe(410);
    });
  });

  describe(`upload sessions and the concurrency limit (${mode})`, () => {
    it('a session holds a slot only until it expires, and completing it hands its slot to the job', async () => {
      // Retention of 3 s: sessions expire after 3 s too (never outliving the job they become).
      const env = await createTestEnv(mode, { DOCPARSE_RETENTION_SECONDS: '3' });
      const n = await startTestNode(env, {}, ['api', 'auth']);
      try {
        const app = await createApp(n.node, { maxConcurrentJobs: 1 });
        const tok = await getToken(n.url, app.clientId, app.clientSecret);
        const post = (p: string, body: unknown) =>
          fetch(`${n.url}${p}`, {
            method: 'POST',
            headers: { authorization: `Bearer ${tok}`, 'content-type': 'application/json' },
            body: JSON.stringify(body),
          });
        const open = () => post('/api/v1/documents/upload-request', { fileName: 's.csv', sizeBytes: 4 });

        const used = await open();
        expect(used.status).toBe(201);
        const session = (await used.json()) as Session;
        const u = new URL(session.uploadUrl);
        expect((await fetch(`${n.url}${u.pathname}${u.search}`, { method: 'PUT', body: 'a\n1\n' })).status).toBe(204);
        const second = await open();
        expect(second.status).toBe(429);
        expect(((await second.json()) as Record<string, unknown>).code).toBe('rate_limited');
        // The session's own slot becomes the job's: completing it is not refused by the limit.
        const done = await post('/api/v1/documents/upload-complete', { uploadId: session.uploadId, csvRoute: 'Tabular' });
        expect(done.status).toBe(202);
        await new Promise((r) => setTimeout(r, 3500));

        // An abandoned session stops counting once it has expired, swept or not.
        expect((await open()).status).toBe(201);
        expect((await open()).status).toBe(429);
        await new Promise((r) => setTimeout(r, 3500));
        expect((await open()).status).toBe(201);
      } finally {
        await n.close();
        await destroyTestEnv(env);
      }
    });
  });
}
