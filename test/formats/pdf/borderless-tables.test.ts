// Borderless tables (Advanced): the LibreOffice-printed test set in fixtures/tables (built by
// its generate.mjs; truth beside each PDF), scored cell by cell against the truth with
// bench/pdf/table-truth.mjs. Floors are the scores reached: they may only rise.
import { describe, expect, it } from 'vitest';
import path from 'node:path';
// @ts-expect-error plain JS bench module
import { GENERATED_DIR, generatedSet, truthAccuracy } from '../../../bench/pdf/table-truth.mjs';

const FLOOR: Record<string, number> = {
  'beside-text-3col.pdf': 1,
  'quarters-5col.pdf': 1,
  'schedule-7col-2pages.pdf': 1,
  'schedule-7col-html-2pages.pdf': 1,
  'span-header-6col.pdf': 1,
  'two-tables.pdf': 1,
  'words-3col.pdf': 1,
  'wrapped-4col.pdf': 1,
};

describe('Advanced: borderless tables printed by LibreOffice', () => {
  it('cell accuracy against the truth: every file at or above its floor (≥ 0.9 overall)', async () => {
    let cells = 0,
      correct = 0;
    const pairs: [string, string][] = generatedSet();
    expect(pairs.map(([p]) => path.basename(p)).sort()).toEqual(Object.keys(FLOOR).sort());
    for (const [pdf, truth] of pairs) {
      const r = await truthAccuracy(pdf, truth);
      expect(r.accuracy, r.file).toBeGreaterThanOrEqual(FLOOR[r.file]);
      cells += r.cells;
      correct += r.correct;
    }
    expect(correct / cells).toBeGreaterThanOrEqual(0.9);
  });

  it('a table across a page break: linked, its repeated header dropped, numbers as printed, a box per cell', async () => {
    const r = await truthAccuracy(path.join(GENERATED_DIR, 'schedule-7col-2pages.pdf'), path.join(GENERATED_DIR, 'schedule-7col-2pages.truth.json'));
    const [p1, p2] = r.artifact.content.pages.map((p: any) => p.tables);
    expect(p1).toHaveLength(1);
    expect(p2).toHaveLength(1);
    expect(p1[0]).toMatchObject({ source: 'alignment', ruled: false, columns: 7, continuesOn: p2[0].id });
    expect(p2[0]).toMatchObject({ columns: 7, continuedFrom: p1[0].id });
    const cell = (t: any, row: number, col: number) => t.cells.find((c: any) => c.row === row && c.col === col)?.text;
    expect([0, 1, 2, 3, 4, 5, 6].map((c) => cell(p1[0], 0, c))).toEqual(['ID', 'Date', 'Customer', 'City', 'Units', 'Amount', 'Balance']);
    expect(p1[0].cells.filter((c: any) => c.row === 0).every((c: any) => c.header)).toBe(true);
    // Page 2 starts with the next data row, not the repeated "ID | Date | …" header.
    expect(cell(p2[0], 0, 0)).toBe(String(1001 + p1[0].rows - 1));
    expect(p1[0].rows - 1 + p2[0].rows).toBe(64);
    // Numbers as printed: thousands separators and decimals kept.
    const truth = (await import(path.join(GENERATED_DIR, 'schedule-7col-2pages.truth.json'), { with: { type: 'json' } })).default;
    expect(cell(p1[0], 2, 5)).toBe(truth.tables[0].rows[2][5]);
    expect(cell(p1[0], 2, 6)).toBe(truth.tables[0].rows[2][6]);
    for (const t of [p1[0], p2[0]]) {
      expect(t.cells).toHaveLength(t.rows * t.columns);
      for (const c of t.cells) {
        const [x0, y0, x1, y1] = c.bbox;
        expect(x0 < x1 && y0 < y1, `${t.id} r${c.row} c${c.col}`).toBe(true);
        expect(x0 >= t.bbox[0] - 0.01 && x1 <= t.bbox[2] + 0.01 && y0 >= t.bbox[1] - 0.01 && y1 <= t.bbox[3] + 0.01).toBe(true);
      }
    }
  });

  it('a table beside a column of prose: the prose stays out of it', async () => {
    const r = await truthAccuracy(path.join(GENERATED_DIR, 'beside-text-3col.pdf'), path.join(GENERATED_DIR, 'beside-text-3col.truth.json'));
    const [t] = r.artifact.content.pages[0].tables;
    expect(t).toMatchObject({ columns: 4, rows: 7 });
    expect(t.cells.every((c: any) => c.text.split(' ').length <= 2)).toBe(true);
  });

  it('a header over two columns, empty cells and wrapped cell text', async () => {
    const span = await truthAccuracy(path.join(GENERATED_DIR, 'span-header-6col.pdf'), path.join(GENERATED_DIR, 'span-header-6col.truth.json'));
    const t = span.artifact.content.pages[0].tables[0];
    expect(t.columns).toBe(6);
    // "2024" / "2025" centred over two columns each: each lands in the first of its two columns
    // (narrower than the gutter, it crosses none, so it is not marked colSpan 2).
    const top = t.cells.filter((c: any) => c.row === 0 && c.text);
    expect(top.map((c: any) => [c.col, c.text])).toEqual([
      [1, '2024'],
      [3, '2025'],
    ]);
    const wrapped = await truthAccuracy(path.join(GENERATED_DIR, 'wrapped-4col.pdf'), path.join(GENERATED_DIR, 'wrapped-4col.truth.json'));
    const w = wrapped.artifact.content.pages[0].tables[0];
    expect(w.cells.map((c: any) => c.text)).toContain('Replacement filter for the ventilation unit, fitted during the spring service');
  });
});
