// Table cell-level accuracy on the table files (Advanced mode): for each detected cell, the
// text we put in it vs the words poppler (pdftotext -bbox) finds inside the same rectangle.
// usage: node bench/pdf/tables.mjs
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeArtifact } from '../../dist/pipeline/thread.js';
import { parsePdf } from '../../dist/formats/pdf/index.js';
import { corpusDir } from '../../test/helpers/corpus-dir.mjs';

export const TABLE_FILES = [
  ['camelot__column_span_1.pdf', true],
  ['pdfplumber__nics-background-checks-2015-11.pdf', true],
  ['pdfplumber__nics-background-checks-2015-11-rotated.pdf', true],
  ['camelot__eu-001.pdf', true],
  ['camelot__birdisland.pdf', false],
];

function popplerWords(fp) {
  const html = execFileSync('pdftotext', ['-bbox', fp, '-'], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const pages = [];
  for (const pg of html.split('<page ').slice(1)) {
    const words = [];
    for (const m of pg.matchAll(/<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<\/word>/g)) {
      words.push({
        x: (Number(m[1]) + Number(m[3])) / 2,
        y: (Number(m[2]) + Number(m[4])) / 2,
        t: m[5]
          .replace(/&amp;/g, '&')
          .replace(/&lt;/g, '<')
          .replace(/&gt;/g, '>')
          .replace(/&quot;/g, '"')
          .replace(/&apos;/g, "'"),
      });
    }
    pages.push(words);
  }
  return pages;
}

const norm = (s) => s.normalize('NFKC').replace(/\s+/g, '');

/** Returns { cells, correct, accuracy, tables } for one file. */
export async function tableAccuracy(file, corpus = corpusDir('pdf')) {
  const fp = path.join(corpus, file);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pdft-'));
  const out = path.join(dir, 'a.json');
  await writeArtifact(
    { documentId: 't', fileName: file, format: 'pdf', options: { pdfMode: 'Advanced' }, customMetadata: null, inputPath: fp, artifactPath: out, tempDir: dir },
    async () => parsePdf,
  );
  const a = JSON.parse(fs.readFileSync(out, 'utf8'));
  fs.rmSync(dir, { recursive: true, force: true });
  const words = popplerWords(fp);
  let cells = 0,
    correct = 0,
    tables = 0;
  a.content.pages.forEach((p, i) => {
    for (const t of p.tables ?? []) {
      tables++;
      for (const c of t.cells) {
        const [x0, y0, x1, y1] = c.bbox;
        const ref = words[i]
          .filter((w) => w.x >= x0 && w.x <= x1 && w.y >= y0 && w.y <= y1)
          .map((w) => w.t)
          .join(' ');
        if (!norm(ref) && !norm(c.text)) continue; // empty in both: not counted
        cells++;
        if (norm(ref) === norm(c.text)) correct++;
      }
    }
  });
  return { file, tables, cells, correct, accuracy: cells ? correct / cells : 0, artifact: a };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const [file, ruled] of TABLE_FILES) {
    const r = await tableAccuracy(file);
    console.log([file, ruled ? 'ruled' : 'unruled', `tables=${r.tables}`, `cells=${r.cells}`, `accuracy=${r.accuracy.toFixed(3)}`].join('\t'));
  }
}
