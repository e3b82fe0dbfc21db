// Hostile and broken inputs end in a clear ExtractionError, never a crash or a hang:
// zip bombs (declared size and ratio), unsafe entry paths, wrong containers, empty files.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusPath } from '../../helpers/parse.js';
import { parsePath, schemaErrors } from './helpers.js';
import { parserSettings } from '../../helpers/parser-settings.js';
import { loadConfig } from '../../../src/config.js';

let dir: string;
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'office-guards-'));
});
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

const CONTENT_TYPES =
  '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>';
const ROOT_RELS =
  '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>';
const doc = (body: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}</w:body></w:document>`;

async function writeZip(name: string, entries: Record<string, string>): Promise<string> {
  const z = new JSZip();
  for (const [k, v] of Object.entries(entries)) z.file(k, v, { createFolders: false });
  const buf = await z.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE', compressionOptions: { level: 9 } });
  const p = path.join(dir, name);
  await fs.writeFile(p, buf);
  return p;
}

describe('package guards', () => {
  it('a highly compressed part is refused as a possible zip bomb', async () => {
    const p = await writeZip('bomb.docx', {
      '[Content_Types].xml': CONTENT_TYPES,
      '_rels/.rels': ROOT_RELS,
      'word/document.xml': doc(`<w:p><w:r><w:t>${' '.repeat(24 * 1024 * 1024)}</w:t></w:r></w:p>`),
    });
    expect((await fs.stat(p)).size).toBeLessThan(200_000);
    const r = await parsePath(p, 'docx');
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.code).toBe('extraction_failed');
      expect(r.message).toMatch(/zip bomb/);
    }
  }, 60_000);

  it('a package without its main part fails with the reason', async () => {
    const p = await writeZip('nomain.docx', { '[Content_Types].xml': CONTENT_TYPES, 'hello.txt': 'hi' });
    const r = await parsePath(p, 'docx');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(/no main document part/);
  });

  it('an XLSX that is really a DOCX fails with the reason', async () => {
    const r = await parsePath(corpusPath('office', 'mammoth__tables.docx'), 'xlsx');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(/no xl\/workbook\.xml/);
  });

  it('a PPTX without slides list fails with the reason', async () => {
    const r = await parsePath(corpusPath('office', 'mammoth__tables.docx'), 'pptx');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.code).toBe('extraction_failed');
  });

  it('an empty file fails', async () => {
    const p = path.join(dir, 'empty.docx');
    await fs.writeFile(p, '');
    const r = await parsePath(p, 'docx');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(/empty/);
  });

  it('a DOCX renamed .doc is refused with a hint', async () => {
    const r = await parsePath(corpusPath('office', 'mammoth__tables.docx'), 'doc');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(/upload it as docx/);
  });

  it('a minimal synthetic DOCX parses (nested tables and merged cells)', async () => {
    const cell = (t: string, pr = '') => `<w:tc><w:tcPr>${pr}</w:tcPr><w:p><w:r><w:t>${t}</w:t></w:r></w:p></w:tc>`;
    const inner = `<w:tbl><w:tr>${cell('in1')}${cell('in2')}</w:tr></w:tbl>`;
    const body =
      '<w:p><w:pPr><w:outlineLvl w:val="1"/></w:pPr><w:r><w:t>Section</w:t></w:r></w:p>' +
      '<w:tbl><w:tr>' +
      cell('A', '<w:vMerge w:val="restart"/>') +
      cell('B', '<w:gridSpan w:val="2"/>') +
      '</w:tr>' +
      '<w:tr>' +
      cell('', '<w:vMerge/>') +
      `<w:tc><w:p><w:r><w:t>C</w:t></w:r></w:p>${inner}<w:p/></w:tc>` +
      cell('D') +
      '</w:tr></w:tbl>';
    const p = await writeZip('synthetic.docx', { '[Content_Types].xml': CONTENT_TYPES, '_rels/.rels': ROOT_RELS, 'word/document.xml': doc(body) });
    const r = await parsePath(p, 'docx');
    if (!r.ok) throw new Error(r.message);
    const c = r.artifact.content;
    expect(schemaErrors(c)).toEqual([]);
    expect(c.blocks[0]).toMatchObject({ type: 'heading', level: 2, text: 'Section' });
    const t = c.blocks[1];
    expect(t).toMatchObject({ type: 'table', rowCount: 2, columnCount: 3 });
    expect(t.rows[0].map((x: any) => [x.text, x.col, x.rowSpan, x.colSpan])).toEqual([
      ['A', 0, 2, 1],
      ['B', 1, 1, 2],
    ]);
    expect(t.rows[1].map((x: any) => [x.text, x.col])).toEqual([
      ['C\nin1 | in2', 1],
      ['D', 2],
    ]);
    expect(t.rows[1][0].blocks[1]).toMatchObject({ type: 'table', rowCount: 1, columnCount: 2 });
  }, 60_000);
});

describe('unsafe entry paths', () => {
  it('a package with a ../ entry is refused as unsafe', async () => {
    const p = await writeZip('traversal.docx', {
      '[Content_Types].xml': CONTENT_TYPES,
      '_rels/.rels': ROOT_RELS,
      'word/document.xml': doc('<w:p><w:r><w:t>safe</w:t></w:r></w:p>'),
      '../../evil.txt': 'x',
    });
    const r = await parsePath(p, 'docx');
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.code).toBe('extraction_failed');
      expect(r.message).toMatch(/unsafe path.*\.\.\/\.\.\/evil\.txt/);
    }
  }, 60_000);
});

describe('spreadsheet package guards (before exceljs inflates anything)', () => {
  it('an XLSX with a bomb-like sheet part is refused', async () => {
    const p = await writeZip('bomb.xlsx', {
      '[Content_Types].xml': CONTENT_TYPES,
      'xl/workbook.xml':
        '<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheets><sheet name="S" sheetId="1"/></sheets></workbook>',
      'xl/worksheets/sheet1.xml': `<worksheet><sheetData>${' '.repeat(24 * 1024 * 1024)}</sheetData></worksheet>`,
    });
    const r = await parsePath(p, 'xlsx');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(/zip bomb/);
  }, 60_000);
});

describe('LibreOffice converter bounds', () => {
  it('a conversion over its time limit is killed and reported', async () => {
    const { convert, libreOfficeRun } = await import('../../../src/formats/office/libreoffice.js');
    const out = path.join(dir, 'timeout');
    // DOCPARSE_SOFFICE_TIMEOUT_MS=200, as config.ts reads it.
    const lo = libreOfficeRun(
      parserSettings({ office: { convertTimeoutMs: loadConfig({ DOCPARSE_SOFFICE_TIMEOUT_MS: '200' }).parsers.office.convertTimeoutMs } }),
    );
    await expect(convert(corpusPath('office', 'tika__testWORD.doc'), 'pdf', out, lo)).rejects.toThrow(/did not finish converting within/);
    // Nothing was left behind as output.
    const left = (await fs.readdir(out)).filter((f) => f.endsWith('.pdf'));
    expect(left).toEqual([]);
  }, 60_000);

  it('a file LibreOffice cannot open yields no output and a clear error (it exits 0)', async () => {
    const { convert, libreOfficeRun } = await import('../../../src/formats/office/libreoffice.js');
    const p = path.join(dir, 'garbage.pptx');
    await fs.writeFile(p, Buffer.from('PK\u0003\u0004 this is not really a zip at all'));
    await expect(convert(p, 'pdf', path.join(dir, 'garbage'), libreOfficeRun(parserSettings()))).rejects.toThrow(/LibreOffice could not read the document/);
  }, 120_000);
});
