// Word-processing tables as the document holds them (merged cells, header rows, cell text) and
// the page of each block, table, cell and chunk from the rendered layout, on DOCX and ODT
// files written here; completeness for pages and tables, with a skipped table's reason.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import JSZip from 'jszip';
import { parsePath, schemaErrors } from './helpers.js';
import { parseFileWith } from '../../helpers/parse.js';
import { parserSettings } from '../../helpers/parser-settings.js';
import { parseOffice } from '../../../src/formats/office/index.js';
import { libreOfficeAvailable } from '../../../src/formats/office/libreoffice.js';

const HAS_LO = libreOfficeAvailable(parserSettings().engines);

let dir: string;
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'office-tables-pages-'));
});
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

const CONTENT_TYPES =
  '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>';
const ROOT_RELS =
  '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>';

const para = (text: string) => `<w:p><w:r><w:t xml:space="preserve">${text}</w:t></w:r></w:p>`;
const heading = (text: string) => `<w:p><w:pPr><w:outlineLvl w:val="0"/></w:pPr><w:r><w:t>${text}</w:t></w:r></w:p>`;
const pageBreak = '<w:p><w:r><w:br w:type="page"/></w:r></w:p>';
const cell = (content: string, tcPr = '') => `<w:tc><w:tcPr><w:tcW w:w="2000" w:type="dxa"/>${tcPr}</w:tcPr>${content || '<w:p/>'}</w:tc>`;
const row = (cells: string, header = false) => `<w:tr>${header ? '<w:trPr><w:tblHeader/></w:trPr>' : ''}${cells}</w:tr>`;
const table = (rows: string) =>
  `<w:tbl><w:tblPr><w:tblW w:w="6000" w:type="dxa"/></w:tblPr><w:tblGrid>${'<w:gridCol w:w="2000"/>'.repeat(3)}</w:tblGrid>${rows}</w:tbl>`;

async function writeDocx(name: string, body: string): Promise<string> {
  const z = new JSZip();
  z.file('[Content_Types].xml', CONTENT_TYPES);
  z.file('_rels/.rels', ROOT_RELS);
  z.file(
    'word/document.xml',
    `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}<w:sectPr><w:pgSz w:w="11906" w:h="16838"/><w:pgMar w:top="1134" w:right="1134" w:bottom="1134" w:left="1134"/></w:sectPr></w:body></w:document>`,
  );
  const p = path.join(dir, name);
  await fs.writeFile(p, await z.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' }));
  return p;
}

/** The merged table both generated files hold: a spanned header, a vertical merge, a two-paragraph cell. */
const EXPECTED_ROWS = [
  [
    { row: 0, col: 0, rowSpan: 1, colSpan: 2, text: 'Region and year' },
    { row: 0, col: 2, rowSpan: 1, colSpan: 1, text: 'Total' },
  ],
  [
    { row: 1, col: 0, rowSpan: 2, colSpan: 1, text: 'North' },
    { row: 1, col: 1, rowSpan: 1, colSpan: 1, text: '2024' },
    { row: 1, col: 2, rowSpan: 1, colSpan: 1, text: '10\nten' },
  ],
  [
    { row: 2, col: 1, rowSpan: 1, colSpan: 1, text: '2025' },
    { row: 2, col: 2, rowSpan: 1, colSpan: 1, text: '12' },
  ],
];

function cellsOf(t: any) {
  return t.rows.map((r: any[]) => r.map(({ row, col, rowSpan, colSpan, text }) => ({ row, col, rowSpan, colSpan, text })));
}

async function parsedOk(file: string, format: string, options = {}, settings = parserSettings()) {
  const r = await parsePath(file, format, options, settings);
  if (!r.ok) throw new Error(`${r.code}: ${r.message}`);
  expect(schemaErrors(r.artifact.content)).toEqual([]);
  return r.artifact;
}

describe.skipIf(!HAS_LO)('word-processing tables as the document holds them', () => {
  it('DOCX: gridSpan and vMerge become spans, covered cells are not cells, tblHeader rows are counted', async () => {
    const merged = table(
      row(cell(para('Region and year'), '<w:gridSpan w:val="2"/>') + cell(para('Total')), true) +
        row(cell(para('North'), '<w:vMerge w:val="restart"/>') + cell(para('2024')) + cell(para('10') + para('ten'))) +
        row(cell('', '<w:vMerge/>') + cell(para('2025')) + cell(para('12'))),
    );
    // A row marked as header after an ordinary row is not repeated by Word: not a header row.
    const lateHeader = table(row(cell(para('a')) + cell(para('b')) + cell(para('c'))) + row(cell(para('d')) + cell(para('e')) + cell(para('f')), true));
    const a = await parsedOk(await writeDocx('merged.docx', para('Before') + merged + para('Between') + lateHeader), 'docx');
    const tables = a.content.blocks.filter((b: any) => b.type === 'table');
    expect(tables[0]).toMatchObject({ rowCount: 3, columnCount: 3, headerRows: 1 });
    expect(cellsOf(tables[0])).toEqual(EXPECTED_ROWS);
    expect(tables[1].headerRows).toBe(0);
    expect(a.completeness.tables).toMatchObject({ found: 2, emitted: 2, failed: 0, skipped: 0 });
  }, 120_000);

  it('ODT: table-header-rows, number-columns/rows-spanned and covered-table-cell, flat and packaged', async () => {
    const fodt = `<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.text">
<office:body><office:text>
<text:p>Before the table</text:p>
<table:table table:name="T1"><table:table-column table:number-columns-repeated="3"/>
<table:table-header-rows><table:table-row>
<table:table-cell table:number-columns-spanned="2"><text:p>Region and year</text:p></table:table-cell><table:covered-table-cell/><table:table-cell><text:p>Total</text:p></table:table-cell>
</table:table-row></table:table-header-rows>
<table:table-row><table:table-cell table:number-rows-spanned="2"><text:p>North</text:p></table:table-cell><table:table-cell><text:p>2024</text:p></table:table-cell><table:table-cell><text:p>10</text:p><text:p>ten</text:p></table:table-cell></table:table-row>
<table:table-row><table:covered-table-cell/><table:table-cell><text:p>2025</text:p></table:table-cell><table:table-cell><text:p>12</text:p></table:table-cell></table:table-row>
</table:table>
<text:p>After the table</text:p>
</office:text></office:body></office:document>`;
    const flat = path.join(dir, 'merged.fodt');
    await fs.writeFile(flat, fodt);
    // The packaged file: LibreOffice saves the flat one as .odt.
    const flatArtifact = await parsedOk(flat, 'odt');
    const { convert, libreOfficeRun } = await import('../../../src/formats/office/libreoffice.js');
    const odt = await convert(flat, 'odt', path.join(dir, 'odt'), libreOfficeRun(parserSettings()), { inputExt: 'fodt' });
    for (const a of [flatArtifact, await parsedOk(odt.outputPath, 'odt')]) {
      const t = a.content.blocks.find((b: any) => b.type === 'table');
      expect(t).toMatchObject({ rowCount: 3, columnCount: 3, headerRows: 1 });
      expect(cellsOf(t)).toEqual(EXPECTED_ROWS);
      // Covered cells hold no text of their own: the text is once in the document.
      expect(a.content.blocks.map((b: any) => b.text ?? '').filter((s: string) => s === 'North')).toEqual([]);
      expect(t.rows[1][0].provenance).toEqual({ page: 1 });
      expect(a.completeness.tables).toMatchObject({ found: 1, emitted: 1 });
    }
  }, 180_000);
});

describe.skipIf(!HAS_LO)('pages of blocks, tables, cells and chunks from the rendered layout', () => {
  // Page 1: a heading and a paragraph; page 2: blank; page 3: a paragraph and a table of 90
  // rows that runs onto page 4 and further; a paragraph after it.
  const longTable = table(
    row(cell(para('Item')) + cell(para('Amount')) + cell(para('Note')), true) +
      Array.from({ length: 90 }, (_, i) => row(cell(para(`Row ${i + 1}`)) + cell(para(String((i + 1) * 7))) + cell(para(i % 3 ? 'ok' : '')))).join(''),
  );
  const body =
    heading('Quarterly statement') +
    para('The first page holds this paragraph about revenue.') +
    pageBreak +
    pageBreak +
    heading('Costs') +
    para('The third page starts with this paragraph about costs.') +
    longTable +
    para('Closing remarks after the long table.');

  it('each block, table and cell carries the page LibreOffice laid it out on; blank pages are counted empty', async () => {
    const a = await parsedOk(await writeDocx('pages.docx', body), 'docx', { chunkHints: true });
    const blocks = a.content.blocks;
    const byText = (s: string) => blocks.find((b: any) => b.text === s);
    expect(byText('Quarterly statement').provenance).toEqual({ page: 1 });
    expect(byText('Costs').provenance).toEqual({ page: 3 });
    expect(byText('The first page holds this paragraph about revenue.').provenance).toEqual({ page: 1 });
    expect(byText('The third page starts with this paragraph about costs.').provenance).toEqual({ page: 3 });
    const t = blocks.find((b: any) => b.type === 'table');
    expect(t.provenance).toEqual({ page: 3 });
    expect(t.headerRows).toBe(1);
    const pages = t.rows.flat().map((c: any) => c.provenance?.page);
    // Empty cells have no text to find: no page, rather than a guess.
    expect(
      t.rows
        .flat()
        .filter((c: any) => !c.text)
        .every((c: any) => c.provenance === undefined),
    ).toBe(true);
    const known = pages.filter((p: number | undefined) => p !== undefined);
    expect(known).toEqual([...known].sort((x, y) => x - y));
    expect(known[0]).toBe(3);
    expect(known.at(-1)).toBeGreaterThanOrEqual(4);
    expect(byText('Closing remarks after the long table.').provenance.page).toBe(known.at(-1));
    expect(a.documentUnits).toBe(known.at(-1));
    expect(a.metadata.blockPages).toMatchObject({ source: 'rendered', notLocated: 0 });
    expect(a.completeness.pages).toEqual({ found: a.documentUnits, emitted: a.documentUnits, empty: 1, failed: 0, skipped: 0, gaps: [] });
    expect(a.completeness.complete).toBe(true);
    // Chunks: their pages and provenance from their blocks.
    const first = a.chunks.find((c: any) => c.text.includes('revenue'));
    expect(first.pages).toEqual([1]);
    expect(first.provenance).toEqual([{ page: 1 }]);
    const costs = a.chunks.find((c: any) => c.text.includes('costs'));
    expect(costs.pages).toEqual([3, known.at(-1)]);
    expect(costs.provenance).toEqual([{ page: 3 }, { page: known.at(-1) }]);
  }, 120_000);

  it('an e-mail attachment: every provenance starts from where the document sits in the upload', async () => {
    const within = { message: 2, attachment: [1], file: 'pages.docx' };
    const file = await writeDocx('within.docx', body);
    const r = await parseFileWith((input, w) => parseOffice({ ...input, within }, w), file, 'docx', { chunkHints: true });
    if (!r.ok) throw new Error(r.message);
    const b = r.artifact.content.blocks;
    expect(b[0].provenance).toEqual({ ...within, page: 1 });
    const t = b.find((x: any) => x.type === 'table');
    expect(t.rows[0][0].provenance).toEqual({ ...within, page: 3 });
    expect(r.artifact.chunks[0].provenance).toEqual([{ ...within, page: 1 }]);
  }, 120_000);

  it('rendering turned off: no page is guessed, and the artifact says why', async () => {
    const a = await parsedOk(await writeDocx('off.docx', body), 'docx', {}, parserSettings({ office: { render: 'off' } }));
    const withPage = a.content.blocks.filter((b: any) => b.provenance?.page !== undefined);
    expect(withPage).toEqual([]);
    expect(a.content.blocks[0].provenance).toBeUndefined();
    expect(a.metadata.blockPages).toEqual({ source: null, reason: 'the layout was not rendered: rendering is turned off (DOCPARSE_OFFICE_RENDER=0)' });
    expect(a.completeness.pages).toMatchObject({ found: a.documentUnits, emitted: a.documentUnits, empty: 0 });
  }, 120_000);
});

describe('tables too deeply nested are skipped with a reason', () => {
  it('two tables inside 70 levels of custom XML, one table outside', async () => {
    const small = table(row(cell(para('x')) + cell(para('y'))));
    const deep = '<w:customXml w:element="e">'.repeat(70) + small + small + '</w:customXml>'.repeat(70);
    const a = await parsedOk(await writeDocx('deep.docx', para('Top') + small + deep), 'docx', {}, parserSettings({ office: { render: 'off' } }));
    expect(a.content.blocks.filter((b: any) => b.type === 'table')).toHaveLength(1);
    const t = a.completeness.tables;
    expect(t).toMatchObject({ found: 3, emitted: 1, skipped: 2, failed: 0 });
    expect(t.gaps[0]).toEqual({ outcome: 'skipped', reason: 'the table is nested more than 64 levels deep; its content is not read', provenance: {} });
    expect(a.completeness.complete).toBe(false);
  }, 60_000);
});
