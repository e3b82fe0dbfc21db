// Spreadsheets and presentations written by the test (sheet-slide-files.ts): merged cells and
// ODS spans come out as spans on their top-left cell with the covered cells left out, slide
// tables keep gridSpan/rowSpan and their header row (PPTX firstRow, ODP use-first-row-styles),
// every sheet, slide, table and chunk says where it is, and completeness counts what failed
// with why.
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePath, schemaErrors } from './helpers.js';
import { odp, ods, pptx, xlsx } from './sheet-slide-files.js';
import { libreOfficeAvailable } from '../../../src/formats/office/libreoffice.js';
import { parserSettings } from '../../helpers/parser-settings.js';
import { parseOffice } from '../../../src/formats/office/index.js';
import { JsonWriter } from '../../../src/formats/kit/json-writer.js';
import type { Provenance } from '../../../src/formats/kit/provenance.js';

const hasLibreOffice = libreOfficeAvailable(parserSettings().engines);

let dir: string;
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'office-sheets-slides-'));
});
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

async function parseBytes(name: string, bytes: Buffer, format: string, options = {}): Promise<Record<string, any>> {
  const file = path.join(dir, name);
  await fs.writeFile(file, bytes);
  const r = await parsePath(file, format, options);
  if (!r.ok) throw new Error(`${name}: ${r.code}: ${r.message}`);
  expect(schemaErrors(r.artifact.content)).toEqual([]);
  return r.artifact;
}

const cellsOf = (sheet: any) => Object.fromEntries(sheet.rows.flatMap((r: any) => r.cells).map((c: any) => [c.ref, c]));
const tally = (found: number, emitted: number, empty: number, failed = 0, skipped = 0) => ({ found, emitted, empty, failed, skipped });

describe('spreadsheets: merged cells, Excel tables, provenance, completeness', () => {
  const workbook = () =>
    xlsx([
      {
        name: 'Merged',
        cells: { A1: 'Region', B1: 'covered text', C1: 'Q1', A2: 'covered below', C2: 'Q2', A3: 'North', B3: 'x', C3: 5 },
        merges: ['A1:B2'],
      },
      { name: 'Sales', cells: { A1: 'Item', B1: 'Qty', A2: 'a', B2: 1, A3: 'b', B3: 2 }, table: { name: 'Sales', ref: 'A1:B3', columns: ['Item', 'Qty'] } },
      { name: 'Blank', cells: {} },
      { name: 'Hidden', state: 'hidden', cells: { B2: 'secret' } },
    ]);

  it('XLSX: a merged range is a span on its top-left cell; the cells it covers are not repeated, even when they hold text', async () => {
    const a = await parseBytes('merged.xlsx', workbook(), 'xlsx');
    const merged = a.content.sheets[0];
    const cells = cellsOf(merged);
    expect(cells.A1).toMatchObject({ value: 'Region', rowSpan: 2, colSpan: 2 });
    expect(Object.keys(cells).sort()).toEqual(['A1', 'A3', 'B3', 'C1', 'C2', 'C3']);
    expect(cells.C1.rowSpan).toBeUndefined();
    expect(JSON.stringify(a.content)).not.toMatch(/covered/);
    expect(merged.mergedRanges).toEqual(['A1:B2']);
  });

  it('XLSX: sheets and tables carry sheet + range; empty and hidden sheets are emitted and counted', async () => {
    const a = await parseBytes('merged.xlsx', workbook(), 'xlsx');
    expect(a.content.sheets.map((s: any) => s.provenance)).toEqual([
      { sheet: 'Merged', range: 'A1:C3' },
      { sheet: 'Sales', range: 'A1:B3' },
      { sheet: 'Blank' },
      { sheet: 'Hidden', range: 'B2:B2' },
    ]);
    expect(a.content.sheets[1].tables).toEqual([
      { name: 'Sales', range: 'A1:B3', headerRow: true, totalsRow: false, columns: ['Item', 'Qty'], provenance: { sheet: 'Sales', range: 'A1:B3' } },
    ]);
    expect(a.content.sheets[3]).toMatchObject({ state: 'hidden', cellCount: 1 });
    expect(a.completeness).toEqual({ complete: true, sheets: { ...tally(4, 4, 1), gaps: [] }, tables: { ...tally(1, 1, 0), gaps: [] } });
  });

  it('XLSX chunks: each chunk has the range of the rows it holds', async () => {
    const cells: Record<string, string | number> = {};
    for (let r = 2; r <= 401; r++) {
      cells[`A${r}`] = `row ${r} ${'x'.repeat(30)}`;
      cells[`C${r}`] = r;
    }
    const a = await parseBytes('long.xlsx', xlsx([{ name: 'Long', cells }]), 'xlsx', { chunkHints: true });
    expect(a.chunks.length).toBeGreaterThan(3);
    const seen: number[] = [];
    for (const c of a.chunks) {
      const rows = [...c.text.matchAll(/^row (\d+) /gm)].map((m: RegExpMatchArray) => Number(m[1]));
      expect(rows.length).toBeGreaterThan(0);
      expect(c.provenance).toEqual([{ sheet: 'Long', range: `A${Math.min(...rows)}:C${Math.max(...rows)}` }]);
      seen.push(...rows);
    }
    expect(seen).toEqual(Array.from({ length: 400 }, (_, i) => i + 2));
  });

  it.skipIf(!hasLibreOffice)(
    'ODS: number-columns-spanned / number-rows-spanned become a span; covered-table-cell text is not repeated',
    async () => {
      const bytes = ods([
        {
          name: 'Spans',
          rows: [
            [{ text: 'Region', span: [2, 2] }, { covered: true, text: 'hidden-under' }, { text: 'Q1' }],
            [{ covered: true }, { covered: true }, { text: 'Q2' }],
            [{ text: 'North' }, { text: 'x' }, { text: 'five' }],
          ],
        },
        { name: 'Other', rows: [[{ text: 'one' }]] },
      ]);
      const a = await parseBytes('spans.ods', bytes, 'ods');
      const cells = cellsOf(a.content.sheets[0]);
      expect(cells.A1).toMatchObject({ value: 'Region', rowSpan: 2, colSpan: 2 });
      expect(Object.keys(cells).sort()).toEqual(['A1', 'A3', 'B3', 'C1', 'C2', 'C3']);
      expect(JSON.stringify(a.content)).not.toMatch(/hidden-under/);
      expect(a.content.sheets.map((s: any) => s.provenance)).toEqual([
        { sheet: 'Spans', range: 'A1:C3' },
        { sheet: 'Other', range: 'A1:A1' },
      ]);
      expect(a.completeness.sheets).toMatchObject(tally(2, 2, 0));
    },
    120_000,
  );
});

describe('presentations: table spans, header rows, provenance, completeness', () => {
  const spanTable = {
    firstRow: true,
    rows: [
      [{ text: 'Wide head', gridSpan: 2 }, { hMerge: true }, { text: 'C' }],
      [{ text: 'Tall', rowSpan: 2 }, { text: 'b2' }, { text: 'c2' }],
      [{ vMerge: true }, { text: 'b3' }, { text: 'c3' }],
    ],
  };
  const deck = () =>
    pptx([
      { title: 'Spans', table: spanTable },
      { damaged: true },
      { missing: true },
      { title: 'Hidden one', body: 'secret', hidden: true },
      {},
      { table: { firstRow: false, rows: [[{ text: 'a' }, { text: 'b' }]] } },
    ]);

  it('PPTX: gridSpan/rowSpan on the cell that starts the span, hMerge/vMerge cells left out, firstRow as headerRows', async () => {
    const a = await parseBytes('spans.pptx', deck(), 'pptx');
    const t = a.content.slides[0].tables[0];
    expect(t).toMatchObject({ rowCount: 3, columnCount: 3, headerRows: 1, provenance: { slide: 1 } });
    expect(t.rows).toEqual([
      [
        { row: 0, col: 0, rowSpan: 1, colSpan: 2, text: 'Wide head' },
        { row: 0, col: 2, rowSpan: 1, colSpan: 1, text: 'C' },
      ],
      [
        { row: 1, col: 0, rowSpan: 2, colSpan: 1, text: 'Tall' },
        { row: 1, col: 1, rowSpan: 1, colSpan: 1, text: 'b2' },
        { row: 1, col: 2, rowSpan: 1, colSpan: 1, text: 'c2' },
      ],
      [
        { row: 2, col: 1, rowSpan: 1, colSpan: 1, text: 'b3' },
        { row: 2, col: 2, rowSpan: 1, colSpan: 1, text: 'c3' },
      ],
    ]);
    expect(a.content.slides[3].tables[0].headerRows).toBe(0);
  });

  it('PPTX: a damaged slide and a missing slide fail alone, with why; hidden and empty slides are emitted and counted', async () => {
    const a = await parseBytes('spans.pptx', deck(), 'pptx', { chunkHints: true });
    expect(a.content.slides.map((s: any) => [s.number, s.hidden, s.provenance])).toEqual([
      [1, false, { slide: 1 }],
      [4, true, { slide: 4 }],
      [5, false, { slide: 5 }],
      [6, false, { slide: 6 }],
    ]);
    expect(a.content.slides[1].textBlocks.map((b: any) => [b.text, b.provenance])).toEqual([
      ['Hidden one', { slide: 4 }],
      ['secret', { slide: 4 }],
    ]);
    const { slides, tables, complete } = a.completeness;
    expect(complete).toBe(false);
    expect(slides).toMatchObject(tally(6, 4, 1, 2, 0));
    expect(slides.gaps).toEqual([
      {
        outcome: 'failed',
        reason: 'slide 2 is unreadable: malformed XML in "ppt/slides/slide2.xml": the part is damaged or truncated',
        provenance: { slide: 2 },
      },
      { outcome: 'failed', reason: 'slide 3 is listed by the presentation but its part is not in the package', provenance: { slide: 3 } },
    ]);
    expect(tables).toMatchObject(tally(2, 2, 0));
    expect(a.warnings).toEqual(expect.arrayContaining(slides.gaps.map((g: any) => g.reason)));
    expect(a.documentUnits).toBe(4);
    // Chunks: one place per slide they hold.
    const hidden = a.chunks.find((c: any) => c.text.includes('secret'));
    expect(hidden.provenance).toEqual([{ slide: 4 }]);
    expect(a.chunks.flatMap((c: any) => c.provenance.map((p: any) => p.slide))).toEqual(expect.arrayContaining([1, 4, 6]));
  });

  it('PPTX: a presentation none of whose slides can be read fails', async () => {
    const file = path.join(dir, 'broken.pptx');
    await fs.writeFile(file, pptx([{ damaged: true }, { missing: true }]));
    const r = await parsePath(file, 'pptx');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(/no slide of the presentation could be read/);
  });

  it.skipIf(!hasLibreOffice)(
    'ODP: spans and covered cells become gridSpan/rowSpan; use-first-row-styles becomes headerRows',
    async () => {
      const bytes = odp([
        {
          firstRow: true,
          rows: [
            [{ text: 'Wide head', span: [2, 1] }, { covered: true }, { text: 'C' }],
            [{ text: 'Tall', span: [1, 2] }, { text: 'b2' }, { text: 'c2' }],
            [{ covered: true }, { text: 'b3' }, { text: 'c3' }],
          ],
        },
        null,
        { firstRow: false, rows: [[{ text: 'a' }, { text: 'b' }]] },
      ]);
      const a = await parseBytes('spans.odp', bytes, 'odp');
      const [t] = a.content.slides[0].tables;
      expect(t.headerRows).toBe(1);
      expect(t.rows.map((r: any[]) => r.map((c) => [c.row, c.col, c.rowSpan, c.colSpan, c.text]))).toEqual([
        [
          [0, 0, 1, 2, 'Wide head'],
          [0, 2, 1, 1, 'C'],
        ],
        [
          [1, 0, 2, 1, 'Tall'],
          [1, 1, 1, 1, 'b2'],
          [1, 2, 1, 1, 'c2'],
        ],
        [
          [2, 1, 1, 1, 'b3'],
          [2, 2, 1, 1, 'c3'],
        ],
      ]);
      expect(a.content.slides[2].tables[0].headerRows).toBe(0);
      expect(a.content.slides.map((s: any) => s.provenance)).toEqual([{ slide: 1 }, { slide: 2 }, { slide: 3 }]);
      expect(a.completeness.slides).toMatchObject(tally(3, 3, 1));
      expect(a.completeness.tables).toMatchObject(tally(2, 2, 0));
    },
    120_000,
  );
});

describe('a spreadsheet or presentation inside an upload: every provenance starts from `within`', () => {
  const within: Provenance = { message: 1, attachment: [2], file: 'inner' };

  /** Runs the parser as the e-mail family runs it on an attachment: with `within` set. */
  async function parseWithin(name: string, bytes: Buffer, format: string): Promise<{ content: any; outcome: any }> {
    const file = path.join(dir, name);
    await fs.writeFile(file, bytes);
    const outPath = path.join(dir, `${name}.json`);
    const out = createWriteStream(outPath);
    await once(out, 'open');
    const w = new JsonWriter(out);
    const outcome = await parseOffice(
      { filePath: file, fileName: name, format, options: { chunkHints: true }, settings: parserSettings(), tempDir: dir, progress: () => {}, within },
      w,
    );
    await w.finish();
    out.end();
    await once(out, 'finish');
    return { content: JSON.parse(await fs.readFile(outPath, 'utf8')), outcome };
  }

  it('XLSX: sheets, tables and chunks', async () => {
    const bytes = xlsx([
      { name: 'Sales', cells: { A1: 'Item', B1: 'Qty', A2: 'a', B2: 1 }, table: { name: 'T', ref: 'A1:B2', columns: ['Item', 'Qty'] } },
      { name: 'Blank', cells: {} },
    ]);
    const { content, outcome } = await parseWithin('inner.xlsx', bytes, 'xlsx');
    expect(content.sheets.map((s: any) => s.provenance)).toEqual([
      { ...within, sheet: 'Sales', range: 'A1:B2' },
      { ...within, sheet: 'Blank' },
    ]);
    expect(content.sheets[0].tables[0].provenance).toEqual({ ...within, sheet: 'Sales', range: 'A1:B2' });
    expect(outcome.chunks.map((c: any) => c.provenance)).toEqual([[{ ...within, sheet: 'Sales', range: 'A1:B2' }], [{ ...within, sheet: 'Blank' }]]);
  });

  it('PPTX: slides, text blocks, tables, chunks and the gaps of completeness', async () => {
    const bytes = pptx([{ title: 'One', table: { firstRow: false, rows: [[{ text: 'a' }]] } }, { missing: true }]);
    const { content, outcome } = await parseWithin('inner.pptx', bytes, 'pptx');
    const [s] = content.slides;
    expect([s.provenance, s.textBlocks[0].provenance, s.tables[0].provenance]).toEqual([
      { ...within, slide: 1 },
      { ...within, slide: 1 },
      { ...within, slide: 1 },
    ]);
    expect(outcome.chunks.flatMap((c: any) => c.provenance)).toEqual([{ ...within, slide: 1 }]);
    expect(outcome.completeness.slides.gaps.map((g: any) => g.provenance)).toEqual([{ ...within, slide: 2 }]);
  });
});
