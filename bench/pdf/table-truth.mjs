// Table cell accuracy against recorded truth (Advanced mode). A truth file lists each table as
// its grid of cell texts (a spanning cell's text in its first column, "" in the columns it
// covers). Our tables are read as logical tables first: a table continued on the next page
// (continuesOn) is joined with its continuation. Each truth table is matched with the logical
// table that shares most cell texts with it; its rows are mapped in order to the rows holding
// most of their texts, its columns to the columns holding most of theirs. Score: of the cells
// non-empty in the truth or in our mapped cell, those whose texts are equal
// (whitespace-insensitive, NFKC). A truth row we did not find counts all its cells wrong.
// usage: node bench/pdf/table-truth.mjs [file.pdf truth.json]...   (default: the generated set
// and the corpus's camelot birdisland)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeArtifact } from '../../dist/pipeline/thread.js';
import { parsePdf } from '../../dist/formats/pdf/index.js';
import { corpusDir } from '../../test/helpers/corpus-dir.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const GENERATED_DIR = path.resolve(HERE, '../../test/formats/pdf/fixtures/tables');
export const TRUTH_DIR = path.join(HERE, 'truth');

const norm = (s) => s.normalize('NFKC').replace(/\s+/g, '');

/** Our tables joined across pages: arrays of rows of cell texts. */
export function logicalTables(artifact) {
  const byId = new Map();
  for (const p of artifact.content.pages) for (const t of p.tables ?? []) byId.set(t.id, t);
  const out = [];
  for (const t of byId.values()) {
    if (t.continuedFrom && byId.has(t.continuedFrom)) continue;
    const rows = [];
    for (let cur = t; cur; cur = cur.continuesOn ? byId.get(cur.continuesOn) : null) {
      const grid = Array.from({ length: cur.rows }, () => Array(cur.columns).fill(''));
      for (const c of cur.cells) grid[c.row][c.col] = c.text;
      rows.push(...grid);
    }
    out.push({ id: t.id, rows });
  }
  return out;
}

/** Cell accuracy of `pred` (rows of texts) against `truth` (rows of texts). */
export function gridAccuracy(truth, pred) {
  const T = truth.map((r) => r.map(norm)),
    P = pred.map((r) => r.map(norm));
  // Rows, in order: each truth row to the next unused predicted row sharing most texts.
  const rowMap = [];
  let from = 0;
  for (const tr of T) {
    const want = new Map();
    for (const x of tr) if (x) want.set(x, (want.get(x) ?? 0) + 1);
    let best = -1,
      bestScore = 0;
    for (let i = from; i < P.length; i++) {
      const have = new Map(want);
      let s = 0;
      for (const x of P[i])
        if (x && have.get(x)) {
          s++;
          have.set(x, have.get(x) - 1);
        }
      if (s > bestScore) {
        bestScore = s;
        best = i;
      }
    }
    rowMap.push(best);
    if (best >= 0) from = best + 1;
  }
  // Columns: each truth column to the predicted column agreeing with it most over mapped rows.
  const C = Math.max(...T.map((r) => r.length));
  const PC = Math.max(0, ...P.map((r) => r.length));
  const colMap = [];
  for (let c = 0; c < C; c++) {
    let best = -1,
      bestScore = 0;
    for (let k = 0; k < PC; k++) {
      let s = 0;
      T.forEach((tr, r) => {
        if (rowMap[r] >= 0 && tr[c] && P[rowMap[r]][k] === tr[c]) s++;
      });
      if (s > bestScore) {
        bestScore = s;
        best = k;
      }
    }
    colMap.push(best);
  }
  let cells = 0,
    correct = 0;
  T.forEach((tr, r) => {
    for (let c = 0; c < C; c++) {
      const want = tr[c] ?? '';
      const got = rowMap[r] >= 0 && colMap[c] >= 0 ? (P[rowMap[r]][colMap[c]] ?? '') : '';
      if (!want && !got) continue;
      cells++;
      if (want === got) correct++;
    }
  });
  return { cells, correct, accuracy: cells ? correct / cells : 0 };
}

export async function parseAdvanced(fp) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pdftt-'));
  const out = path.join(dir, 'a.json');
  await writeArtifact(
    {
      documentId: 't',
      fileName: path.basename(fp),
      format: 'pdf',
      options: { pdfMode: 'Advanced' },
      customMetadata: null,
      inputPath: fp,
      artifactPath: out,
      tempDir: dir,
    },
    async () => parsePdf,
  );
  const a = JSON.parse(fs.readFileSync(out, 'utf8'));
  fs.rmSync(dir, { recursive: true, force: true });
  return a;
}

/** Scores one PDF against its truth file: per truth table and overall. */
export async function truthAccuracy(pdf, truthFile) {
  const truth = JSON.parse(fs.readFileSync(truthFile, 'utf8'));
  const artifact = await parseAdvanced(pdf);
  const ours = logicalTables(artifact);
  let cells = 0,
    correct = 0;
  const tables = truth.tables.map((t) => {
    let best = { cells: 0, correct: 0, accuracy: 0, id: null };
    for (const o of ours) {
      const r = gridAccuracy(t.rows, o.rows);
      if (r.correct > best.correct || best.id === null) best = { ...r, id: o.id };
    }
    if (!ours.length) best = { cells: t.rows.flat().filter((x) => norm(x)).length, correct: 0, accuracy: 0, id: null };
    cells += best.cells;
    correct += best.correct;
    return best;
  });
  return { file: path.basename(pdf), tables, found: ours.length, cells, correct, accuracy: cells ? correct / cells : 0, artifact };
}

/** The generated set: [pdf, truth] pairs. */
export function generatedSet() {
  return fs
    .readdirSync(GENERATED_DIR)
    .filter((f) => f.endsWith('.pdf'))
    .sort()
    .map((f) => [path.join(GENERATED_DIR, f), path.join(GENERATED_DIR, f.replace(/\.pdf$/, '.truth.json'))]);
}

/** Corpus files with truth in bench/pdf/truth: [pdf, truth] pairs. */
export function corpusSet(corpus = corpusDir('pdf')) {
  return fs
    .readdirSync(TRUTH_DIR)
    .filter((f) => f.endsWith('.truth.json'))
    .sort()
    .map((f) => [path.join(corpus, f.replace(/\.truth\.json$/, '.pdf')), path.join(TRUTH_DIR, f)]);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const pairs = args.length ? [[args[0], args[1]]] : [...generatedSet(), ...corpusSet().filter(([p]) => fs.existsSync(p))];
  let cells = 0,
    correct = 0;
  for (const [pdf, truth] of pairs) {
    const r = await truthAccuracy(pdf, truth);
    cells += r.cells;
    correct += r.correct;
    console.log(
      [
        r.file,
        `tables=${r.tables.length} found=${r.found}`,
        `cells=${r.cells}`,
        `accuracy=${r.accuracy.toFixed(3)}`,
        r.tables.map((t) => t.accuracy.toFixed(3)).join(' '),
      ].join('\t'),
    );
  }
  if (!args.length) console.log(`all\tcells=${cells}\taccuracy=${(correct / cells).toFixed(3)}`);
}
