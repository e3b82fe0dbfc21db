// DOCX/DOCM: every corpus file's billed pages equal the MANIFEST's rendered page count; the
// stored count is reported beside it; structure a user would look for is present.
import { describe, expect, it } from 'vitest';
import { documentText, manifest, parseFail, parseOk, renderedPages, storedPages } from './helpers.js';

const docxFiles = manifest.filter((m) => /\.(docx|docm)$/.test(m.file) && /^\d+$/.test(m.pages_rendered)).map((m) => m.file);

describe.concurrent('DOCX page counts (rendered by LibreOffice)', () => {
  it('the corpus has DOCX files with rendered ground truth', () => {
    expect(docxFiles.length).toBeGreaterThanOrEqual(25);
  });
  it.each(docxFiles)(
    '%s',
    async (file) => {
      const a = await parseOk(file);
      expect(a.documentUnits).toBe(renderedPages(file));
      expect(a.metadata.pageCount.source).toBe('rendered');
      const stored = storedPages(file);
      expect(a.metadata.pageCount.stored).toBe(stored);
      expect(a.metadata.pageCount.storedAgrees).toBe(stored === null ? null : stored === renderedPages(file));
    },
    120_000,
  );
});

describe.concurrent('DOCX structure', () => {
  it('headings with levels, a table, header/footer, hyperlinks and properties (testWORD.docx)', async () => {
    const a = await parseOk('tika__testWORD.docx');
    const c = a.content;
    expect(c.kind).toBe('document');
    const headings = c.blocks.filter((b: any) => b.type === 'heading').map((b: any) => [b.level, b.text]);
    expect(headings).toEqual([
      [1, 'Sample Word Document Title'],
      [1, 'Heading Level 1'],
      [2, 'Heading Level 2'],
      [3, 'Heading Level 3'],
    ]);
    expect(c.blocks.some((b: any) => b.type === 'table')).toBe(true);
    expect(c.headersFooters).toContainEqual({ kind: 'header', type: 'default', text: 'This is the header for our document' });
    expect(c.headersFooters).toContainEqual({ kind: 'footer', type: 'default', text: 'This is the footer for our document' });
    expect(c.hyperlinks.map((l: any) => l.target)).toContain('http://tika.apache.org/');
    expect(c.properties).toMatchObject({ title: 'Sample Word Document', creator: 'Keith Bennett', pages: 2 });
  }, 60_000);

  it('nested numbered lists keep levels and rendered labels (testWORD_numbered_list.docx)', async () => {
    const a = await parseOk('tika__testWORD_numbered_list.docx');
    const items = a.content.blocks
      .filter((b: any) => b.type === 'listItem')
      .slice(0, 4)
      .map((b: any) => [b.level, b.label, b.text]);
    expect(items).toEqual([
      [0, '1)', 'This'],
      [1, 'a)', 'Is'],
      [2, 'i)', 'A multi'],
      [2, 'ii)', 'Level'],
    ]);
    const six = a.content.blocks.find((b: any) => b.text === 'six');
    expect(six).toMatchObject({ type: 'listItem', ordered: true, label: '6.' });
  }, 60_000);

  it('bullets, footnote reference, text box, Japanese and Gothic text (testWORD_various.docx)', async () => {
    const a = await parseOk('tika__testWORD_various.docx');
    const c = a.content;
    expect(c.blocks.filter((b: any) => b.type === 'listItem' && !b.ordered).map((b: any) => b.text)).toEqual(['Bullet 1', 'Bullet 2', 'Bullet 3']);
    expect(c.footnotes).toEqual([{ id: '2', text: 'This is a footnote.' }]);
    expect(c.blocks.find((b: any) => b.footnoteIds)?.footnoteIds).toEqual(['2']);
    expect(c.blocks.find((b: any) => b.inTextBox)?.text).toBe('Here is a text box');
    const text = documentText(c);
    expect(text).toContain('ゾルゲと尾崎、淡々と最期');
    expect(text).toContain('𐌲𐌿𐍄𐌹𐍃𐌺');
    expect(c.headersFooters.map((h: any) => h.text)).toEqual(['This is the header text.', 'This is the footer text.']);
  }, 60_000);

  it('footnotes and endnotes', async () => {
    const f = await parseOk('tika__footnotes.docx');
    expect(f.content.footnotes).toEqual([{ id: '1', text: 'snoska' }]);
    const e = await parseOk('tika__testWORD_endnote_table.docx');
    expect(e.content.endnotes.length).toBe(1);
    expect(e.content.endnotes[0].text).toContain('This is endnote text in a table');
  }, 60_000);

  it('comments with author and date, referenced from their paragraph (mammoth comments.docx)', async () => {
    const a = await parseOk('mammoth__comments.docx');
    expect(a.content.comments).toEqual([
      { id: '0', author: 'Michael Williamson', date: '2016-07-03T15:10:00Z', text: 'A tachyon walks into a bar.' },
      { id: '2', author: 'Michael Williamson', date: '2016-07-03T15:12:00Z', text: 'Fin.' },
    ]);
    expect(a.content.blocks[0]).toMatchObject({ text: 'Ouch.', commentIds: ['0', '2'] });
  }, 60_000);

  it('tables: cells in order, horizontal and vertical merges', async () => {
    const t = await parseOk('mammoth__tables.docx');
    const table = t.content.blocks.find((b: any) => b.type === 'table');
    expect(table.rows.map((r: any[]) => r.map((c) => c.text))).toEqual([
      ['Top left', 'Top right'],
      ['Bottom left', 'Bottom right'],
    ]);
    const g = await parseOk('tika__testWORD_tableInRunInsideParagraph.docx');
    const first = g.content.blocks.find((b: any) => b.type === 'table');
    expect(first.rows[0][0]).toMatchObject({ row: 0, col: 0, colSpan: 3, text: 'gubergre' });
    expect(first.columnCount).toBe(3);
    const v = await parseOk('officeparser__test.docx');
    const cells: any[] = [];
    const walk = (bs: any[]) => {
      for (const b of bs)
        if (b.type === 'table')
          for (const r of b.rows)
            for (const c of r) {
              cells.push(c);
              if (c.blocks) walk(c.blocks);
            }
    };
    walk(v.content.blocks);
    expect(cells.some((c) => c.rowSpan === 2 && c.text === 'One\nThree')).toBe(true);
  }, 120_000);

  it('image metadata (testWORD_embeded.docx)', async () => {
    const a = await parseOk('tika__testWORD_embeded.docx');
    const imgs = a.content.images;
    expect(imgs.length).toBe(6);
    expect(imgs[0]).toMatchObject({
      name: 'Picture',
      description: 'A description...',
      target: 'word/media/image1.png',
      contentType: 'image/png',
      sizeBytes: 4444,
    });
    expect(imgs[0].widthPt).toBeCloseTo(141.7, 1);
    expect(imgs.filter((i: any) => i.contentType === 'image/emf').length).toBe(3);
  }, 60_000);

  it('altChunk HTML is imported as paragraphs', async () => {
    const a = await parseOk('tika__testAltChunkHTML.docx');
    expect(a.content.blocks.map((b: any) => b.text)).toContain('Simple paragraph with a emphasized word.');
  }, 60_000);

  it('Strict OOXML, BOM-prefixed parts and an empty body read', async () => {
    expect(documentText((await parseOk('mammoth__strict-format.docx')).content).length).toBeGreaterThan(0);
    expect(documentText((await parseOk('mammoth__utf8-bom.docx')).content).length).toBeGreaterThan(0);
    const empty = await parseOk('mammoth__empty.docx');
    expect(empty.content.blocks).toEqual([]);
    expect(empty.documentUnits).toBe(1);
  }, 120_000);

  it('macro-enabled DOCM is parsed, macros flagged and not run', async () => {
    const a = await parseOk('tika__testWORD_macros.docm');
    expect(a.metadata.hasMacros).toBe(true);
    expect(a.metadata.macroEnabled).toBe(true);
    expect(a.warnings.join(' ')).toMatch(/macros; they were not run/);
  }, 60_000);

  it('chunkHints gives heading-aware chunks', async () => {
    const a = await parseOk('tika__testWORD.docx', { chunkHints: true });
    expect(a.chunks.length).toBeGreaterThanOrEqual(3);
    const h2 = a.chunks.find((c: any) => c.headingPath.includes('Heading Level 2'));
    expect(h2.headingPath).toEqual(['Heading Level 1', 'Heading Level 2']);
    expect(a.chunks.every((c: any) => c.blockRefs.every((r: string) => /^blocks\.\d+$/.test(r)))).toBe(true);
  }, 60_000);

  it('stale stored page count is reported, rendered count billed (testWORD_2006ml.docx)', async () => {
    const a = await parseOk('tika__testWORD_2006ml.docx');
    expect(a.documentUnits).toBe(9);
    expect(a.metadata.pageCount).toMatchObject({ rendered: 9, stored: 7, storedAgrees: false });
    expect(a.warnings.join(' ')).toMatch(/stored page count \(7\)/);
  }, 60_000);
});

describe('DOCX failures', () => {
  it('password-protected DOCX → encrypted_document', async () => {
    const r = await parseFail('tika__testWORD_protected_passtika.docx');
    expect(r.code).toBe('encrypted_document');
    expect(r.message).toMatch(/password/);
  });
  it('truncated DOCX → extraction_failed with a reason', async () => {
    const r = await parseFail('tika__testWORD_truncated.docx');
    expect(r.code).toBe('extraction_failed');
    expect(r.message).toMatch(/ZIP|truncated/i);
  });
});
