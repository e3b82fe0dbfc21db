// The text layer's per-character pass (wasm/charpass, run inside PDFium's memory) on PDFs
// written here, for what the corpus does not pin down on its own: text drawn twice, pages
// larger than the scratch the thread keeps, and the thread's heap staying usable afterwards.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { onePagePdf, parsedOk, parsePdfFile, pageTexts } from './helpers.js';

vi.setConfig({ testTimeout: 120_000 });

let dir = '';
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'pdf-textlayer-'));
});
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

async function write(name: string, bytes: Buffer): Promise<string> {
  const file = path.join(dir, name);
  await fs.writeFile(file, bytes);
  return file;
}

describe('text layer', () => {
  it('a line drawn twice a fraction of a point apart (fake bold) comes out once', async () => {
    // The copy is split into two text objects: PDFium itself drops an object that repeats the
    // previous one whole, so this copy reaches the pass.
    const file = await write(
      'fake-bold.pdf',
      onePagePdf(
        'BT /F1 12 Tf 72 700 Td (Quarterly results improved) Tj ET\nBT /F1 12 Tf 72.4 700 Td (Quarterly) Tj ( results improved) Tj ET\nBT /F1 12 Tf 72 660 Td (Second line) Tj ET',
      ),
    );
    const a = await parsedOk(file, { pdfMode: 'SingleColumn' });
    expect(pageTexts(a)[0].replace(/\s+/g, ' ').trim()).toBe('Quarterly results improved Second line');
  });

  it('the same words drawn far apart are both kept', async () => {
    const file = await write('repeated.pdf', onePagePdf('BT /F1 12 Tf 72 700 Td (Total due) Tj ET\nBT /F1 12 Tf 72 600 Td (Total due) Tj ET'));
    const a = await parsedOk(file, { pdfMode: 'SingleColumn' });
    expect(pageTexts(a)[0].match(/Total due/g)).toHaveLength(2);
  });

  it('a page with more characters than the thread keeps scratch for (90,000) is read whole, and the next document still parses', async () => {
    // 900 lines of 100 characters at 4 pt: each line names its number, so loss or reordering shows.
    const lines: string[] = [];
    for (let i = 0; i < 900; i++) {
      const label = `L${String(i).padStart(4, '0')} `;
      lines.push(`BT /F1 4 Tf 10 ${3600 - i * 4} Td (${label}${'abcdefghij'.repeat(10).slice(label.length)}) Tj ET`);
    }
    const file = await write('big-page.pdf', onePagePdf(lines.join('\n'), 400, 3620));
    const a = await parsedOk(file, { pdfMode: 'SingleColumn' });
    const text = pageTexts(a)[0];
    const labels = text.match(/L\d{4}/g) ?? [];
    expect(labels).toHaveLength(900);
    expect(labels).toEqual(labels.map((_, i) => `L${String(i).padStart(4, '0')}`));
    expect(text.replace(/\s+/g, '').length).toBe(900 * 100 - 900);
    // The big page's scratch was given back to PDFium's heap; a corpus file parses as before.
    const r = await parsePdfFile('pdfplumber__scotus-transcript-p1.pdf', { pdfMode: 'SingleColumn' });
    expect(r.ok).toBe(true);
  });
});
