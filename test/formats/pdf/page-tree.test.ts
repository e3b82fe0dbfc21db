// Pages that exist are the pages billed (issue 27): a page tree that names one page object
// many times, declares a /Count above its entries, or names a Pages node again holds one page
// per page object. Each is read, written and billed once, in every mode; what the tree
// claimed is in the warnings and metadata.pageTree. The PDFs are written by the fuzzer's
// generators (bench/fuzz/generators/pdf-lies.mjs).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parsedOk, pageTexts } from './helpers.js';
import {
  countAboveLongTreePdf,
  countAbovePagesPdf,
  repeatAmongPagesPdf,
  repeatedPagePdf,
  repeatedSubtreePdf,
  // @ts-expect-error plain .mjs module shared with the fuzzer
} from '../../../bench/fuzz/generators/pdf-lies.mjs';

vi.setConfig({ testTimeout: 120_000 });

let dir: string;
const files: Record<string, string> = {};

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dp-page-tree-'));
  const pdfs: Record<string, Buffer> = {
    repeated: repeatedPagePdf(30_000),
    among: repeatAmongPagesPdf(),
    count: countAbovePagesPdf(30_000),
    longTree: countAboveLongTreePdf(100_000),
    subtree: repeatedSubtreePdf(),
  };
  for (const [name, bytes] of Object.entries(pdfs)) {
    files[name] = path.join(dir, `${name}.pdf`);
    await fs.writeFile(files[name], bytes);
  }
});
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe('a page tree that names one page object 30,000 times', () => {
  it('is a 180 KB file', async () => {
    const { size } = await fs.stat(files.repeated);
    expect(size).toBeGreaterThan(170_000);
    expect(size).toBeLessThan(190_000);
  });

  it.each(['SingleColumn', 'MultiColumn', 'Advanced', 'Ocr'])('%s: one page read, written and billed', async (pdfMode) => {
    const a = await parsedOk(files.repeated, { pdfMode });
    expect(a.documentUnits).toBe(1);
    expect(a.content.pageCount).toBe(1);
    expect(a.content.pages.map((p: { number: number }) => p.number)).toEqual([1]);
    expect(pageTexts(a)[0]).toContain('The only page');
    expect(a.metadata.pageCount).toBe(1);
    expect(a.metadata.pageTree).toEqual({ entries: 30_000, repeated: 29_999, missing: 0 });
    expect(a.warnings).toContain(
      'the page tree lists 30000 pages but holds 1 distinct page object: 29999 entries name a page already listed; each page is read and billed once (page numbers are positions in the tree)',
    );
    // Not 30,000 copies of the page (8.7 MB before).
    expect(JSON.stringify(a).length).toBeLessThan(8_000);
  });
});

describe('other page trees that claim more than they hold', () => {
  it('a page named twice among real pages: three pages billed, numbered by their place in the tree, the repeat left out', async () => {
    const a = await parsedOk(files.among, { pdfMode: 'SingleColumn' });
    expect(a.documentUnits).toBe(3);
    expect(a.content.pages.map((p: { number: number }) => p.number)).toEqual([1, 2, 4]);
    expect(pageTexts(a).map((t) => t.trim())).toEqual(['Page one', 'Page two', 'Page three']);
    expect(a.metadata.pageTree).toEqual({ entries: 4, repeated: 1, missing: 0 });
  });

  it('a /Count of 30,000 over one page: one page, and no empty pages in the result', async () => {
    const a = await parsedOk(files.count, { pdfMode: 'SingleColumn' });
    expect(a.documentUnits).toBe(1);
    expect(a.content.pages).toHaveLength(1);
    expect(a.metadata.pageTree).toEqual({ entries: 30_000, repeated: 0, missing: 29_999 });
    expect(a.warnings[0]).toMatch(/^the page tree lists 30000 pages but holds 1 distinct page object: 29999 entries name no page;/);
  });

  it('a /Count of a million over 100,000 entries: the tree is read to its end, not a million times', async () => {
    const a = await parsedOk(files.longTree, { pdfMode: 'SingleColumn' });
    expect(a.documentUnits).toBe(1);
    expect(a.metadata.pageTree).toEqual({ entries: 1_000_000, repeated: 99_999, missing: 900_000 });
  });

  it('a Pages node named three times: its two pages once', async () => {
    const a = await parsedOk(files.subtree, { pdfMode: 'Advanced' });
    expect(a.documentUnits).toBe(2);
    expect(pageTexts(a).map((t) => t.trim())).toEqual(['Left page', 'Right page']);
    expect(a.metadata.pageTree).toEqual({ entries: 6, repeated: 4, missing: 0 });
  });
});
