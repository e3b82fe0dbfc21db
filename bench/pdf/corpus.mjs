// The PDF corpus as the benches read it: the corpus's pdf folder (test/helpers/corpus-dir.mjs) and its MANIFEST.tsv.
import fs from 'node:fs';
import path from 'node:path';
import { corpusDir } from '../../test/helpers/corpus-dir.mjs';

export const CORPUS = corpusDir('pdf');

/** MANIFEST.tsv rows: [file, …, what, pages] as strings. */
export const manifestRows = () =>
  fs
    .readFileSync(path.join(CORPUS, 'MANIFEST.tsv'), 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => l.split('\t'));

/** The text PDFs the speed benches time: the corpus minus encrypted, unreadable and scanned files. */
export const textPdfs = () =>
  manifestRows()
    .filter(([, , , , what, pages]) => !(pages === 'unreadable' || /^Encrypted|^Ocr/.test(what)))
    .map(([file, , , , , pages]) => ({ file, pages: Number(pages) }));
