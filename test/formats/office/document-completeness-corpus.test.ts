// Completeness of every word-processing file of the corpus (DOCX, DOC, ODT, RTF) against what
// its artifact holds: pages as billed, empty pages as the rendered layout shows them, tables
// as the content holds them, and the pages blocks and cells point to inside those bounds.
import { describe, expect, it } from 'vitest';
import { manifest, parseFail, parseOk } from './helpers.js';

const WORD = /\.(docx|docm|doc|odt|fodt|rtf)$/;
/** Files the parser refuses although LibreOffice renders something (converted-documents.test.ts says why). */
const REFUSED = new Set(['tika__testODTnotaZipFile.odt']);
const readable = manifest.filter((m) => WORD.test(m.file) && /^\d+$/.test(m.pages_rendered) && !REFUSED.has(m.file)).map((m) => m.file);
const unreadable = manifest.filter((m) => WORD.test(m.file) && (!/^\d+$/.test(m.pages_rendered) || REFUSED.has(m.file))).map((m) => m.file);

/** Files whose text LibreOffice's layout does not show: none of their blocks can have a page. */
const NOT_LAID_OUT: Record<string, string> = {
  'tika__testAltChunkHTML.docx': 'LibreOffice does not lay out altChunk (imported HTML) content: the page it renders is empty',
};

/** Tables in the content and every provenance page of blocks, tables and cells. */
function walk(blocks: any[], out = { tables: 0, pages: [] as number[] }) {
  for (const b of blocks) {
    if (b.provenance?.page !== undefined) out.pages.push(b.provenance.page);
    if (b.type !== 'table') continue;
    out.tables++;
    for (const row of b.rows)
      for (const c of row) {
        if (c.provenance?.page !== undefined) out.pages.push(c.provenance.page);
        if (c.blocks) walk(c.blocks, out);
      }
  }
  return out;
}

describe.concurrent('completeness of every corpus word-processing file', () => {
  it('the corpus has word-processing files', () => {
    expect(readable.length + unreadable.length).toBe(manifest.filter((m) => WORD.test(m.file)).length);
    if (manifest.length) expect(readable.length).toBeGreaterThanOrEqual(60);
  });

  it.each(readable)(
    '%s',
    async (file) => {
      const a = await parseOk(file);
      const c = a.completeness;
      expect(Object.keys(c).sort()).toEqual(['complete', 'pages', 'tables']);
      for (const kind of ['pages', 'tables'] as const) {
        const t = c[kind];
        expect(t.found, kind).toBe(t.emitted + t.failed + t.skipped);
        expect(t.gaps.length, kind).toBe(t.failed + t.skipped);
        expect(t.empty, kind).toBeLessThanOrEqual(t.emitted);
      }
      expect(c.complete).toBe(c.pages.failed + c.pages.skipped + c.tables.failed + c.tables.skipped === 0);
      // Pages: as billed; tables: as the content holds them.
      expect(c.pages.emitted).toBe(a.documentUnits);
      const held = walk(a.content.blocks);
      expect(c.tables.emitted).toBe(held.tables);
      expect(a.metadata.tableCount).toBeLessThanOrEqual(held.tables);
      if (a.metadata.blockPages.source === 'rendered') {
        // Every page pointed to exists, holds text, and the pages with text are enough for them.
        const used = new Set(held.pages);
        for (const p of used) expect(p >= 1 && p <= c.pages.emitted, `page ${p}`).toBe(true);
        expect(used.size).toBeLessThanOrEqual(c.pages.emitted - c.pages.empty);
        // Most blocks with text are found in the layout.
        const { located, notLocated } = a.metadata.blockPages;
        if (NOT_LAID_OUT[file]) expect(located, NOT_LAID_OUT[file]).toBe(0);
        else if (located + notLocated >= 5) expect(located / (located + notLocated), `${located} found, ${notLocated} not`).toBeGreaterThanOrEqual(0.8);
      } else {
        expect(held.pages).toEqual([]);
        expect(c.pages.empty).toBe(0);
      }
    },
    300_000,
  );

  it.each(unreadable)(
    '%s fails, so it has no artifact to count',
    async (file) => {
      await parseFail(file);
    },
    300_000,
  );
});
