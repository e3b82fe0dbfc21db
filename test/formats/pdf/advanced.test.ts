// Advanced mode: ruled tables (cell-level accuracy against the words poppler finds inside each
// cell), unruled tables, tables continued across pages, form fields, links, images.
import { describe, expect, it, vi } from 'vitest';
import { parsedOk } from './helpers.js';
// @ts-expect-error plain .mjs module shared with the bench scripts
import { tableAccuracy } from '../../../bench/pdf/tables.mjs';

vi.setConfig({ testTimeout: 180_000 });

describe('Advanced: tables', () => {
  it('ruled tables: cell-level accuracy ≥ 0.9 against poppler’s words inside each cell', async () => {
    for (const f of ['camelot__column_span_1.pdf', 'pdfplumber__nics-background-checks-2015-11.pdf', 'camelot__eu-001.pdf']) {
      const r = await tableAccuracy(f);
      expect(r.tables, f).toBeGreaterThan(0);
      expect(r.cells, f).toBeGreaterThan(100);
      expect(r.accuracy, f).toBeGreaterThanOrEqual(0.9);
    }
  });

  it('NICS table: one row per state (rows ruled only every five lines), 25 columns, header spans', async () => {
    const a = await parsedOk('pdfplumber__nics-background-checks-2015-11.pdf', { pdfMode: 'Advanced' });
    const t = a.content.pages[0].tables[0];
    expect(t.ruled).toBe(true);
    expect(t.columns).toBe(25);
    const firstCol = t.cells.filter((c: any) => c.col === 0).map((c: any) => c.text);
    for (const state of ['Alabama', 'Alaska', 'California', 'Wyoming']) expect(firstCol).toContain(state);
    const alabama = t.cells.find((c: any) => c.col === 0 && c.text === 'Alabama');
    const row = t.cells.filter((c: any) => c.row === alabama.row).sort((p: any, q: any) => p.col - q.col);
    expect(row[1].text).toBe('18,870');
    expect(t.cells.some((c: any) => c.colSpan > 1)).toBe(true);
  });

  it('rotated page: the same table is found and its text reads upright', async () => {
    const a = await parsedOk('pdfplumber__nics-background-checks-2015-11-rotated.pdf', { pdfMode: 'Advanced' });
    const p = a.content.pages[0];
    expect(p.rotation).toBe(90);
    expect(p.blocks.some((b: any) => b.text.includes('NICS Firearm Background Checks'))).toBe(true);
    const t = p.tables[0];
    expect(t.columns).toBe(25);
    expect(t.cells.some((c: any) => c.text === 'Alabama')).toBe(true);
  });

  it('column spans on the camelot lattice table', async () => {
    const a = await parsedOk('camelot__column_span_1.pdf', { pdfMode: 'Advanced' });
    const t = a.content.pages[0].tables[0];
    expect(t.cells.some((c: any) => c.colSpan > 1 || c.rowSpan > 1)).toBe(true);
    for (const c of t.cells) {
      expect(c.row + c.rowSpan).toBeLessThanOrEqual(t.rows);
      expect(c.col + c.colSpan).toBeLessThanOrEqual(t.columns);
    }
  });

  it('tables continued across pages are linked (ICDAR eu-001)', async () => {
    const a = await parsedOk('camelot__eu-001.pdf', { pdfMode: 'Advanced' });
    const all = a.content.pages.flatMap((p: any) => p.tables);
    const cont = all.filter((t: any) => t.continuedFrom);
    expect(cont.length).toBeGreaterThan(0);
    for (const t of cont) {
      const prev = all.find((x: any) => x.id === t.continuedFrom);
      expect(prev.continuesOn).toBe(t.id);
      expect(prev.columns).toBe(t.columns);
    }
  });

  it('header rows: the bold leading rows are marked header, the body rows are not', async () => {
    // ICDAR eu-001: "THRESHOLD FOR RELEASES" / "to air | to water | to land" set in bold above the data.
    const a = await parsedOk('camelot__eu-001.pdf', { pdfMode: 'Advanced' });
    const t = a.content.pages[0].tables[0];
    const header = t.cells.filter((c: any) => c.header);
    expect(header.map((c: any) => c.text)).toEqual(expect.arrayContaining(['THRESHOLD FOR RELEASES', 'to air', 'to water', 'to land']));
    // Rows 0–2 are the header: every cell lying wholly in them is marked, no other cell is.
    for (const c of t.cells) expect(c.header === true, `cell r${c.row} c${c.col} "${c.text}"`).toBe(c.row + c.rowSpan <= 3);
    expect(t.cells.filter((c: any) => !c.header && c.text).length).toBeGreaterThan(10);
    // IRS tax tables (unruled): "If Form 1040NR, line 40, is — And you are —" heads each table;
    // a table continued from the page before drops the header it repeats, so the chain's
    // first table holds it.
    const irs = await parsedOk('pdfminer__i1040nr.pdf', { pdfMode: 'Advanced' });
    const all = new Map<string, any>(irs.content.pages.flatMap((p: any) => p.tables ?? []).map((t: any) => [t.id, t]));
    let tax = irs.content.pages[34].tables.find((x: any) => x.source === 'alignment');
    while (tax.continuedFrom) tax = all.get(tax.continuedFrom);
    const heads = tax.cells.filter((c: any) => c.header).map((c: any) => c.text.replace(/\s+/g, ''));
    expect(heads).toEqual(expect.arrayContaining(['IfForm', 'Andyouare—']));
    // NICS sets its header rows apart by shading, not bold: by this rule they are not marked.
    const nics = await parsedOk('pdfplumber__nics-background-checks-2015-11.pdf', { pdfMode: 'Advanced' });
    expect(nics.content.pages[0].tables[0].cells.some((c: any) => c.header)).toBe(false);
  });

  it('unruled (whitespace-aligned) tables are found from text alignment', async () => {
    const a = await parsedOk('camelot__birdisland.pdf', { pdfMode: 'Advanced' });
    const un = a.content.pages.flatMap((p: any) => p.tables.filter((t: any) => t.source === 'alignment'));
    expect(un.length).toBeGreaterThan(0);
    expect(un[0].columns).toBeGreaterThanOrEqual(3);
  });

  it('other modes carry no tables', async () => {
    const a = await parsedOk('camelot__eu-001.pdf', { pdfMode: 'MultiColumn' });
    expect(a.content.pages.every((p: any) => p.tables === undefined)).toBe(true);
  });
});

describe('Advanced: forms, links, images', () => {
  it('LibreOffice form: field names, types and values (text, check boxes, radio buttons, combo box)', async () => {
    const a = await parsedOk('pysample__libreoffice-form.pdf', { pdfMode: 'Advanced' });
    const fields = a.content.pages[0].formFields;
    expect(fields.length).toBe(9);
    const byName = (n: string) => fields.find((f: any) => f.name === n);
    expect(byName('First Name')).toMatchObject({ type: 'textfield', value: 'Alice' });
    expect(byName('First Name_2')).toMatchObject({ type: 'textfield', value: 'Bob' });
    expect(byName('Last Name').value).toBeNull();
    expect(byName('gdpr')).toMatchObject({ type: 'checkbox', checked: false });
    expect(byName('Nationality').type).toBe('combobox');
    expect(fields.filter((f: any) => f.type === 'radiobutton').length).toBe(2);
  });

  it('IRS AcroForm: form fields on every page with boxes inside the page', async () => {
    const a = await parsedOk('pdfminer__f1040nr.pdf', { pdfMode: 'Advanced' });
    expect(a.metadata.hasForm).toBe(true);
    const n = a.content.pages.reduce((s: number, p: any) => s + p.formFields.length, 0);
    expect(n).toBeGreaterThan(100);
    for (const p of a.content.pages) for (const f of p.formFields) expect(f.bbox[2]).toBeLessThanOrEqual(p.width + 1);
  });

  it('links with URIs or target pages, and image positions', async () => {
    const a = await parsedOk('camelot__eu-001.pdf', { pdfMode: 'Advanced' });
    const links = a.content.pages.flatMap((p: any) => p.links);
    expect(links.length).toBeGreaterThan(0);
    expect(links.every((l: any) => l.uri || l.targetPage)).toBe(true);
    const g = await parsedOk('pysample__GeoTopo-komprimiert.pdf', { pdfMode: 'Advanced' });
    const internal = g.content.pages.flatMap((p: any) => p.links).filter((l: any) => l.targetPage);
    expect(internal.length).toBeGreaterThan(10);
    const scan = await parsedOk('camelot__image.pdf', { pdfMode: 'Advanced' });
    const img = scan.content.pages[0].images[0];
    expect(img.pixelWidth).toBeGreaterThan(1000);
    expect(img.bbox[2] - img.bbox[0]).toBeGreaterThan(scan.content.pages[0].width * 0.8);
  });
});

describe('Advanced: tagged PDFs use the structure tree', () => {
  it('Word 365 file: H1 heading, P paragraphs and LI list items from the structure tree; the table', async () => {
    const a = await parsedOk('pdfplumber__word365_structure.pdf', { pdfMode: 'Advanced' });
    expect(a.metadata.tagged).toBe(true);
    const blocks = a.content.pages[0].blocks;
    const title = blocks.find((b: any) => b.text === 'Titre');
    expect(title).toMatchObject({ kind: 'heading', level: 1, structType: 'H1' });
    const items = blocks.filter((b: any) => b.structType === 'LI');
    expect(items.map((b: any) => b.text)).toEqual(['• Liste', '• Liste 2', '• Liste 3', '1. Liste numérotée', '2. Liste numérotée']);
    expect(items.every((b: any) => b.kind === 'list')).toBe(true);
    expect(blocks.find((b: any) => b.text === 'Lorem ipsum dolor sit amet').kind).toBe('paragraph');
    const t = a.content.pages[0].tables[0];
    expect(t.cells.map((c: any) => c.text).join(' ')).toMatch(/En-tête 1.*Alouette/);
  });
});
