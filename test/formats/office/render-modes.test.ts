// DOCPARSE_OFFICE_RENDER modes for word-processing documents, as config.ts reads them and
// the parser receives them (settings.office.render).
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { corpusPath } from '../../helpers/parse.js';
import { parserSettings } from '../../helpers/parser-settings.js';
import { parsePath, renderedPages } from './helpers.js';

async function parse(file: string, mode: string) {
  const { render } = loadConfig({ DOCPARSE_OFFICE_RENDER: mode }).parsers.office;
  const r = await parsePath(corpusPath('office', file), 'docx', {}, parserSettings({ office: { render } }));
  if (!r.ok) throw new Error(r.message);
  return r.artifact;
}

describe('render mode "auto"', () => {
  it("trusts Word's stored count when Word's own layout markers confirm it", async () => {
    const a = await parse('tika__testWORD.docx', 'auto');
    expect(a.metadata.pageCount).toEqual({ source: 'stored-confirmed', rendered: null, stored: 2, storedAgrees: true, wordLayoutPages: 2 });
    expect(a.documentUnits).toBe(renderedPages('tika__testWORD.docx'));
  });
  it('renders when the stored count is not confirmed (stale: 7 stored, 9 rendered)', async () => {
    const a = await parse('tika__testWORD_2006ml.docx', 'auto');
    expect(a.metadata.pageCount.source).toBe('rendered');
    expect(a.documentUnits).toBe(9);
  }, 60_000);
  it('renders documents not written by Word', async () => {
    const a = await parse('tika__testWORD_various.docx', 'auto'); // LibreOffice wrote it
    expect(a.metadata.pageCount.source).toBe('rendered');
  }, 60_000);
});

describe('render mode "off"', () => {
  it('bills the stored count, or one page when there is none, and says so', async () => {
    const a = await parse('tika__testWORD_2006ml.docx', '0');
    expect(a.metadata.pageCount).toMatchObject({ source: 'stored', stored: 7, rendered: null });
    expect(a.documentUnits).toBe(7);
    const b = await parse('officeparser__test.docx', 'off');
    expect(b.metadata.pageCount.source).toBe('minimum');
    expect(b.documentUnits).toBe(1);
    expect(b.warnings.join(' ')).toMatch(/minimum of one page/);
  });
});
