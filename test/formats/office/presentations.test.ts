// PPTX/PPTM (direct), PPT and ODP (through LibreOffice): one unit per slide, equal to the
// MANIFEST's rendered pages (a slide renders as one page).
import { describe, expect, it } from 'vitest';
import { manifest, parseFail, parseOk, renderedPages } from './helpers.js';

const pptx = manifest.filter((m) => /\.(pptx|pptm)$/.test(m.file) && /^\d+$/.test(m.pages_rendered)).map((m) => m.file);
const converted = ['tika__testPPT.ppt', 'tika__testPPT_various.ppt', 'tika__LibreOfficeImpress_odp_1.3.odp', 'officeparser__test.odp'];
const allConverted = manifest.filter((m) => /\.(ppt|odp)$/.test(m.file) && /^\d+$/.test(m.pages_rendered)).map((m) => m.file);

describe.concurrent('slide counts equal the rendered pages', () => {
  it.each(pptx)('%s', async (file) => {
    const a = await parseOk(file);
    expect(a.documentUnits).toBe(renderedPages(file));
    expect(a.content.slides.map((s: any) => s.number)).toEqual(Array.from({ length: a.documentUnits }, (_, i) => i + 1));
  });
  it.each(process.env.OFFICE_FULL_CORPUS ? allConverted : converted)(
    '%s (LibreOffice)',
    async (file) => {
      const a = await parseOk(file);
      expect(a.documentUnits).toBe(renderedPages(file));
      expect(a.metadata.converter.engine).toBe('libreoffice');
    },
    120_000,
  );
});

describe.concurrent('slide content', () => {
  it('titles, body text in order, properties (testPPT.pptx)', async () => {
    const a = await parseOk('tika__testPPT.pptx');
    expect(a.content.slides[0].title).toBe('Attachment Test');
    expect(a.content.slides[0].textBlocks.map((b: any) => b.placeholder)).toEqual(['ctrTitle', 'subTitle']);
    expect(a.content.slides[2].textBlocks[0].paragraphs.map((p: any) => p.text)).toContain('Black Panther');
    expect(a.content.properties).toMatchObject({ title: 'Attachment Test', creator: 'Rajiv' });
  });

  it('tables, notes and titles across a real deck (officeparser test.pptx)', async () => {
    const a = await parseOk('officeparser__test.pptx');
    expect(a.content.slides.map((s: any) => s.title).slice(0, 3)).toEqual(['Demonstration of DOCX support in\u00a0calibre', 'Text Formatting', 'Tables']);
    expect(a.content.slides.map((s: any) => s.tables.length)).toEqual([0, 0, 2, 3, 1, 0, 0, 0, 0]);
    expect(a.content.slides[0].notes).toBe('Slide Note 1.');
    expect(a.content.slides[2].notes).toBe('And then about tables');
    const tables = a.content.slides.flatMap((s: any) => s.tables);
    expect(tables.every((t: any) => t.rowCount === t.rows.length)).toBe(true);
  });

  it('grouped shapes are read (testPPT_groups.pptx)', async () => {
    const a = await parseOk('tika__testPPT_groups.pptx');
    const text = a.content.slides.flatMap((s: any) => s.textBlocks.map((b: any) => b.text)).join('\n');
    expect(text.length).toBeGreaterThan(20);
  });

  it('macro-enabled PPTM (without a VBA project) is parsed and flagged as macro-enabled', async () => {
    const a = await parseOk('tika__testPPT.pptm');
    expect(a.metadata.macroEnabled).toBe(true);
    expect(a.metadata.hasMacros).toBeUndefined();
    expect(a.documentUnits).toBe(3);
  });

  it('PPT through LibreOffice keeps title and text', async () => {
    const a = await parseOk('tika__testPPT.ppt');
    expect(a.content.slides[0].title).toBe('Sample Powerpoint Slide');
    expect(a.content.slides[0].textBlocks[1].text).toContain('Powerpoint X for Mac');
    expect(a.content.properties).toMatchObject({ title: 'Sample Powerpoint Slide', creator: 'Keith Bennett' });
  }, 120_000);

  it('ODP: slides and meta properties', async () => {
    const a = await parseOk('tika__LibreOfficeImpress_odp_1.3.odp');
    expect(a.content.slides[0].title).toBe('This is');
    expect(a.content.properties.title).toBe('Beehive');
  }, 120_000);

  it('chunkHints: each slide starts a chunk under its title', async () => {
    const a = await parseOk('tika__testPPT.pptx', { chunkHints: true });
    expect(a.chunks[0].headingPath).toEqual(['Attachment Test']);
    expect(a.chunks.map((c: any) => c.pages[0])).toEqual([1, 2, 3]);
  });
});

describe.concurrent('presentation failures', () => {
  it('password-protected PPT → encrypted_document', async () => {
    expect((await parseFail('tika__testPPT_protected_passtika.ppt')).code).toBe('encrypted_document');
  });
});
