// A job that reaches a worker without the engine it needs fails as engine_unavailable
// (transient: retried, perhaps on a worker that has it) instead of completing without the
// engine's work: OCR with empty pages, a DOCX billed from its stale stored page count.
// The parsers run in-process exactly as a worker thread runs them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { corpusPath, parseFile } from '../helpers/parse.js';
import { parserSettings } from '../helpers/parser-settings.js';
import type { JobOptions } from '../../src/formats/kit/options.js';
import type { ParserSettings } from '../../src/formats/settings.js';

vi.setConfig({ testTimeout: 120_000 });

let empty: string;
/** A worker whose settings point at no engine (DOCPARSE_TESSDATA_DIR = an empty folder, DOCPARSE_SOFFICE=/nonexistent). */
const noModel = () => parserSettings({ engines: { tessdataDir: empty } });
const noSoffice = (office: Partial<ParserSettings['office']> = {}) => parserSettings({ engines: { soffice: '/nonexistent' }, office });
const parse = (family: string, file: string, format: string, options: JobOptions = {}, settings = parserSettings()) =>
  parseFile(corpusPath(family, file), format, options, file, settings);

beforeAll(() => {
  empty = fs.mkdtempSync(path.join(os.tmpdir(), 'dp-no-tessdata-'));
});
afterAll(() => {
  fs.rmSync(empty, { recursive: true, force: true });
});

describe('pdfMode=Ocr without the English model', () => {
  it('fails the job as engine_unavailable (transient), never completes it with empty pages', async () => {
    const r = await parse('pdf', 'generated__scanned-3p.pdf', 'pdf', { pdfMode: 'Ocr' }, noModel());
    expect(r).toEqual({
      ok: false,
      code: 'engine_unavailable',
      transient: true,
      message: "Tesseract's English model (eng.traineddata) is not installed on the worker node that took this job; it is needed for pdfMode=Ocr.",
    });
  });

  it('a PDF with a text layer fails too: Ocr mode cannot be honoured on this node', async () => {
    const r = await parse('pdf', 'pdfjs__tracemonkey.pdf', 'pdf', { pdfMode: 'Ocr' }, noModel());
    expect(r).toMatchObject({ ok: false, code: 'engine_unavailable', transient: true });
  });

  it('the other modes need no model', async () => {
    const r = await parse('pdf', 'generated__scanned-3p.pdf', 'pdf', { pdfMode: 'SingleColumn' }, noModel());
    expect(r).toMatchObject({ ok: true, artifact: { documentUnits: 3 } });
  });

  it('with the model, the scan is recognised (the same file, the same call)', async () => {
    const r = await parse('pdf', 'generated__scanned-3p.pdf', 'pdf', { pdfMode: 'Ocr' });
    if (!r.ok) throw new Error(r.message);
    expect(r.artifact.content.pages.map((p: { textSource: string }) => p.textSource)).toEqual(['ocr', 'ocr', 'ocr']);
  });
});

describe('Office without LibreOffice (DOCPARSE_SOFFICE=/nonexistent)', () => {
  it('a DOCX is not billed from its stale stored page count (7; 9 rendered): engine_unavailable', async () => {
    const r = await parse('office', 'tika__testWORD_2006ml.docx', 'docx', {}, noSoffice());
    expect(r).toEqual({
      ok: false,
      code: 'engine_unavailable',
      transient: true,
      message: 'LibreOffice is not installed on the worker node that took this job; it is needed to count the pages of DOCX documents.',
    });
  });

  it('DOCPARSE_OFFICE_RENDER=off explicitly asks for stored counts: billed 7, with the warning', async () => {
    const r = await parse('office', 'tika__testWORD_2006ml.docx', 'docx', {}, noSoffice({ render: 'off' }));
    if (!r.ok) throw new Error(r.message);
    expect(r.artifact.documentUnits).toBe(7);
    expect(r.artifact.metadata.pageCount).toMatchObject({ source: 'stored', stored: 7 });
  });

  it('with LibreOffice the same DOCX is billed its 9 rendered pages', async () => {
    const r = await parse('office', 'tika__testWORD_2006ml.docx', 'docx');
    if (!r.ok) throw new Error(r.message);
    expect(r.artifact.documentUnits).toBe(9);
    expect(r.artifact.metadata.pageCount.source).toBe('rendered');
  }, 60_000);

  it('a DOC fails as engine_unavailable (transient), not as an unreadable document', async () => {
    const r = await parse('office', 'tika__testWORD_2006ml.doc', 'doc', {}, noSoffice());
    expect(r).toMatchObject({ ok: false, code: 'engine_unavailable', transient: true });
    expect((r as { message: string }).message).toBe('LibreOffice is not installed on the worker node that took this job; it is needed to read DOC files.');
  });
});
