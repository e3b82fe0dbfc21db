// Prints statement counts per corpus file against the MANIFEST (dev aid and report source).
import fs from 'node:fs';
import path from 'node:path';
import { normalizeDialect, splitGeneric, splitPostgres, loadPostgres } from '../../src/formats/sql/index.js';

const root = process.argv[2] ?? '../shared/corpus/sql';
const rows = fs.readFileSync(path.join(root, 'MANIFEST.tsv'), 'utf8').trim().split('\n').slice(1).map((l) => l.split('\t'));
const map: Record<string, string> = { postgresql: 'PostgreSql', transactsql: 'MsSql', snowflake: 'Snowflake', mysql: 'MySql' };
await loadPostgres();
for (const r of rows) {
  const [file, , , , d, count] = r;
  const dialect = normalizeDialect(map[d] ?? d)!;
  const text = fs.readFileSync(path.join(root, file), 'utf8');
  const res = dialect === 'PostgreSql' ? splitPostgres(text) : splitGeneric(text, dialect as never);
  const n = res.statements.length;
  const want = Number(count.replace('~', ''));
  console.log(`${n === want ? 'OK ' : 'XX '}${file}\t${count}\t${n}\t${res.warnings.join('; ')}`);
}
