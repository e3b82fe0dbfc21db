// A node started without LibreOffice (DOCPARSE_SOFFICE=/nonexistent) and without Tesseract's
// English model (DOCPARSE_TESSDATA_DIR = an empty folder): it stays ready, lists both under
// engines.missing, serves every other format, and refuses at upload the documents that need
// a missing engine — 503 engine_unavailable naming it, nothing stored, nothing charged.
//
// The upload refusals need Intake.classify to call requireEngines (src/api/intake.ts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp, createTestEnv, destroyTestEnv, filesUnder, getToken, startTestNode, waitFor, type TestEnv, type TestNode } from '../helpers/node.js';
import { corpusPath } from '../helpers/parse.js';
import { monthOf } from '../../src/tenancy/month.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

let empty: string;
let env: TestEnv;
let n: TestNode;
let app: { clientId: string; clientSecret: string; appId: string; tenantId: string };
let token: string;

beforeAll(async () => {
  empty = fs.mkdtempSync(path.join(os.tmpdir(), 'dp-no-tessdata-'));
  // The node's config says where the engines are; it hands that to its parsing process.
  env = await createTestEnv('embedded', { DOCPARSE_SOFFICE: '/nonexistent', DOCPARSE_TESSDATA_DIR: empty });
  n = await startTestNode(env);
  app = await createApp(n.node, { ocrPdfExtraction: true, advancedPdfExtraction: true });
  token = await getToken(n.url, app.clientId, app.clientSecret);
});
afterAll(async () => {
  await n?.close();
  if (env) await destroyTestEnv(env);
  fs.rmSync(empty, { recursive: true, force: true });
});

const api = (p: string, init: RequestInit = {}) => fetch(`${n.url}${p}`, { ...init, headers: { authorization: `Bearer ${token}`, ...(init.headers ?? {}) } });
const upload = (query: Record<string, string>, body: Buffer | string) =>
  api(`/api/v1/documents/upload?${new URLSearchParams(query)}`, { method: 'POST', body });
const blobFiles = async () => (await filesUnder(path.join(env.dataDir, 'blobs'))).filter((f) => f.includes(`/${app.tenantId}/`));
const committed = () => n.node.controlPlane.unitsCommitted(app.appId, monthOf(new Date()));

type Engine = { name: string; available: boolean; reason?: string };

const finished = (id: string) =>
  waitFor(async () => {
    const st = (await (await api(`/api/v1/documents/${id}/status`)).json()) as { statusInt: number; documentUnits?: number };
    return st.statusInt === 8 || st.statusInt === 9 ? st : null;
  }, `job ${id} to finish`);

/** The refusal of `send()`, checked to be a problem document that stored and charged nothing. */
async function refused(send: () => Promise<Response>, documentId: string): Promise<Record<string, any>> {
  const [blobsBefore, unitsBefore] = [await blobFiles(), await committed()];
  const res = await send();
  expect(res.status).toBe(503);
  expect(res.headers.get('content-type')).toBe('application/problem+json');
  expect(res.headers.get('retry-after')).toBeNull();
  const body = (await res.json()) as Record<string, any>;
  expect(body.code).toBe('engine_unavailable');
  expect((await api(`/api/v1/documents/${documentId}/status`)).status).toBe(404);
  expect(await blobFiles()).toEqual(blobsBefore);
  expect(await committed()).toBe(unitsBefore);
  return body;
}

describe('a node without LibreOffice and without the OCR model', () => {
  it('is ready, and lists both engines as missing with the reason', async () => {
    const res = await fetch(`${n.url}/health/ready`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { status: string; engines: { available: Engine[]; missing: Engine[] } };
    expect(body.status).toBe('ready');
    expect(body.engines.missing).toEqual([
      expect.objectContaining({
        name: 'Tesseract',
        available: false,
        languages: [],
        reason: 'the English model eng.traineddata was not found in DOCPARSE_TESSDATA_DIR',
      }),
      expect.objectContaining({ name: 'LibreOffice', available: false, version: null, reason: 'DOCPARSE_SOFFICE names no executable file' }),
    ]);
    expect(body.engines.available.map((e) => e.name)).toEqual(['PDFium', 'GDAL', 'LibreDWG', 'hyparquet']);
    const state = (await (await fetch(`${n.url}/health/node-state`)).json()) as { engines: unknown };
    expect(state.engines).toEqual(body.engines);
  });

  it('a DOC upload → 503 engine_unavailable naming LibreOffice; nothing stored or charged', async () => {
    const doc = fs.readFileSync(corpusPath('office', 'tika__testWORD_2006ml.doc'));
    const body = await refused(() => upload({ fileName: 'letter.doc', documentId: 'doc-1' }, doc), 'doc-1');
    expect(body).toMatchObject({ status: 503, title: 'Engine unavailable', engine: 'LibreOffice', format: 'doc' });
    expect(body.detail).toBe('LibreOffice is needed to read DOC documents and is not installed on this node. Nothing was stored or charged.');
  });

  it('a DOCX upload → 503 (its pages are counted by rendering)', async () => {
    const docx = fs.readFileSync(corpusPath('office', 'tika__testWORD_2006ml.docx'));
    expect(await refused(() => upload({ fileName: 'report.docx', documentId: 'docx-1' }, docx), 'docx-1')).toMatchObject({
      engine: 'LibreOffice',
      format: 'docx',
    });
  });

  it('pdfMode=Ocr → 503 naming Tesseract and the mode; the same PDF in SingleColumn is taken and completes', async () => {
    const pdf = fs.readFileSync(corpusPath('pdf', 'generated__scanned-3p.pdf'));
    expect(await refused(() => upload({ fileName: 'scan.pdf', pdfMode: 'Ocr', documentId: 'ocr-1' }, pdf), 'ocr-1')).toMatchObject({
      engine: 'Tesseract',
      format: 'pdf',
      pdfMode: 'Ocr',
    });
    const ok = await upload({ fileName: 'scan.pdf', pdfMode: 'SingleColumn', documentId: 'single-1' }, pdf);
    expect(ok.status).toBe(202);
    expect(await finished('single-1')).toMatchObject({ statusInt: 8, documentUnits: 3 });
  });

  it('formats that need neither engine are served as usual', async () => {
    const res = await upload({ fileName: 'c.csv', csvRoute: 'Tabular', documentId: 'csv-1' }, 'a,b\n1,2\n');
    expect(res.status).toBe(202);
    expect(await finished('csv-1')).toMatchObject({ statusInt: 8, documentUnits: 1 });
  });

  it('a presigned DOC upload is refused at upload-complete: not queued, nothing charged', async () => {
    const bytes = fs.readFileSync(corpusPath('office', 'tika__testWORD_2006ml.doc'));
    const unitsBefore = await committed();
    const opened = await api('/api/v1/documents/upload-request', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        fileName: 'big.doc',
        sizeBytes: bytes.length,
        sha256: createHash('sha256').update(bytes).digest('hex'),
        documentId: 'doc-presigned',
      }),
    });
    expect(opened.status).toBe(201);
    const session = (await opened.json()) as { uploadId: string; uploadUrl: string };
    const u = new URL(session.uploadUrl);
    expect((await fetch(`${n.url}${u.pathname}${u.search}`, { method: 'PUT', body: bytes })).status).toBe(204);
    const done = await api('/api/v1/documents/upload-complete', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ uploadId: session.uploadId }),
    });
    expect(done.status).toBe(503);
    expect(await done.json()).toMatchObject({ code: 'engine_unavailable', engine: 'LibreOffice', format: 'doc' });
    const st = (await (await api('/api/v1/documents/doc-presigned/status')).json()) as { statusInt: number };
    expect(st.statusInt).toBe(0); // still an open session: never queued
    expect(await committed()).toBe(unitsBefore);
  });
});
