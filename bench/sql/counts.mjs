// Statement counts of every SQL corpus file against its MANIFEST (prints a markdown table).
// Usage: npm run build && node bench/sql/counts.mjs
import fs from 'node:fs';
import path from 'node:path';
import { loadPostgres, normalizeDialect, splitGeneric, splitPostgres } from '../../dist/formats/sql/index.js';
import { corpus, rows, MANIFEST_DIALECTS } from './corpus.mjs';

const map = MANIFEST_DIALECTS;
await loadPostgres();
console.log('| file | dialect | MANIFEST | ours |\n|:--|:--|--:|--:|');
for (const [file, , , , d, count] of rows) {
  const dialect = normalizeDialect(map[d]);
  const text = fs.readFileSync(path.join(corpus, file), 'utf8');
  const n = (dialect === 'PostgreSql' ? splitPostgres(text) : splitGeneric(text, dialect)).statements.length;
  console.log(`| ${file} | ${dialect} | ${count} | ${n} |`);
}
