// The SQL corpus as the SQL benches read it: its folder, the MANIFEST's rows (file, …, the
// MANIFEST's dialect key in column 5, its statement count in column 6), and which of our
// sqlDialect values each MANIFEST key is.
import fs from 'node:fs';
import path from 'node:path';
import { corpusDir } from '../../test/helpers/corpus-dir.mjs';

export const corpus = corpusDir('sql');

export const rows = fs
  .readFileSync(path.join(corpus, 'MANIFEST.tsv'), 'utf8')
  .trim()
  .split('\n')
  .slice(1)
  .map((l) => l.split('\t'));

/** MANIFEST dialect key → sqlDialect. */
export const MANIFEST_DIALECTS = { postgresql: 'PostgreSql', transactsql: 'MsSql', snowflake: 'Snowflake', mysql: 'MySql' };
