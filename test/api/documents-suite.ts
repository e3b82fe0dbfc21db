// The documents API over real HTTP, run against the embedded mode and the
// PostgreSQL + Redis mode: lifecycle, every status code, idempotency, retention,
// limits, tenant isolation, a killed worker thread and a restarted node.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs/promises';
import path from 'node:path';
import net from 'node:net';
import { randomUUID } from 'node:crypto';
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
import { monthOf } from '../../src/tenancy/month.js';
import { CORPUS_AVAILABLE, CORPUS_ROOT } from '../helpers/parse.js';

const CORPUS = path.join(CORPUS_ROOT, 'csv');
const corpus = (name: string) => fs.readFile(path.join(CORPUS, name));

interface Status {
  documentId: string;
  status: string;
  statusInt: number;
  startedAt: string | null;
  completedAt: string | null;
  error?: { code: string; message: string; stage: string };
  attempts: number;
}

export function documentsSuite(mode: Mode): void {
  describe(`documents API (${mode})`, () => {
    let env: TestEnv;
    let n: TestNode;
    let token: string;

    const api = (p: string, init: RequestInit = {}, tok = token) =>
      fetch(`${n.url}${p}`, { ...init, headers: { authorization: `Bearer ${tok}`, ...(init.headers ?? {}) } });
    const upload = (query: Record<string, string>, body: Buffer | string, tok = token) =>
      api(`/api/v1/documents/upload?${new URLSearchParams(query)}`, { method: 'POST', body }, tok);
    const status = async (id: string, tok = token): Promise<Status> =>
      (await (await api(`/api/v1/documents/${encodeURIComponent(id)}/status`, {}, tok)).json()) as Status;
    const settled = (id: string, tok = token) =>
      waitFor(async () => {
        const s = await status(id, tok);
        return s.statusInt === 8 || s.statusInt === 9 ? s : null;
      }, `job ${id} to finish`);

    beforeAll(async () => {
      env = await createTestEnv(mode, { DOCPARSE_RETENTION_SECONDS: '3600' });
      n = await startTestNode(env);
      token = await getToken(n.url, 'demo-client', 'demo-secret-0123456789');
    });
    afterAll(async () => {
      await n?.close();
      if (env) await destroyTestEnv(env);
    });

    it.skipIf(!CORPUS_AVAILABLE)('runs a CSV through every state to a JSON artifact and charges one unit', async () => {
      const bytes = await corpus('vega_seattle-weather.csv');
      const res = await upload({ fileName: 'seattle.csv', csvRoute: 'tabular', customMetadataJson: '{"source":"crm","n":1}' }, bytes);
      expect(res.status).toBe(202);
      const accepted = (await res.json()) as { documentId: string; status: string; statusInt: number };
      expect(accepted).toMatchObject({ status: 'Queued', statusInt: 2 });
      expect(accepted.documentId).toMatch(/^[0-9a-f-]{36}$/);

      const done = await settled(accepted.documentId);
      expect(done.status).toBe('completed');
      expect(done.statusInt).toBe(8);
      expect(Date.parse(done.startedAt!)).toBeLessThanOrEqual(Date.parse(done.completedAt!));
      expect(done.completedAt).toMatch(/Z$/);

      const result = await api(`/api/v1/documents/${accepted.documentId}/result`);
      expect(result.status).toBe(200);
      expect(result.headers.get('content-type')).toBe('application/json');
      const artifact = (await result.json()) as Record<string, any>;
      expect(artifact.schema_version).toBe('1.0');
      expect(artifact.document_format).toBe('csv');
      expect(artifact.documentUnits).toBe(1);
      expect(artifact.customMetadata).toEqual({ source: 'crm', n: 1 });
      expect(artifact.content.rowCount).toBe(1461);
      expect(artifact.content.rows).toHaveLength(1461);

      const usage = await n.node.controlPlane.listUsage({ month: monthOf(new Date()) });
      expect(usage.filter((u) => u.documentId === accepted.documentId)).toEqual([expect.objectContaining({ units: 1, format: 'csv' })]);
    });

    it.skipIf(!CORPUS_AVAILABLE)('answers 422 with the reason when extraction fails, and charges nothing', async () => {
      const res = await upload({ fileName: 'weather.csv', csvRoute: 'Spatial' }, await corpus('vega_seattle-weather.csv'));
      const { documentId } = (await res.json()) as { documentId: string };
      const s = await settled(documentId);
      expect(s.statusInt).toBe(9);
      expect(s.status).toBe('failed');
      expect(s.error).toMatchObject({ code: 'extraction_failed', stage: 'extract' });
      expect(s.error!.message).toMatch(/geometry|longitude/i);
      const r = await api(`/api/v1/documents/${documentId}/result`);
      expect(r.status).toBe(422);
      expect(r.headers.get('content-type')).toBe('application/problem+json');
      const body = (await r.json()) as Record<string, any>;
      expect(body.code).toBe('extraction_failed');
      expect(body.detail).toMatch(/geometry|longitude/i);
      const usage = await n.node.controlPlane.listUsage({ month: monthOf(new Date()) });
      expect(usage.some((u) => u.documentId === documentId)).toBe(false);
    });

    it('refuses bad routing parameters with 400 naming the parameter, storing nothing', async () => {
      const uploads = async () => (await filesUnder(path.join(env.dataDir, 'blobs'))).filter((f) => !/\/artifact(\.\w+)?\.json$/.test(f));
      const before = await uploads();
      const cases: [Record<string, string>, string | Buffer, string][] = [
        [{ fileName: 'a.csv' }, 'a,b\n1,2\n', 'csvRoute'],
        [{ fileName: 'a.csv', csvRoute: 'sideways' }, 'a,b\n1,2\n', 'csvRoute'],
        [{ fileName: 'a.pdf' }, '%PDF-1.7\n', 'pdfMode'],
        [{ fileName: 'a.sql' }, 'select 1;', 'sqlDialect'],
        [{ fileName: 'a.csv', csvRoute: 'Tabular', customMetadataJson: '[1,2]' }, 'a\n1\n', 'customMetadataJson'],
        [{ fileName: 'a.csv', csvRoute: 'Tabular', customMetadataJson: '{oops' }, 'a\n1\n', 'customMetadataJson'],
        [{ fileName: 'a.zip' }, Buffer.from([0x50, 0x4b, 0x03, 0x04, 0, 0, 0, 0]), 'documentType'],
        [{ fileName: 'a.csv', csvRoute: 'Tabular', colour: 'blue' }, 'a\n1\n', 'colour'],
        [{ fileName: 'a.csv', csvRoute: 'Tabular', chunkHints: 'maybe' }, 'a\n1\n', 'chunkHints'],
      ];
      for (const [q, body, param] of cases) {
        const res = await upload(q, body);
        expect(res.status, JSON.stringify(q)).toBe(400);
        const p = (await res.json()) as Record<string, any>;
        expect(p).toMatchObject({ code: 'invalid_parameter', parameter: param, status: 400 });
        expect(typeof p.requestId).toBe('string');
      }
      const empty = await upload({ fileName: 'a.csv', csvRoute: 'Tabular' }, '');
      expect(empty.status).toBe(400);
      expect(await uploads()).toEqual(before);
    });

    it('customMetadataJson nested too deep or over 64 KiB is 400 naming the limit; nothing is stored, charged or held', async () => {
      const app = await createApp(n.node, { maxConcurrentJobs: 1 });
      const t = await getToken(n.url, app.clientId, app.clientSecret);
      const nested = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
      for (const customMetadataJson of [nested(33), '{"a":' + '['.repeat(32) + ']'.repeat(32) + '}']) {
        const res = await upload({ fileName: 'm.csv', csvRoute: 'Tabular', customMetadataJson }, 'a\n1\n', t);
        expect(res.status).toBe(400);
        const p = (await res.json()) as Record<string, any>;
        expect(p).toMatchObject({ code: 'invalid_parameter', parameter: 'customMetadataJson', limit: 32 });
        expect(p.detail).toMatch(/32/);
      }
      expect((await filesUnder(path.join(env.dataDir, 'blobs'))).filter((f) => f.includes(app.tenantId))).toEqual([]);
      // The refused uploads hold no slot: the plan's one slot is free for a 32-deep object.
      const ok = await upload({ fileName: 'm.csv', csvRoute: 'Tabular', customMetadataJson: nested(32) }, 'a\n1\n', t);
      expect(ok.status).toBe(202);
      const { documentId } = (await ok.json()) as Status;
      expect((await settled(documentId, t)).statusInt).toBe(8);
      const artifact = (await (await api(`/api/v1/documents/${documentId}/result`, {}, t)).json()) as any;
      expect(artifact.customMetadata).toEqual(JSON.parse(nested(32)));
      expect(await n.node.controlPlane.listUsage({ appId: app.appId })).toHaveLength(1);

      // Over 64 KiB in UTF-8 though under 65,536 characters: sent in upload-complete's JSON body.
      const json = (b: unknown) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(b) });
      const session = (await (await api('/api/v1/documents/upload-request', json({ fileName: 'm.csv', sizeBytes: 4 }))).json()) as {
        uploadId: string;
        uploadUrl: string;
        documentId: string;
      };
      const u = new URL(session.uploadUrl);
      expect((await fetch(`${n.url}${u.pathname}${u.search}`, { method: 'PUT', body: 'a\n1\n' })).status).toBe(204);
      const complete = (customMetadataJson: string) =>
        api('/api/v1/documents/upload-complete', json({ uploadId: session.uploadId, csvRoute: 'Tabular', customMetadataJson }));
      const big = await complete(JSON.stringify({ note: 'é'.repeat(40_000) }));
      expect(big.status).toBe(400);
      expect(await big.json()).toMatchObject({ code: 'invalid_parameter', parameter: 'customMetadataJson', limit: 65536 });
      const deep = await complete(nested(3000));
      expect(deep.status).toBe(400);
      expect(await deep.json()).toMatchObject({ code: 'invalid_parameter', parameter: 'customMetadataJson', limit: 32 });
      expect((await status(session.documentId)).statusInt).toBe(0);
    });

    it.skipIf(!CORPUS_AVAILABLE)('accepts enum spellings case-insensitively (SHP_ZIP, PostgreSQL, tabular)', async () => {
      const res = await upload({ fileName: 'x.csv', csvRoute: 'TABULAR', documentType: 'csv' }, 'a,b\n1,2\n');
      expect(res.status).toBe(202);
      const shp = await upload({ documentType: 'SHP_ZIP' }, await fs.readFile(path.join(CORPUS, '../gis/shp_poly.zip')));
      expect(shp.status).toBe(202);
      const shpJob = await status(((await shp.json()) as Status).documentId);
      expect((shpJob as unknown as { format: string }).format).toBe('shapefile');
      const sql = await upload({ fileName: 'q.sql', sqlDialect: 'PostgreSQL' }, 'select 1; select 2;');
      expect(sql.status).toBe(202);
      const bad = await upload({ fileName: 'q.sql', sqlDialect: 'Cobol' }, 'select 1;');
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as Record<string, any>).allowed).toContain('PostgreSql');
    });

    it('needs a plan feature for OCR and Advanced PDF modes', async () => {
      const basic = await createApp(n.node, null);
      const t = await getToken(n.url, basic.clientId, basic.clientSecret);
      const res = await upload({ fileName: 'a.pdf', pdfMode: 'ocr' }, '%PDF-1.7\n', t);
      expect(res.status).toBe(403);
      expect(((await res.json()) as Record<string, any>).code).toBe('feature_not_in_plan');
    });

    it('keeps tenants apart: another tenant’s id is 404 on status, result and batch', async () => {
      const res = await upload({ fileName: 'a.csv', csvRoute: 'Tabular' }, 'a,b\n1,2\n');
      const { documentId } = (await res.json()) as { documentId: string };
      const other = await createApp(n.node, {});
      const t = await getToken(n.url, other.clientId, other.clientSecret);
      for (const p of [`/api/v1/documents/${documentId}/status`, `/api/v1/documents/${documentId}/result`]) {
        const r = await api(p, {}, t);
        expect(r.status).toBe(404);
        expect(((await r.json()) as Record<string, any>).code).toBe('document_not_found');
      }
      const b = await api(
        '/api/v1/documents/status/batch',
        { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ documentIds: [documentId] }) },
        t,
      );
      expect(((await b.json()) as any).results[0]).toEqual({ documentId, error: { code: 'document_not_found', message: expect.any(String) } });
    });

    it('batch status answers in request order, reports unknown ids, and refuses more than 100', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const r = await upload({ fileName: `b${i}.csv`, csvRoute: 'Tabular', documentId: `batch-${i}` }, `a\n${i}\n`);
        ids.push(((await r.json()) as { documentId: string }).documentId);
      }
      const asked = [ids[2], 'nope', ids[0], ids[1]];
      const r = await api('/api/v1/documents/status/batch', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ documentIds: asked }),
      });
      expect(r.status).toBe(200);
      const { results } = (await r.json()) as { results: any[] };
      expect(results.map((x) => x.documentId)).toEqual(asked);
      expect(results[1].error.code).toBe('document_not_found');
      expect(results[0].statusInt).toBeGreaterThanOrEqual(2);
      const tooMany = await api('/api/v1/documents/status/batch', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ documentIds: Array.from({ length: 101 }, (_, i) => `id${i}`) }),
      });
      expect(tooMany.status).toBe(400);
      expect(((await tooMany.json()) as Record<string, any>).parameter).toBe('documentIds');
    });

    it('same documentId and bytes returns the existing job without a second charge; new bytes overwrite it', async () => {
      const q = { fileName: 'idem.csv', csvRoute: 'Tabular', documentId: 'invoice-42' };
      await upload(q, 'a,b\n1,2\n');
      const first = await settled('invoice-42');
      expect(first.statusInt).toBe(8);
      const again = await upload(q, 'a,b\n1,2\n');
      expect(again.status).toBe(202);
      expect(((await again.json()) as Status).statusInt).toBe(8);
      expect((await status('invoice-42')).completedAt).toBe(first.completedAt);
      const charged = async () => (await n.node.controlPlane.listUsage({})).filter((u) => u.documentId === 'invoice-42').length;
      expect(await charged()).toBe(1);

      const over = await upload(q, 'a,b,c\n1,2,3\n4,5,6\n');
      expect(((await over.json()) as Status).statusInt).toBe(2);
      const second = await settled('invoice-42');
      expect(second.statusInt).toBe(8);
      const artifact = (await (await api('/api/v1/documents/invoice-42/result')).json()) as any;
      expect(artifact.content.rowCount).toBe(2);
      expect(await charged()).toBe(2);
    });

    it('a documentId of 200 characters (the schema maximum) is stored, parsed and served', async () => {
      const documentId = 'long-' + 'x'.repeat(195);
      const res = await upload({ fileName: 'long.csv', csvRoute: 'Tabular', documentId }, 'a,b\n1,2\n');
      expect(res.status).toBe(202);
      expect(await res.json()).toMatchObject({ documentId, statusInt: 2 });
      expect((await settled(documentId)).statusInt).toBe(8);
      const result = await api(`/api/v1/documents/${documentId}/result`);
      expect(result.status).toBe(200);
      expect(((await result.json()) as any).documentId).toBe(documentId);
    });

    it('a job stored under the earlier blob layout (documentId in base64url) is still served and replaced', async () => {
      const app = await createApp(n.node, {});
      const t = await getToken(n.url, app.clientId, app.clientSecret);
      const documentId = 'legacy-doc';
      const generation = randomUUID();
      const folder = `jobs/${app.tenantId}/${Buffer.from(documentId).toString('base64url')}/${generation}`;
      const blobs = n.node.blobs.nodeStore;
      await blobs.write(`${folder}/upload`, [Buffer.from('a\n1\n')]);
      const artifact = Buffer.from(JSON.stringify({ schema_version: '1.0', document_format: 'csv', documentId }));
      await blobs.write(`${folder}/artifact.json`, [artifact]);
      await blobs.write(`${folder}/parts/extra.geojsonseq`, [Buffer.from('{}\n')]);
      const now = new Date();
      await n.node.jobs.store.put({
        tenantId: app.tenantId,
        appId: app.appId,
        documentId,
        generation,
        statusInt: 8,
        format: 'csv',
        lane: 'light',
        fileName: 'l.csv',
        options: { csvRoute: 'Tabular' },
        customMetadata: null,
        uploadKey: `${folder}/upload`,
        sizeBytes: 4,
        sha256: 'ab'.repeat(32),
        attempts: 1,
        createdAt: now.toISOString(),
        updatedAt: now.toISOString(),
        startedAt: now.toISOString(),
        completedAt: now.toISOString(),
        expiresAt: new Date(now.getTime() + 3600_000).toISOString(),
        error: null,
        artifactKey: `${folder}/artifact.json`,
        artifactBytes: artifact.length,
        documentUnits: 1,
        storageConfigId: null,
      });
      const result = await api(`/api/v1/documents/${documentId}/result`, {}, t);
      expect(result.status).toBe(200);
      expect(await result.json()).toMatchObject({ documentId });
      expect((await api(`/api/v1/documents/${documentId}/parts/extra.geojsonseq`, {}, t)).status).toBe(200);

      const over = await upload({ fileName: 'l.csv', csvRoute: 'Tabular', documentId }, 'a\n2\n', t);
      expect(over.status).toBe(202);
      expect((await settled(documentId, t)).statusInt).toBe(8);
      expect((await filesUnder(path.join(env.dataDir, 'blobs'))).filter((f) => f.includes(`/${generation}/`))).toEqual([]);
    });

    it('the same bytes with a different customMetadataJson or fileName are an overwrite, not a replay', async () => {
      const id = 'invoice-43';
      const send = (fileName: string, customMetadataJson: string) =>
        upload({ fileName, csvRoute: 'Tabular', documentId: id, customMetadataJson }, 'a,b\n1,2\n');
      const artifact = async () => (await (await api(`/api/v1/documents/${id}/result`)).json()) as { fileName: string; customMetadata: unknown };
      await send('a.csv', '{"v":1,"w":2}');
      const first = await settled(id);

      const replay = await send('a.csv', '{"w":2,"v":1}'); // the same object, keys in another order
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect((await status(id)).completedAt).toBe(first.completedAt);

      const newMetadata = await send('a.csv', '{"v":2}');
      expect(newMetadata.headers.get('idempotent-replayed')).toBeNull();
      expect(((await newMetadata.json()) as Status).statusInt).toBe(2);
      expect((await settled(id)).completedAt).not.toBe(first.completedAt);
      expect(await artifact()).toMatchObject({ fileName: 'a.csv', customMetadata: { v: 2 } });

      const renamed = await send('b.csv', '{"v":2}');
      expect(renamed.headers.get('idempotent-replayed')).toBeNull();
      await settled(id);
      expect(await artifact()).toMatchObject({ fileName: 'b.csv', customMetadata: { v: 2 } });
      const charged = (await n.node.controlPlane.listUsage({})).filter((u) => u.documentId === id);
      expect(charged).toHaveLength(3);
    });

    it('answers 401 without a token and 404 for unknown ids', async () => {
      const r = await fetch(`${n.url}/api/v1/documents/upload?fileName=a.csv&csvRoute=Tabular`, { method: 'POST', body: 'a\n1\n' });
      expect(r.status).toBe(401);
      expect(((await r.json()) as Record<string, any>).code).toBe('missing_token');
      for (const p of ['/api/v1/documents/does-not-exist/status', '/api/v1/documents/does-not-exist/result']) {
        const x = await api(p);
        expect(x.status).toBe(404);
        expect(((await x.json()) as Record<string, any>).code).toBe('document_not_found');
      }
    });

    it('enforces the plan: file size (declared and streamed), concurrency and monthly quota', async () => {
      const small = await createApp(n.node, { maxFileSizeBytes: 1000, maxDocumentUnitsPerMonth: 1 });
      const t = await getToken(n.url, small.clientId, small.clientSecret);
      const big = Buffer.from('a,b\n' + '1,2\n'.repeat(400));
      const declared = await upload({ fileName: 'big.csv', csvRoute: 'Tabular' }, big, t);
      expect(declared.status).toBe(413);
      expect(((await declared.json()) as Record<string, any>).code).toBe('document_too_large');

      // Without Content-Length the limit is enforced while streaming and the partial file removed.
      const streamed = await fetch(`${n.url}/api/v1/documents/upload?fileName=big.csv&csvRoute=Tabular`, {
        method: 'POST',
        headers: { authorization: `Bearer ${t}` },
        body: new ReadableStream({
          start(c) {
            for (let i = 0; i < 10; i++) c.enqueue(new Uint8Array(big.subarray(i * 160, (i + 1) * 160)));
            c.close();
          },
        }),
        duplex: 'half',
      } as RequestInit);
      expect(streamed.status).toBe(413);
      expect((await filesUnder(path.join(env.dataDir, 'blobs'))).filter((f) => f.includes(small.tenantId))).toEqual([]);

      const ok = await upload({ fileName: 'ok.csv', csvRoute: 'Tabular' }, 'a\n1\n', t);
      expect(ok.status).toBe(202);
      await settled(((await ok.json()) as Status).documentId, t);
      const over = await upload({ fileName: 'ok2.csv', csvRoute: 'Tabular' }, 'a\n2\n', t);
      expect(over.status).toBe(429);
      expect(((await over.json()) as Record<string, any>).code).toBe('quota_exceeded');
    });

    it.skipIf(!CORPUS_AVAILABLE)('presigned upload: session in state 0, signed PUT, completion queues the job', async () => {
      const bytes = await corpus('vega_la-riots.csv');
      const { createHash } = await import('node:crypto');
      const sha256 = createHash('sha256').update(bytes).digest('hex');
      const json = (b: unknown) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(b) });
      const req = await api('/api/v1/documents/upload-request', json({ fileName: 'riots.csv', sizeBytes: bytes.length, sha256 }));
      expect(req.status).toBe(201);
      const session = (await req.json()) as { uploadId: string; documentId: string; uploadUrl: string; method: string; maxBytes: number };
      expect(session).toMatchObject({ method: 'PUT', maxBytes: bytes.length });
      const s0 = await status(session.documentId);
      expect(s0).toMatchObject({ statusInt: 0, status: 'job not yet queued' });

      const early = await api('/api/v1/documents/upload-complete', json({ uploadId: session.uploadId, csvRoute: 'Spatial' }));
      expect(early.status).toBe(409);
      expect(((await early.json()) as Record<string, any>).code).toBe('upload_incomplete');

      const u = new URL(session.uploadUrl);
      const putUrl = `${n.url}${u.pathname}`;
      const tampered = await fetch(`${putUrl}?expires=${u.searchParams.get('expires')}&signature=${'A'.repeat(43)}`, { method: 'PUT', body: bytes });
      expect(tampered.status).toBe(403);
      const short = await fetch(`${putUrl}${u.search}`, { method: 'PUT', body: bytes.subarray(0, 100) });
      expect(short.status).toBe(400);
      // Chunked transfer (no Content-Length), as clients stream large files.
      const put = await fetch(`${putUrl}${u.search}`, {
        method: 'PUT',
        body: new ReadableStream({
          start(c) {
            for (let i = 0; i < bytes.length; i += 1000) c.enqueue(new Uint8Array(bytes.subarray(i, i + 1000)));
            c.close();
          },
        }),
        duplex: 'half',
      } as RequestInit);
      expect(put.status).toBe(204);

      const done = await api(
        '/api/v1/documents/upload-complete',
        json({ uploadId: session.uploadId, csvRoute: 'Spatial', customMetadataJson: '{"via":"presigned"}' }),
      );
      expect(done.status).toBe(202);
      expect(await done.json()).toEqual({ documentId: session.documentId, status: 'Queued', statusInt: 2 });
      const again = await api('/api/v1/documents/upload-complete', json({ uploadId: session.uploadId, csvRoute: 'Spatial' }));
      expect(again.status).toBe(202);
      expect(((await again.json()) as Status).documentId).toBe(session.documentId);

      const finished = await settled(session.documentId);
      expect(finished.statusInt).toBe(8);
      const artifact = (await (await api(`/api/v1/documents/${session.documentId}/result`)).json()) as any;
      expect(artifact.customMetadata).toEqual({ via: 'presigned' });
      expect(artifact.content.featureCount).toBeGreaterThan(0);

      const other = await createApp(n.node, {});
      const t = await getToken(n.url, other.clientId, other.clientSecret);
      const stolen = await api('/api/v1/documents/upload-complete', json({ uploadId: session.uploadId, csvRoute: 'Spatial' }), t);
      expect(stolen.status).toBe(400);
    });

    it('presigned upload refuses a size over the plan and a hash that does not match', async () => {
      const small = await createApp(n.node, { maxFileSizeBytes: 1000 });
      const t = await getToken(n.url, small.clientId, small.clientSecret);
      const json = (b: unknown) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(b) });
      const big = await api('/api/v1/documents/upload-request', json({ fileName: 'x.csv', sizeBytes: 5000 }), t);
      expect(big.status).toBe(413);
      const req = await api('/api/v1/documents/upload-request', json({ fileName: 'x.csv', sizeBytes: 8, sha256: '0'.repeat(64) }), t);
      const session = (await req.json()) as { uploadUrl: string };
      const u = new URL(session.uploadUrl);
      const put = await fetch(`${n.url}${u.pathname}${u.search}`, { method: 'PUT', body: 'a,b\n1,2\n' });
      expect(put.status).toBe(400);
      expect(((await put.json()) as Record<string, any>).parameter).toBe('sha256');
    });

    it('upload bytes per second over the plan → 429 rate_limited with Retry-After, nothing stored', async () => {
      const slow = await createApp(n.node, { maxBytesPerSecond: 100 });
      const t = await getToken(n.url, slow.clientId, slow.clientSecret);
      const body = 'a,b\n' + '1,2\n'.repeat(200); // 804 bytes: within 10 s × 100 B/s once, not twice
      const first = await upload({ fileName: 'r1.csv', csvRoute: 'Tabular' }, body, t);
      expect(first.status).toBe(202);
      const second = await upload({ fileName: 'r2.csv', csvRoute: 'Tabular' }, body, t);
      expect(second.status).toBe(429);
      expect(second.headers.get('retry-after')).toBeTruthy();
      expect((await second.json()) as Record<string, any>).toMatchObject({ code: 'rate_limited', limit: 100 });
      const stored = (await filesUnder(path.join(env.dataDir, 'blobs'))).filter((f) => f.includes(slow.tenantId) && f.endsWith('/upload'));
      expect(stored).toHaveLength(1);
      await settled(((await first.json()) as Status).documentId, t); // leave no job running for the next test
    });

    it('a client that disconnects mid-upload leaves nothing stored and the node keeps serving', async () => {
      // Uploads and partial files only: artifacts of earlier jobs may still be landing.
      const stored = async () => (await filesUnder(path.join(env.dataDir, 'blobs'))).filter((f) => !/\/artifact(\.\w+)?\.json$/.test(f));
      const before = await stored();
      await new Promise<void>((resolve, reject) => {
        const s = net.connect(n.node.port, '127.0.0.1', () => {
          s.write(
            `POST /api/v1/documents/upload?fileName=cut.csv&csvRoute=Tabular HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Length: 10000000\r\n\r\n` +
              'a,b\n1,2\n'.repeat(20000),
          );
          setTimeout(() => {
            s.destroy();
            resolve();
          }, 300);
        });
        s.on('error', reject);
      });
      await new Promise((r) => setTimeout(r, 300));
      expect(await stored()).toEqual(before);
      expect((await fetch(`${n.url}/health/live`)).status).toBe(200);
    });
  });
}

/** Scenarios that need their own node configuration. */
export function documentsLifecycleSuite(mode: Mode): void {
  describe(`documents lifecycle across nodes (${mode})`, () => {
    it('answers 202 while queued, and a restarted node finishes the queued jobs', async () => {
      const env = await createTestEnv(mode);
      try {
        const apiOnly = await startTestNode(env, {}, ['api', 'auth']);
        const tok = await getToken(apiOnly.url, 'demo-client', 'demo-secret-0123456789');
        const ids: string[] = [];
        for (let i = 0; i < 3; i++) {
          const r = await fetch(`${apiOnly.url}/api/v1/documents/upload?fileName=q${i}.csv&csvRoute=Tabular`, {
            method: 'POST',
            headers: { authorization: `Bearer ${tok}` },
            body: `x,y\n${i},${i}\n`,
          });
          ids.push(((await r.json()) as { documentId: string }).documentId);
        }
        const pending = await fetch(`${apiOnly.url}/api/v1/documents/${ids[0]}/result`, { headers: { authorization: `Bearer ${tok}` } });
        expect(pending.status).toBe(202);
        expect(pending.headers.get('retry-after')).toBeTruthy();
        expect(((await pending.json()) as Status).status).toBe('queued');
        await apiOnly.close();

        const full = await startTestNode(env);
        try {
          for (const id of ids) {
            const s = await waitFor(async () => {
              const r = (await (await fetch(`${full.url}/api/v1/documents/${id}/status`, { headers: { authorization: `Bearer ${tok}` } })).json()) as Status;
              return r.statusInt === 8 ? r : null;
            }, `job ${id} after restart`);
            expect(s.status).toBe('completed');
          }
        } finally {
          await full.close();
        }
      } finally {
        await destroyTestEnv(env);
      }
    });

    it('too many unfinished jobs for the plan → 429 rate_limited with Retry-After', async () => {
      const env = await createTestEnv(mode);
      const n = await startTestNode(env, {}, ['api', 'auth']);
      try {
        const app = await createApp(n.node, { maxConcurrentJobs: 2 });
        const tok = await getToken(n.url, app.clientId, app.clientSecret);
        const send = () =>
          fetch(`${n.url}/api/v1/documents/upload?fileName=c.csv&csvRoute=Tabular`, {
            method: 'POST',
            headers: { authorization: `Bearer ${tok}` },
            body: 'a\n1\n',
          });
        expect((await send()).status).toBe(202);
        expect((await send()).status).toBe(202);
        const third = await send();
        expect(third.status).toBe(429);
        expect(third.headers.get('retry-after')).toBeTruthy();
        expect(((await third.json()) as Record<string, any>).code).toBe('rate_limited');
      } finally {
        await n.close();
        await destroyTestEnv(env);
      }
    });

    it('after the retention period status and result are 404 and the bytes are gone', async () => {
      const env = await createTestEnv(mode, { DOCPARSE_RETENTION_SECONDS: '3' });
      const n = await startTestNode(env);
      try {
        const tok = await getToken(n.url, 'demo-client', 'demo-secret-0123456789');
        const r = await fetch(`${n.url}/api/v1/documents/upload?fileName=r.csv&csvRoute=Tabular&documentId=short-lived`, {
          method: 'POST',
          headers: { authorization: `Bearer ${tok}` },
          body: 'a,b\n1,2\n',
        });
        expect(r.status).toBe(202);
        await waitFor(
          async () =>
            ((await (await fetch(`${n.url}/api/v1/documents/short-lived/status`, { headers: { authorization: `Bearer ${tok}` } })).json()) as Status)
              .statusInt === 8,
          'completion',
        );
        expect((await filesUnder(path.join(env.dataDir, 'blobs'))).length).toBeGreaterThan(0);
        await new Promise((res) => setTimeout(res, 3500));
        for (const p of ['status', 'result']) {
          const x = await fetch(`${n.url}/api/v1/documents/short-lived/${p}`, { headers: { authorization: `Bearer ${tok}` } });
          expect(x.status).toBe(404);
        }
        await n.node.retention.sweep();
        expect(await filesUnder(path.join(env.dataDir, 'blobs'))).toEqual([]);
      } finally {
        await n.close();
        await destroyTestEnv(env);
      }
    });

    it('a parsing process killed mid-task is replaced and the job is retried to completion', async () => {
      const env = await createTestEnv(mode, { DOCPARSE_WORKER_THREADS: '1' });
      const n = await startTestNode(env);
      try {
        const tok = await getToken(n.url, 'demo-client', 'demo-secret-0123456789');
        const rows = Array.from({ length: 2_000_000 }, (_, i) => `${i},name ${i},${(i * 0.37).toFixed(2)},2024-01-${String((i % 28) + 1).padStart(2, '0')}`);
        const body = 'id,name,value,day\n' + rows.join('\n') + '\n';
        const r = await fetch(`${n.url}/api/v1/documents/upload?fileName=big.csv&csvRoute=Tabular&documentId=killme`, {
          method: 'POST',
          headers: { authorization: `Bearer ${tok}` },
          body,
        });
        expect(r.status).toBe(202);
        const get = async () =>
          (await (await fetch(`${n.url}/api/v1/documents/killme/status`, { headers: { authorization: `Bearer ${tok}` } })).json()) as Status;
        await waitFor(async () => (await get()).statusInt === 3, 'processing');
        await new Promise((res) => setTimeout(res, 1000)); // let the task reach its thread
        // The only task in flight is the culprit: it is charged an attempt and runs again.
        process.kill(n.node.pool!.pid!, 'SIGKILL');
        const done = await waitFor(
          async () => {
            const s = await get();
            return s.statusInt === 8 || s.statusInt === 9 ? s : null;
          },
          'retry to finish',
          90_000,
        );
        expect(done.statusInt).toBe(8);
        expect(done.attempts).toBe(2);
      } finally {
        await n.close();
        await destroyTestEnv(env);
      }
    });
  });
}
