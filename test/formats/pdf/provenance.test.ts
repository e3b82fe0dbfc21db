// Provenance and completeness on PDFs made here (issue 32, items 3–4): every part placed on its
// page and box after the container's fields (`input.within`, as for an e-mail's attachment);
// chunks joined per page; words with boxes in Advanced only; a page OCR cannot read counted
// as failed with its reason, a blank page as emitted and empty.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { afterAll, describe, expect, it } from 'vitest';
import { JsonWriter } from '../../../src/formats/kit/json-writer.js';
import type { Provenance } from '../../../src/formats/kit/provenance.js';
import type { JobOptions } from '../../../src/formats/kit/options.js';
import { parsePdf } from '../../../src/formats/pdf/index.js';
import { parserSettings } from '../../helpers/parser-settings.js';
import { assertSchema } from './helpers.js';
import { pdfFromObjects } from '../../../bench/fuzz/generators/pdf-lies.mjs';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await fsp.rm(d, { recursive: true, force: true });
});

/** Pages of `width` × `height` points, each with `content` as its stream (Helvetica as /F1). */
function pagesPdf(pages: { content: string; width?: number; height?: number }[]): Buffer {
  const objects: (string | { dict: string; data: Buffer } | null)[] = [
    null,
    '<< /Type /Catalog /Pages 2 0 R >>',
    null,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  const kids: number[] = [];
  for (const p of pages) {
    const data = Buffer.from(p.content, 'latin1');
    kids.push(objects.length);
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${p.width ?? 612} ${p.height ?? 792}] /Contents ${objects.length + 1} 0 R /Resources << /Font << /F1 3 0 R >> >> >>`,
    );
    objects.push({ dict: `<< /Length ${data.length} >>`, data });
  }
  objects[2] = `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${kids.length} >>`;
  return pdfFromObjects(objects);
}

const text = (lines: string[], y = 720) => `BT /F1 12 Tf 72 ${y} Td 14 TL ${lines.map((l) => `(${l}) Tj T*`).join(' ')} ET`;

/** Runs the PDF parser on `bytes` as an embedded document would be run (with `within`). */
async function run(bytes: Buffer, options: JobOptions, within?: Provenance) {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'pdf-prov-'));
  dirs.push(dir);
  const file = path.join(dir, 'in.pdf');
  await fsp.writeFile(file, bytes);
  const outPath = path.join(dir, 'content.json');
  const out = fs.createWriteStream(outPath);
  await once(out, 'open');
  const writer = new JsonWriter(out);
  const outcome = await parsePdf(
    { filePath: file, fileName: 'in.pdf', format: 'pdf', options, settings: parserSettings(), tempDir: dir, progress: () => {}, within },
    writer,
  );
  await writer.finish();
  out.end();
  await once(out, 'finish');
  const content = JSON.parse(await fsp.readFile(outPath, 'utf8'));
  assertSchema(content);
  return { content, outcome };
}

const WITHIN: Provenance = { message: 3, attachment: [2], file: 'report.pdf' };

describe('PDF provenance', () => {
  const doc = pagesPdf([
    { content: text(['Quarterly report', '', 'Revenue grew in every region this quarter.', 'Costs stayed flat.']) },
    { content: '' },
    { content: text(['Second page with closing remarks.'], 700) },
  ]);

  it('every block is placed on its page and box after the container’s fields; chunks join them per page', async () => {
    const { content, outcome } = await run(doc, { pdfMode: 'SingleColumn', chunkHints: true }, WITHIN);
    const blocks = content.pages.flatMap((p: any) => p.blocks.map((b: any) => [p.number, b]));
    expect(blocks.length).toBeGreaterThanOrEqual(2);
    for (const [page, b] of blocks) {
      expect(b.provenance).toEqual({ ...WITHIN, page, box: b.bbox });
      expect(b.words).toBeUndefined();
    }
    // The first block's box is where the content stream put it: x from 72 pt, top line at 792 − 720 − ascent.
    const first = content.pages[0].blocks[0].provenance.box;
    expect(first[0]).toBeCloseTo(72, 0);
    expect(first[3]).toBeGreaterThan(792 - 720);
    expect(first[1]).toBeLessThan(792 - 720);
    const chunks = outcome.chunks!;
    const places = chunks.flatMap((c) => c.provenance ?? []);
    expect(places.map((q) => q.page).sort((a, b) => a! - b!)).toEqual([1, 3]);
    for (const q of places) expect(q).toMatchObject(WITHIN);
    // A chunk's box on a page holds every block of that page it covers.
    const p1 = places.find((q) => q.page === 1)!;
    for (const b of content.pages[0].blocks) {
      expect(p1.box![0]).toBeLessThanOrEqual(b.bbox[0]);
      expect(p1.box![3]).toBeGreaterThanOrEqual(b.bbox[3]);
    }
  });

  it('completeness: three pages found and emitted, the blank one empty; no tables kind outside Advanced', async () => {
    const { outcome } = await run(doc, { pdfMode: 'SingleColumn' });
    expect(outcome.completeness).toEqual({ complete: true, pages: { found: 3, emitted: 3, empty: 1, failed: 0, skipped: 0, gaps: [] } });
  });

  it('Advanced: each block has its words with boxes inside the block’s box, in reading order; tables counted', async () => {
    const { content, outcome } = await run(doc, { pdfMode: 'Advanced' }, WITHIN);
    let words = 0;
    for (const p of content.pages) {
      for (const b of p.blocks) {
        expect(b.words.map((w: any) => w.text).join(' ')).toBe(b.text);
        for (const w of b.words) {
          words++;
          expect(w.bbox[0]).toBeGreaterThanOrEqual(b.bbox[0] - 0.01);
          expect(w.bbox[2]).toBeLessThanOrEqual(b.bbox[2] + 0.01);
          expect(w.bbox[1]).toBeGreaterThanOrEqual(b.bbox[1] - 0.01);
          expect(w.bbox[3]).toBeLessThanOrEqual(b.bbox[3] + 0.01);
        }
        // Left to right on a line.
        for (let k = 1; k < b.words.length; k++)
          if (b.words[k].bbox[1] === b.words[k - 1].bbox[1]) expect(b.words[k].bbox[0]).toBeGreaterThan(b.words[k - 1].bbox[2]);
      }
    }
    expect(words).toBe(17);
    expect(outcome.completeness!.tables).toEqual({ found: 0, emitted: 0, empty: 0, failed: 0, skipped: 0, gaps: [] });
  });

  it('a ruled table: the table and each cell placed on their boxes (Advanced)', async () => {
    // A 2 × 2 grid of ruling lines with a word in each cell.
    const grid = '0.5 w 100 600 m 300 600 l S 100 640 m 300 640 l S 100 680 m 300 680 l S 100 600 m 100 680 l S 200 600 m 200 680 l S 300 600 m 300 680 l S';
    const cells = 'BT /F1 12 Tf 110 655 Td (Name) Tj 100 0 Td (Total) Tj -100 -40 Td (Alpha) Tj 100 0 Td (42) Tj ET';
    const { content, outcome } = await run(pagesPdf([{ content: `${grid} ${cells}` }]), { pdfMode: 'Advanced' }, WITHIN);
    const tables = content.pages[0].tables;
    expect(tables.length).toBe(1);
    expect(outcome.completeness!.tables!.found).toBe(1);
    const t = tables[0];
    expect(t.provenance).toEqual({ ...WITHIN, page: 1, box: t.bbox });
    expect(t.bbox).toEqual([100, 112, 300, 192]);
    for (const c of t.cells) expect(c.provenance).toEqual({ ...WITHIN, page: 1, box: c.bbox });
  });
});

describe('PDF completeness: failed pages', () => {
  it('a page OCR cannot read is failed with the reason, not empty; the others are emitted', async () => {
    const doc = pagesPdf([{ content: text(['A page with enough text on it to skip OCR.']) }, { content: '0 0 m 0 0 l S', width: 0.1, height: 0.1 }]);
    const { content, outcome } = await run(doc, { pdfMode: 'Ocr' }, WITHIN);
    expect(content.pages.length).toBe(2);
    expect(content.pages[1].blocks).toEqual([]);
    expect(outcome.completeness).toEqual({
      complete: false,
      pages: {
        found: 2,
        emitted: 1,
        empty: 0,
        failed: 1,
        skipped: 0,
        gaps: [{ outcome: 'failed', reason: 'OCR failed: the page has no area to read.', provenance: { ...WITHIN, page: 2 } }],
      },
    });
    expect(outcome.warnings).toContain('OCR failed on page 2: the page has no area to read');
    // Not also reported as a page where OCR found nothing.
    expect(outcome.warnings.join('\n')).not.toMatch(/no text found/);
  });
});
