// Completeness and provenance for every spreadsheet and presentation of the corpus (XLSX,
// XLSM, XLSB, XLS, ODS, PPTX, PPTM, PPT, ODP): the block's counts add up, and each count is
// what the artifact's content holds. Files the MANIFEST expects to fail (encrypted) are
// covered by spreadsheets.test.ts and presentations.test.ts. Skips without the corpus.
import { describe, expect, it } from 'vitest';
import { manifest, parseOk } from './helpers.js';
import { CORPUS_AVAILABLE } from '../../helpers/corpus-dir.mjs';
import { expectCompletenessAddsUp } from '../../helpers/completeness.js';

const parsed = (re: RegExp) => manifest.filter((m) => re.test(m.file) && /^\d+$/.test(m.pages_rendered)).map((m) => m.file);
const spreadsheets = parsed(/\.(xlsx|xlsm|xlsb|xls|ods|fods)$/);
const presentations = parsed(/\.(pptx|pptm|ppt|odp|fodp)$/);

/** A1 reference → [column, row]. */
function a1(ref: string): [number, number] {
  const m = /^([A-Z]+)(\d+)$/.exec(ref)!;
  return [[...m[1]].reduce((n, ch) => n * 26 + ch.charCodeAt(0) - 64, 0), Number(m[2])];
}

const slideHasText = (s: any) =>
  s.textBlocks.length > 0 || s.notes !== null || s.tables.some((t: any) => t.rows.some((r: any[]) => r.some((c) => c.text.trim())));

describe.skipIf(!CORPUS_AVAILABLE).concurrent('corpus spreadsheets: completeness matches content', () => {
  it.each(spreadsheets)(
    '%s',
    async (file) => {
      const a = await parseOk(file);
      const c = a.completeness;
      const sheets: any[] = a.content.sheets;
      expectCompletenessAddsUp(c);
      expect(Object.keys(c).sort()).toEqual(['complete', 'sheets', 'tables']);
      expect(c.sheets.emitted).toBe(sheets.length);
      expect(c.sheets.empty).toBe(sheets.filter((s) => s.rows.length === 0).length);
      expect(c.sheets.found).toBe(a.documentUnits);
      expect(c.tables.emitted).toBe(sheets.reduce((n, s) => n + s.tables.length, 0));
      for (const s of sheets) {
        expect(s.provenance).toEqual(s.usedRange ? { sheet: s.name, range: s.usedRange } : { sheet: s.name });
        const cells = s.rows.flatMap((r: any) => r.cells);
        expect(cells.length).toBe(s.cellCount);
        if (!s.usedRange) continue;
        // Every cell lies inside the sheet's range, and the range is no wider than its cells.
        const [[c0, r0], [c1, r1]] = s.usedRange.split(':').map(a1);
        const at = cells.map((x: any) => a1(x.ref));
        expect(at.every(([col, row]: number[]) => col >= c0 && col <= c1 && row >= r0 && row <= r1)).toBe(true);
        expect([Math.min(...at.map((p: number[]) => p[0])), Math.min(...at.map((p: number[]) => p[1]))]).toEqual([c0, r0]);
        expect([Math.max(...at.map((p: number[]) => p[0])), Math.max(...at.map((p: number[]) => p[1]))]).toEqual([c1, r1]);
        for (const t of s.tables) expect(t.provenance).toEqual({ sheet: s.name, range: t.range });
      }
    },
    180_000,
  );
});

describe.skipIf(!CORPUS_AVAILABLE).concurrent('corpus presentations: completeness matches content', () => {
  it.each(presentations)(
    '%s',
    async (file) => {
      const a = await parseOk(file);
      const c = a.completeness;
      const slides: any[] = a.content.slides;
      expectCompletenessAddsUp(c);
      expect(Object.keys(c).sort()).toEqual(['complete', 'slides', 'tables']);
      expect(c.slides.emitted).toBe(slides.length);
      expect(c.slides.empty).toBe(slides.filter((s) => !slideHasText(s)).length);
      expect(c.tables.emitted).toBe(slides.reduce((n, s) => n + s.tables.length, 0));
      expect(a.documentUnits).toBe(Math.max(slides.length, 1));
      for (const s of slides) {
        expect(s.provenance).toEqual({ slide: s.number });
        for (const b of [...s.textBlocks, ...s.tables]) expect(b.provenance).toEqual({ slide: s.number });
      }
    },
    180_000,
  );
});

describe.skipIf(!CORPUS_AVAILABLE).concurrent('corpus slide tables: header rows as the file marks them', () => {
  it('a:tblPr firstRow="1" (testPPT_groups.pptx) is one header row; bandRow alone (officeparser test.pptx) is none', async () => {
    const groups = await parseOk('tika__testPPT_groups.pptx');
    expect(groups.content.slides.flatMap((s: any) => s.tables.map((t: any) => t.headerRows))).toEqual([1]);
    const deck = await parseOk('officeparser__test.pptx');
    const tables = deck.content.slides.flatMap((s: any) => s.tables);
    expect(tables.length).toBe(6);
    expect(tables.every((t: any) => t.headerRows === 0)).toBe(true);
  });
});
