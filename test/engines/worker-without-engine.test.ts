// Two nodes on shared PostgreSQL and Redis: the API node has every engine (so it takes the
// upload), the worker node has neither Tesseract's English model nor LibreOffice. The jobs
// that reach that worker fail with engine_unavailable after their retries, charged nothing —
// not completed with empty OCR pages, nor billed from a DOCX's stale stored page count.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp, createTestEnv, destroyTestEnv, getToken, startTestNode, waitFor, type TestEnv, type TestNode } from '../helpers/node.js';
import { corpusPath } from '../helpers/parse.js';
import { monthOf } from '../../src/tenancy/month.js';

vi.setConfig({ testTimeout: 180_000, hookTimeout: 120_000 });

let empty: string;
let env: TestEnv;
let worker: TestNode;
let apiNode: TestNode;
let app: { clientId: string; clientSecret: string; appId: string; tenantId: string };
let token: string;

beforeAll(async () => {
  empty = fs.mkdtempSync(path.join(os.tmpdir(), 'dp-no-tessdata-'));
  env = await createTestEnv('distributed', { DOCPARSE_MAX_ATTEMPTS: '2' });
  // The worker's config hands its parsing process the engine locations: no engines there.
  worker = await startTestNode(env, { DOCPARSE_SOFFICE: '/nonexistent', DOCPARSE_TESSDATA_DIR: empty }, ['worker']);
  // Started last, the API node's inventory (every engine) is the one uploads are checked against.
  apiNode = await startTestNode(env, {}, ['api', 'auth']);
  app = await createApp(apiNode.node, { ocrPdfExtraction: true });
  token = await getToken(apiNode.url, app.clientId, app.clientSecret);
});
afterAll(async () => {
  await apiNode?.close();
  await worker?.close();
  if (env) await destroyTestEnv(env);
  fs.rmSync(empty, { recursive: true, force: true });
});

interface Status {
  statusInt: number;
  documentUnits?: number | null;
  error?: { code: string; message: string; stage: string } | null;
}

const api = (p: string, init: RequestInit = {}) =>
  fetch(`${apiNode.url}${p}`, { ...init, headers: { authorization: `Bearer ${token}`, ...(init.headers ?? {}) } });
const finished = (id: string) =>
  waitFor(
    async () => {
      const s = (await (await api(`/api/v1/documents/${id}/status`)).json()) as Status;
      return s.statusInt === 8 || s.statusInt === 9 ? s : null;
    },
    `job ${id} to finish`,
    120_000,
  );
const month = () => monthOf(new Date());

describe('a job that reaches a worker without its engine', () => {
  it('pdfMode=Ocr: fails engine_unavailable after its retries; no pages charged, no result served', async () => {
    const r = await api('/api/v1/documents/upload?fileName=scan.pdf&pdfMode=Ocr&documentId=ocr-w', {
      method: 'POST',
      body: fs.readFileSync(corpusPath('pdf', 'generated__scanned-3p.pdf')),
    });
    expect(r.status).toBe(202);
    const s = await finished('ocr-w');
    expect(s.statusInt).toBe(9);
    expect(s.error).toEqual({
      code: 'engine_unavailable',
      stage: 'extract',
      message:
        "Tesseract's English model (eng.traineddata) is not installed on the worker node that took this job; it is needed for pdfMode=Ocr. (after 2 attempts)",
    });
    expect((await api('/api/v1/documents/ocr-w/result')).status).toBe(422);
    expect(await apiNode.node.controlPlane.unitsUsed(app.appId, month())).toBe(0);
    expect(await apiNode.node.controlPlane.unitsCommitted(app.appId, month())).toBe(0);
  });

  it('DOCX: fails engine_unavailable instead of billing its stale stored count (7 of 9 pages)', async () => {
    const r = await api('/api/v1/documents/upload?fileName=report.docx&documentId=docx-w', {
      method: 'POST',
      body: fs.readFileSync(corpusPath('office', 'tika__testWORD_2006ml.docx')),
    });
    expect(r.status).toBe(202);
    const s = await finished('docx-w');
    expect(s).toMatchObject({ statusInt: 9, error: { code: 'engine_unavailable', stage: 'extract' } });
    expect(s.error!.message).toBe(
      'LibreOffice is not installed on the worker node that took this job; it is needed to count the pages of DOCX documents. (after 2 attempts)',
    );
    expect(await apiNode.node.controlPlane.unitsUsed(app.appId, month())).toBe(0);
    expect(await apiNode.node.controlPlane.unitsCommitted(app.appId, month())).toBe(0);
  });
});
