// A job that reaches a worker without the engine it needs fails as engine_unavailable
// (transient: retried, perhaps on a worker that has it) instead of completing without the
// engine's work: OCR with empty pages, a DOCX billed from its stale stored page count.
// The parsers run in-process exactly as a worker thread runs them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { corpusPath, parseFile } from '../helpers/parse.js';

vi.setConfig({ testTimeout: 120_000 });

const SAVED = ['DOCPARSE_TESSDATA_DIR', 'DOCPARSE_SOFFICE', 'DOCPARSE_OFFICE_RENDER'].map((k) => [k, process.env[k]] as const);
let empty: string;

beforeAll(() => {
  empty = fs.mkdtempSync(path.join(os.tmpdir(), 'dp-no-tessdata-'));
});
afterEach(() => {
  for (const [k, v] of SAVED) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});
afterAll(() => {
  fs.rmSync(empty, { recursive: true, force: true });
});

describe('pdfMode=Ocr without the English model', () => {
  it('fails the job as engine_unavailable (transient), never completes it with empty pages', async () => {
    process.env.DOCPARSE_TESSDATA_DIR = empty;
    const r = await parseFile(corpusPath('pdf', 'generated__scanned-3p.pdf'), 'pdf', { pdfMode: 'Ocr' });
    expect(r).toEqual({
      ok: false,
      code: 'engine_unavailable',
      transient: true,
      message: "Tesseract's English model (eng.traineddata) is not installed on the worker node that took this job; it is needed for pdfMode=Ocr.",
    });
  });

  it('a PDF with a text layer fails too: Ocr mode cannot be honoured on this node', async () => {
    process.env.DOCPARSE_TESSDATA_DIR = empty;
    const r = await parseFile(corpusPath('pdf', 'pdfjs__tracemonkey.pdf'), 'pdf', { pdfMode: 'Ocr' });
    expect(r).toMatchObject({ ok: false, code: 'engine_unavailable', transient: true });
  });

  it('the other modes need no model', async () => {
    process.env.DOCPARSE_TESSDATA_DIR = empty;
    const r = await parseFile(corpusPath('pdf', 'generated__scanned-3p.pdf'), 'pdf', { pdfMode: 'SingleColumn' });
    expect(r).toMatchObject({ ok: true, artifact: { documentUnits: 3 } });
  });

  it('with the model, the scan is recognised (the same file, the same call)', async () => {
    const r = await parseFile(corpusPath('pdf', 'generated__scanned-3p.pdf'), 'pdf', { pdfMode: 'Ocr' });
    if (!r.ok) throw new Error(r.message);
    expect(r.artifact.content.pages.map((p: { textSource: string }) => p.textSource)).toEqual(['ocr', 'ocr', 'ocr']);
  });
});

describe('Office without LibreOffice (DOCPARSE_SOFFICE=/nonexistent)', () => {
  it('a DOCX is not billed from its stale stored page count (7; 9 rendered): engine_unavailable', async () => {
    process.env.DOCPARSE_SOFFICE = '/nonexistent';
    const r = await parseFile(corpusPath('office', 'tika__testWORD_2006ml.docx'), 'docx');
    expect(r).toEqual({
      ok: false,
      code: 'engine_unavailable',
      transient: true,
      message: 'LibreOffice is not installed on the worker node that took this job; it is needed to count the pages of DOCX documents.',
    });
  });

  it('DOCPARSE_OFFICE_RENDER=off explicitly asks for stored counts: billed 7, with the warning', async () => {
    process.env.DOCPARSE_SOFFICE = '/nonexistent';
    process.env.DOCPARSE_OFFICE_RENDER = 'off';
    const r = await parseFile(corpusPath('office', 'tika__testWORD_2006ml.docx'), 'docx');
    if (!r.ok) throw new Error(r.message);
    expect(r.artifact.documentUnits).toBe(7);
    expect(r.artifact.metadata.pageCount).toMatchObject({ source: 'stored', stored: 7 });
  });

  it('with LibreOffice the same DOCX is billed its 9 rendered pages', async () => {
    const r = await parseFile(corpusPath('office', 'tika__testWORD_2006ml.docx'), 'docx');
    if (!r.ok) throw new Error(r.message);
    expect(r.artifact.documentUnits).toBe(9);
    expect(r.artifact.metadata.pageCount.source).toBe('rendered');
  }, 60_000);

  // Needs the one-line change in src/formats/office/index.ts convertInput (its own
  // "not installed" check throws extraction_failed before convert() is reached):
  //   if (!libreOfficeAvailable()) throw engineUnavailable('LibreOffice', `to read ${what}`);
  it('a DOC fails as engine_unavailable (transient), not as an unreadable document', async () => {
    process.env.DOCPARSE_SOFFICE = '/nonexistent';
    const r = await parseFile(corpusPath('office', 'tika__testWORD_2006ml.doc'), 'doc');
    expect(r).toMatchObject({ ok: false, code: 'engine_unavailable', transient: true });
    expect((r as { message: string }).message).toBe('LibreOffice is not installed on the worker node that took this job; it is needed to read DOC files.');
  });
});
