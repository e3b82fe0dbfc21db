// The step the page of each word-processing block adds to a parse: reading the text of the PDF
// LibreOffice already rendered for the page count (PDFium) and locating text in it. The PDFs
// are rendered once, outside the timing; each file is timed 5 times and the median printed.
// Runs the compiled parsers in dist/ (`npx tsc -p tsconfig.json` first).
//   node bench/office/word-pages.mjs [file.docx …]   (default: the corpus's longest DOCX files)
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { corpusDir } from '../../test/helpers/corpus-dir.mjs';

const ROOT = path.resolve(import.meta.dirname, '../..');
const imp = (p) => import(pathToFileURL(path.join(ROOT, p)).href);
const { convert, libreOfficeRun } = await imp('dist/formats/office/libreoffice.js');
const { renderedPageTexts } = await imp('dist/formats/office/rendered-text.js');
const { PageLocator } = await imp('dist/formats/office/page-locator.js');
const { loadConfig } = await imp('dist/config.js');

const settings = loadConfig({ PATH: process.env.PATH ?? '' }).parsers;
const files = process.argv.slice(2).length
  ? process.argv.slice(2)
  : ['officeparser__test.docx', 'tika__018367.docx', 'tika__017097.docx', 'tika__testWORD_endnote_table.docx', 'tika__testWORD_2006ml.docx'];
const work = mkdtempSync(path.join(os.tmpdir(), 'word-pages-'));
const rows = [];
try {
  for (const file of files) {
    const pdf = (await convert(path.join(corpusDir('office'), file), 'pdf', path.join(work, file), libreOfficeRun(settings))).outputPath;
    const times = [];
    let pages = 0;
    for (let r = 0; r < 5; r++) {
      const t0 = performance.now();
      const texts = await renderedPageTexts(pdf, settings.pdf.optimizedPdfium);
      // Every line of the layout located in order: more searches than a document has blocks.
      const locator = new PageLocator(texts);
      for (const t of texts) for (const line of t.split('\n')) locator.locate(line);
      times.push(performance.now() - t0);
      pages = texts.length;
    }
    const median = times.sort((a, b) => a - b)[2];
    rows.push({ file, pages, medianMs: +median.toFixed(1), msPerPage: +(median / pages).toFixed(2) });
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
console.table(rows);
