// Where the real-files corpus is: the one setting every test and bench reads it through.
// $DOCPARSE_CORPUS_DIR, else the folder `shared/corpus` beside the repository. It is not part
// of the repository: a clone without it still passes (test/vitest.config.ts).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export const CORPUS_DIR = process.env.DOCPARSE_CORPUS_DIR ? path.resolve(process.env.DOCPARSE_CORPUS_DIR) : path.resolve(repoRoot, '..', 'shared', 'corpus');

export const CORPUS_AVAILABLE = existsSync(CORPUS_DIR);

/** A family's folder of the corpus, e.g. corpusDir('pdf'). */
export function corpusDir(family) {
  return path.join(CORPUS_DIR, family);
}
