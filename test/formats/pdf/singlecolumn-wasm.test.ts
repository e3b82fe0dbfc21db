// SingleColumn pages are laid out in WASM (wasm/charpass/layout.ts) next to the character
// pass; layout.ts's regionLines + regionBlocks stay the reference and the path for the other
// modes. The two must give the same blocks — every field, bit for bit — on every page, and
// the pages the WASM layout hands back to JavaScript (right-to-left text, a line-end hyphen it
// cannot judge without Unicode tables) must still come out right.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { getPdfium } from '../../../src/formats/pdf/pdfium-loader.js';
import { PdfDocument } from '../../../src/formats/pdf/document.js';
import { pageGeometry, readTextLayer } from '../../../src/formats/pdf/textlayer.js';
import { regionBlocks, regionLines, singleRegion, type RawBlock } from '../../../src/formats/pdf/layout.js';
import { corpusPath, onePagePdf, parsedOk, pageTexts } from './helpers.js';

vi.setConfig({ testTimeout: 300_000 });

const FIELDS = ['text', 'x0', 'y0', 'x1', 'y1', 'size', 'bold', 'italic', 'font', 'chars', 'listMarker', 'column', 'lineCount'] as const;

type PageOutcome = { page: number; wasm: RawBlock[] | null; js: RawBlock[] };

/** Every page of `file` laid out both ways (the WASM blocks are null where it handed the page back). */
async function bothLayouts(file: string): Promise<PageOutcome[]> {
  const p = await getPdfium();
  const doc = PdfDocument.open(p, file);
  const out: PageOutcome[] = [];
  try {
    for (let i = 0; i < doc.pageCount; i++) {
      const page = p.ex.FPDF_LoadPage(doc.handle, i);
      if (!page) continue;
      try {
        const g = pageGeometry(doc, page);
        const wasm = readTextLayer(doc, page, g, true).singleColumnBlocks;
        const layer = readTextLayer(doc, page, g);
        const js: RawBlock[] = [];
        for (const r of singleRegion(layer.fragments.filter((f) => !f.rotated))) js.push(...regionBlocks(regionLines(r.frags), null));
        out.push({ page: i + 1, wasm, js });
      } finally {
        p.ex.FPDF_ClosePage(page);
      }
    }
  } finally {
    doc.close();
  }
  return out;
}

/** The blocks' fields as the artifact would see them (Object.is: -0 and NaN count). */
function fields(blocks: RawBlock[]): unknown[][] {
  return blocks.map((b) => FIELDS.map((k) => (Object.is(b[k], -0) ? '-0' : b[k])));
}

let dir = '';
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pdf-sc-wasm-'));
});
afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

let written = 0;
/** onePagePdf written to a file of its own in the test directory. */
function pdfFile(content: string, width?: number, height?: number): string {
  const file = path.join(dir, `page-${written++}.pdf`);
  fs.writeFileSync(file, onePagePdf(content, width, height));
  return file;
}

/** Lines of text at 12 pt, 14.4 pt apart from y = 700; `font` F1 or F2, `x` the left edge. */
function lines(rows: { text: string; font?: 'F1' | 'F2'; x?: number; size?: number; gapBefore?: number }[]): string {
  let y = 700;
  return rows
    .map((r) => {
      y -= r.gapBefore ?? 0;
      const line = `BT /${r.font ?? 'F1'} ${r.size ?? 12} Tf ${r.x ?? 72} ${y} Td (${r.text}) Tj ET`;
      y -= (r.size ?? 12) * 1.2;
      return line;
    })
    .join('\n');
}

describe('SingleColumn layout in WASM', () => {
  // First in the file: the thread's PDFium heap is still small, so the layout's work memory
  // (≈ 300 bytes a run) makes it grow — after the character pass made its views of the runs.
  it('a page of 90,000 runs that goes back to JavaScript after the layout grew the heap still reads whole', async () => {
    const rows: string[] = [];
    for (let r = 0; r < 300; r++) {
      const runs = Array.from({ length: 300 }, (_, k) => `(${String.fromCharCode(97 + ((r + k) % 26))})`).join(' -3000 ');
      rows.push(`BT /F1 4 Tf 10 ${2460 - r * 8} Td [${runs}] TJ ET`);
    }
    // The last two lines make the page go back to JavaScript ("é-" at a line end).
    rows.push('BT /F1 4 Tf 10 40 Td (Un r\\351-) Tj ET', 'BT /F1 4 Tf 10 35.2 Td (sum\\351 court.) Tj ET');
    const file = pdfFile(rows.join('\n'), 4400, 2480);
    const p = await getPdfium();
    const before = (p.ex.memory as { buffer: ArrayBuffer }).buffer.byteLength;
    const [o] = await bothLayouts(file);
    expect((p.ex.memory as { buffer: ArrayBuffer }).buffer.byteLength).toBeGreaterThan(before);
    expect(o.wasm).toBeNull();
    const text = o.js.map((b) => b.text).join(' ');
    expect(text.replace(/[^a-z]/g, '').length).toBeGreaterThan(300 * 300);
    expect(text).toContain('Un résumé court.');
    // And through the parser, which read the runs from the views made again after the layout.
    const a = await parsedOk(file, { pdfMode: 'SingleColumn' });
    expect(pageTexts(a)[0].replace(/\s+/g, ' ')).toBe(text.replace(/\s+/g, ' '));
  });

  it('gives the same blocks as the JavaScript layout on every page of the corpus, and lays out nearly all of them', async () => {
    const folder = corpusPath('pdf', '');
    let pages = 0,
      inWasm = 0;
    const handedBack: string[] = [];
    for (const name of fs
      .readdirSync(folder)
      .filter((f) => f.endsWith('.pdf'))
      .sort()) {
      let outcomes: PageOutcome[];
      try {
        outcomes = await bothLayouts(path.join(folder, name));
      } catch {
        continue; // encrypted or unreadable: no pages to lay out
      }
      for (const o of outcomes) {
        pages++;
        if (!o.wasm) {
          handedBack.push(`${name}:${o.page}`);
          continue;
        }
        inWasm++;
        expect(fields(o.wasm), `${name} page ${o.page}`).toEqual(fields(o.js));
      }
    }
    expect(pages).toBeGreaterThan(250);
    // Right-to-left pages go to JavaScript by design; everything else should stay in WASM.
    expect(handedBack).toContain('pdfjs__ArabicCIDTrueType.pdf:1');
    expect(inWasm / pages).toBeGreaterThan(0.95);
  });

  it('finds list markers, glues hyphenated words, and splits on bold, size and indentation as the JavaScript layout does', async () => {
    const file = pdfFile(
      lines([
        { text: 'Annual Report', font: 'F2', size: 20 },
        { text: 'The results of the exam-', gapBefore: 10 },
        { text: 'ple show an improve-' },
        { text: 'ment; Costs fell by 3-' },
        { text: 'Units rose.' },
        { text: '1. First item', gapBefore: 6 },
        { text: '(b) Second item' },
        { text: 'iv. Fourth item' },
        { text: '\\225 Bullet item' },
        { text: '12\\) Twelfth item' },
        { text: 'x.no space after the marker' },
        { text: 'A bold line', font: 'F2', gapBefore: 6 },
        { text: 'plain text after the bold line that runs on and on' },
        { text: 'Indented start of a new paragraph', x: 90, gapBefore: 0 },
      ]),
    );
    const [o] = await bothLayouts(file);
    expect(o.wasm).not.toBeNull();
    expect(fields(o.wasm!)).toEqual(fields(o.js));
    const texts = o.wasm!.map((b) => b.text);
    expect(texts).toContain('Annual Report');
    expect(texts.some((t) => t.includes('example show an improvement;'))).toBe(true);
    // "3-" before a capital is not a broken word.
    expect(texts.some((t) => t.includes('3- Units rose.'))).toBe(true);
    expect(o.wasm!.filter((b) => b.listMarker).map((b) => b.listMarker)).toEqual(expect.arrayContaining(['1.', '(b)', 'iv.', '•', '12)']));
    expect(o.wasm!.find((b) => b.text.startsWith('x.no'))?.listMarker ?? null).toBeNull();
    // And in a parsed artifact: the heading and list items are typed.
    const a = await parsedOk(file, { pdfMode: 'SingleColumn' });
    const kinds = a.content.pages[0].blocks.map((b: { kind: string; text: string }) => `${b.kind}:${b.text.slice(0, 12)}`);
    expect(kinds).toContain('heading:Annual Repor');
    expect(kinds).toContain('list:1. First ite');
  });

  it('hands a page back to JavaScript when a line-end hyphen follows a non-ASCII letter, and the text still comes out joined', async () => {
    // WinAnsi \351 is é: "\p{L}-" needs Unicode tables the WASM module does not carry.
    const file = pdfFile(lines([{ text: 'Un r\\351-' }, { text: 'sum\\351 court du texte.' }]));
    const [o] = await bothLayouts(file);
    expect(o.wasm).toBeNull();
    const a = await parsedOk(file, { pdfMode: 'SingleColumn' });
    expect(pageTexts(a)[0].trim()).toBe('Un résumé court du texte.');
  });

  it('reads a right-to-left corpus page through the JavaScript layout, in logical order', async () => {
    const a = await parsedOk('pdfjs__ArabicCIDTrueType.pdf', { pdfMode: 'SingleColumn' });
    // The page's Arabic text in logical order (first letter first), as pdftotext gives it.
    expect(pageTexts(a)[0]).toMatch(/[\u0600-\u06ff]{3}/);
  });
});
