// Where the SQL corpus is: the corpus's sql folder (test/helpers/corpus-dir.mjs). Tests that
// need it skip when it is absent, so a fresh clone without the corpus still passes.
import fs from 'node:fs';
import path from 'node:path';
import { corpusDir } from '../../helpers/corpus-dir.mjs';

export const SQL_CORPUS = corpusDir('sql');
export const hasSqlCorpus = fs.existsSync(path.join(SQL_CORPUS, 'MANIFEST.tsv'));

export function sqlCorpusFile(name: string): string {
  return path.join(SQL_CORPUS, name);
}

/** MANIFEST.tsv rows keyed by its header; [] without the corpus. */
export function sqlManifest(): Record<string, string>[] {
  if (!hasSqlCorpus) return [];
  const [head, ...rows] = fs
    .readFileSync(path.join(SQL_CORPUS, 'MANIFEST.tsv'), 'utf8')
    .split('\n')
    .filter((l) => l.trim());
  const cols = head.split('\t');
  return rows.map((r) => Object.fromEntries(r.split('\t').map((v, i) => [cols[i], v])));
}

export interface TsqlTruth {
  index: number;
  start: string;
  end: string;
  batch: number;
  repeat: number | null;
  inner: number;
  head: string;
}

/** The hand-checked T-SQL statement list (fixtures/tsql-statements.tsv), by corpus file. */
export function tsqlTruth(): Map<string, TsqlTruth[]> {
  const file = path.join(path.dirname(new URL(import.meta.url).pathname), 'fixtures', 'tsql-statements.tsv');
  const out = new Map<string, TsqlTruth[]>();
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const [name, index, start, end, batch, repeat, inner, head] = line.split('\t');
    const list = out.get(name) ?? [];
    list.push({ index: Number(index), start, end, batch: Number(batch), repeat: repeat ? Number(repeat) : null, inner: Number(inner), head });
    out.set(name, list);
  }
  return out;
}
