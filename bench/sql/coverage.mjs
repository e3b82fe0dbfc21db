// Parse coverage of the corpus statements per dialect: each statement (as our splitter cuts
// it) offered to each parser alone, and to the chain the service uses (first that accepts).
// Usage: npx tsc -p tsconfig.json && node bench/sql/coverage.mjs [--fails=Snowflake]
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { init, parse } from '@guanmingchiu/sqlparser-ts';
import { loadPostgres, splitGeneric, splitPostgres } from '../../dist/formats/sql/index.js';
import { SqlEngines } from '../../dist/formats/sql/engines.js';
import { corpusDir } from '../../test/helpers/corpus-dir.mjs';

const require = createRequire(import.meta.url);
const corpus = corpusDir('sql');
const rows = fs.readFileSync(path.join(corpus, 'MANIFEST.tsv'), 'utf8').trim().split('\n').slice(1).map((l) => l.split('\t'));
const DIALECTS = { postgresql: 'PostgreSql', transactsql: 'MsSql', snowflake: 'Snowflake', mysql: 'MySql' };
const NSP = { MsSql: ['transactsql', 'TransactSQL'], Snowflake: ['snowflake', 'Snowflake'], MySql: ['mysql', 'MySQL'] };
const SP = { MsSql: 'mssql', Snowflake: 'snowflake', MySql: 'mysql' };
const showFails = (process.argv.find((a) => a.startsWith('--fails=')) ?? '').split('=')[1];
await init();
await loadPostgres();

console.log('| dialect | statements | node-sql-parser alone | sqlparser-rs alone | service (first that accepts) | by parser |');
console.log('|:--|--:|--:|--:|--:|:--|');
for (const [key, dialect] of Object.entries(DIALECTS)) {
  const statements = [];
  for (const r of rows.filter((x) => x[4] === key)) {
    const text = fs.readFileSync(path.join(corpus, r[0]), 'utf8');
    const split = dialect === 'PostgreSql' ? splitPostgres(text) : splitGeneric(text, dialect);
    for (const s of split.statements) statements.push({ file: r[0], sql: text.slice(s.start, s.end), psqlCopy: s.psqlCopy, innerEnds: (s.inner ?? []).map((x) => x.end - s.start) });
  }
  const engines = await SqlEngines.forDialect(dialect);
  let nsp = 0;
  let sp = 0;
  let chain = 0;
  const by = {};
  const fails = [];
  const nspParser = NSP[dialect] ? new (require(`node-sql-parser/build/${NSP[dialect][0]}.js`).Parser)() : null;
  for (const st of statements) {
    if (nspParser) try { nspParser.parse(st.sql, { database: NSP[dialect][1] }); nsp++; } catch { /* rejected */ }
    if (SP[dialect]) try { if (parse(st.sql, SP[dialect]).length === 1) sp++; } catch { /* rejected */ }
    const r = engines.parse(st.sql, st.psqlCopy, st.innerEnds);
    if (r.parseStatus === 'parsed') {
      chain++;
      by[r.parser] = (by[r.parser] ?? 0) + 1;
    } else fails.push(`${st.file}: ${st.sql.slice(0, 160).replace(/\s+/g, ' ')}\n    ${r.parseError?.message ?? ''}`);
  }
  const pct = (n) => `${((n / statements.length) * 100).toFixed(1)}%`;
  console.log(`| ${dialect} | ${statements.length} | ${nspParser ? pct(nsp) : '–'} | ${SP[dialect] ? pct(sp) : '–'} | **${pct(chain)}** | ${Object.entries(by).map(([k, v]) => `${k}: ${v}`).join('; ')} |`);
  if (showFails === dialect) console.error(fails.join('\n'));
}
