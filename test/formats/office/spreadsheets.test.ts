// XLSX/XLSM (direct), XLS/XLSB/ODS/Strict XLSX (through LibreOffice): one unit per sheet,
// typed cells, merged ranges, hidden sheets. The MANIFEST's rendered page counts are printed
// pages, which spreadsheets are not billed by; bench/results/office.md reports them beside
// the sheet counts.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manifest, parseFail, parseOk, parsePath, schemaErrors } from './helpers.js';

const sheetNames = (a: any) => a.content.sheets.map((s: any) => s.name);
const cell = (a: any, sheet: number, ref: string) => a.content.sheets[sheet].rows.flatMap((r: any) => r.cells).find((c: any) => c.ref === ref);

describe.concurrent('XLSX read directly', () => {
  const direct = manifest.filter((m) => /\.(xlsx|xlsm)$/.test(m.file) && /^\d+$/.test(m.pages_rendered) && !m.file.includes('strict')).map((m) => m.file);
  it.each(direct)('%s: one unit per sheet, schema-valid, no converter', async (file) => {
    const a = await parseOk(file);
    expect(a.documentUnits).toBe(a.content.sheets.length);
    expect(a.metadata.pageCount).toEqual({ source: 'sheets', sheets: a.content.sheets.length });
    expect(a.metadata.converter).toBeUndefined();
  });

  it('sheet names, used range, formulas with cached values (testEXCEL.xlsx)', async () => {
    const a = await parseOk('tika__testEXCEL.xlsx');
    expect(sheetNames(a)).toEqual(['Feuil1', 'Feuil2', 'Feuil3']);
    expect(a.content.sheets[0].usedRange).toBe('A1:C22');
    expect(a.content.sheets[1].usedRange).toBeNull();
    expect(cell(a, 0, 'A1')).toMatchObject({ type: 'string', value: 'Sample Excel Worksheet - Numbers and their Squares' });
    expect(cell(a, 0, 'B6')).toMatchObject({ type: 'number', value: 1 });
    expect(cell(a, 0, 'C7')).toMatchObject({ type: 'formula', formula: '+B7*B7', value: 4, resultType: 'number' });
  });

  it('dates as ISO 8601 with their number format (testEXCEL_dateFormats.xlsx)', async () => {
    const a = await parseOk('tika__testEXCEL_dateFormats.xlsx');
    expect(cell(a, 0, 'A2')).toMatchObject({ type: 'date', value: '2018-09-20', numFmt: 'mm-dd-yy' });
    expect(cell(a, 0, 'A3')).toMatchObject({ type: 'date', value: '1996-08-10' });
  });

  it('number formats, big numbers, hyperlinks', async () => {
    const f = await parseOk('tika__testEXCEL-formats.xlsx');
    expect(cell(f, 0, 'D4')).toMatchObject({ type: 'number', value: 1599.99, numFmt: '#,##0.00' });
    expect(cell(f, 0, 'D7')).toMatchObject({ value: 0.025, numFmt: '0%' });
    const b = await parseOk('tika__testEXCEL_big_numbers.xlsx');
    expect(cell(b, 0, 'A2')).toMatchObject({ type: 'number', value: 1234567890123450 });
    expect(cell(b, 0, 'B2')).toMatchObject({ type: 'formula', formula: 'A2+1', value: 1234567890123451 });
    const h = await parseOk('tika__testEXCEL_hyperlinks.xlsx');
    expect(cell(h, 0, 'B1')).toMatchObject({ value: 'http_tika_link', hyperlink: 'http://tika.apache.org/' });
  });

  it('merged ranges in a real workbook (officeparser test.xlsx)', async () => {
    const a = await parseOk('officeparser__test.xlsx');
    expect(sheetNames(a)).toEqual(['Sheet1', 'Sheet2', 'Sheet3', 'Sheet4', 'Sheet5', 'Sheet6', 'Sheet7', 'Sheet8', 'Chart Sheet']);
    expect(a.documentUnits).toBe(9);
    expect(a.content.sheets[4].mergedRanges.length).toBe(13);
    expect(a.content.sheets[4].mergedRanges.every((r: string) => /^[A-Z]+\d+:[A-Z]+\d+$/.test(r))).toBe(true);
  });

  it('macro-enabled XLSM: parsed, macros flagged and not run', async () => {
    const a = await parseOk('tika__testEXCEL_macro.xlsm');
    expect(a.metadata.hasMacros).toBe(true);
    expect(a.metadata.macroEnabled).toBe(true);
    expect(cell(a, 0, 'A2')?.value).toBe('However, a macro is about to be created');
  });

  it('chunkHints: one heading per sheet', async () => {
    const a = await parseOk('tika__testEXCEL.xlsx', { chunkHints: true });
    expect(a.chunks[0].headingPath).toEqual(['Feuil1']);
    expect(a.chunks[0].text).toContain('Sample Excel Worksheet');
    expect(a.chunks[0].pages).toEqual([1]);
  });
});

describe.concurrent('spreadsheets through LibreOffice', () => {
  it('Strict OOXML XLSX', async () => {
    const a = await parseOk('tika__testEXCEL.strict.xlsx');
    expect(a.metadata.sourceVariant).toBe('strict');
    expect(sheetNames(a)).toEqual(['First Sheet', 'Sheet Number 2', 'Sheet3']);
    expect(cell(a, 0, 'A1')?.value).toBe('Test spreadsheet');
  }, 120_000);

  it('XLS (BIFF8) keeps formulas and values like its XLSX twin', async () => {
    const a = await parseOk('tika__testEXCEL.xls');
    expect(a.documentUnits).toBe(3);
    expect(cell(a, 0, 'C7')).toMatchObject({ type: 'formula', value: 4 });
    expect(a.content.properties.application).toBeUndefined();
  }, 120_000);

  it('XLS dates and a real-world multi-sheet XLS', async () => {
    const d = await parseOk('tika__testEXCEL_dateFormats.xls');
    expect(cell(d, 0, 'A2')).toMatchObject({ type: 'date', value: '2018-09-20' });
    const r = await parseOk('pstextractor__RedRockA.xls');
    expect(sheetNames(r)).toEqual(['Oct 26, 2001', 'Oct 1, 2001', 'Oneok at 1700', 'Oneok at 2500']);
    expect(r.documentUnits).toBe(4);
  }, 120_000);

  it('bare BIFF4 worksheet (not an OLE file)', async () => {
    const a = await parseOk('tika__testEXCEL_4.xls');
    expect(a.metadata.sourceVariant).toBe('biff2-4');
    expect(a.documentUnits).toBe(1);
    expect(cell(a, 0, 'A1')?.value).toMatch(/^Table 10 -- Examination Coverage/);
  }, 120_000);

  it('ODS', async () => {
    const a = await parseOk('tika__LibreOfficeCalc_ods_1.3.ods');
    expect(a.documentUnits).toBe(1);
    expect(a.content.sheets[0].rows[0].cells.map((c: any) => c.value)).toEqual(['This', 'is', 'an', 'example', 'spreadsheet']);
    const m = await parseOk('tika__testODSMacro.ods');
    expect(m.metadata.hasMacros).toBe(true);
  }, 120_000);
});

describe.concurrent('spreadsheet failures', () => {
  it('password-protected XLSX and XLS → encrypted_document', async () => {
    expect((await parseFail('tika__testEXCEL_protected_passtika.xlsx')).code).toBe('encrypted_document');
    expect((await parseFail('tika__testEXCEL_protected_passtika.xls')).code).toBe('encrypted_document');
  });
});

describe('synthetic workbook: hidden sheets, merges, every cell type', () => {
  let dir: string;
  let file: string;
  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'office-xlsx-'));
    file = path.join(dir, 'types.xlsx');
    const wb = new ExcelJS.Workbook();
    const s1 = wb.addWorksheet('Data');
    s1.getCell('A1').value = 'name';
    s1.getCell('B1').value = 42.5;
    s1.getCell('C1').value = true;
    s1.getCell('D1').value = new Date(Date.UTC(2024, 1, 29));
    s1.getCell('D1').numFmt = 'yyyy-mm-dd';
    s1.getCell('E1').value = { formula: 'B1*2', result: 85 };
    s1.getCell('F1').value = { error: '#DIV/0!' };
    s1.getCell('G1').value = { richText: [{ text: 'rich ' }, { text: 'text', font: { bold: true } }] };
    s1.getCell('H1').value = { formula: 'A1&"!"', result: 'name!' };
    s1.mergeCells('A3:C4');
    s1.getCell('A3').value = 'merged';
    const s2 = wb.addWorksheet('Secret', { state: 'hidden' });
    s2.getCell('A1').value = 'hidden';
    wb.addWorksheet('VerySecret', { state: 'veryHidden' });
    await wb.xlsx.writeFile(file);
  });
  afterAll(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('types, merges and hidden flags come out as written', async () => {
    const r = await parsePath(file, 'xlsx');
    if (!r.ok) throw new Error(r.message);
    const a = r.artifact;
    expect(schemaErrors(a.content)).toEqual([]);
    expect(a.documentUnits).toBe(3);
    expect(a.content.sheets.map((s: any) => [s.name, s.state, s.hidden])).toEqual([
      ['Data', 'visible', false],
      ['Secret', 'hidden', true],
      ['VerySecret', 'veryHidden', true],
    ]);
    expect(a.metadata.hiddenSheets).toEqual(['Secret', 'VerySecret']);
    const cells = Object.fromEntries(a.content.sheets[0].rows[0].cells.map((c: any) => [c.ref, c]));
    expect(cells.A1).toMatchObject({ type: 'string', value: 'name' });
    expect(cells.B1).toMatchObject({ type: 'number', value: 42.5 });
    expect(cells.C1).toMatchObject({ type: 'boolean', value: true });
    expect(cells.D1).toMatchObject({ type: 'date', value: '2024-02-29' });
    expect(cells.E1).toMatchObject({ type: 'formula', formula: 'B1*2', value: 85, resultType: 'number' });
    expect(cells.F1).toMatchObject({ type: 'error', value: '#DIV/0!' });
    expect(cells.G1).toMatchObject({ type: 'string', value: 'rich text' });
    expect(cells.H1).toMatchObject({ type: 'formula', value: 'name!', resultType: 'string' });
    expect(a.content.sheets[0].mergedRanges).toEqual(['A3:C4']);
    expect(a.content.sheets[0].usedRange).toBe('A1:H3');
  });
});
