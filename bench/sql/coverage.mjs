// Parse coverage of the corpus statements per dialect: each statement (as our splitter cuts
// it) offered to each of the dialect's parsers alone, and to the chain the service uses (first
// that accepts, with the T-SQL ';' retry). --fails=MsSql lists what no parser accepts, grouped
// by the statement's leading keywords, with the first parser's error for each.
// Usage: npx tsc -p tsconfig.json && node bench/sql/coverage.mjs [--fails=Snowflake]
import fs from 'node:fs';
import path from 'node:path';
import { loadPostgres, splitGeneric, splitPostgres } from '../../dist/formats/sql/index.js';
import { SqlEngines } from '../../dist/formats/sql/engines.js';
import { corpus, rows, MANIFEST_DIALECTS } from './corpus.mjs';

const DIALECTS = MANIFEST_DIALECTS;
const showFails = (process.argv.find((a) => a.startsWith('--fails=')) ?? '').split('=')[1];
await loadPostgres();

/** "CREATE OR REPLACE TASK x …" → "CREATE TASK": the kind of statement, from its first words (comments skipped). */
function kind(sql) {
  const words = sql.replace(/\/\*[\s\S]*?\*\/|--[^\n]*|#[^\n]*|\bdefiner\s*=\s*\S+/gi, ' ').match(/[A-Za-z_]+/g) ?? [];
  const w = words
    .slice(0, 6)
    .map((x) => x.toUpperCase())
    .filter((x) => !['OR', 'REPLACE', 'IF', 'NOT', 'EXISTS', 'SECURE', 'TRANSIENT', 'TEMPORARY', 'DEFINER', 'CURRENT_USER'].includes(x));
  return /^(CREATE|ALTER|DROP|DESCRIBE|SHOW|GRANT|REVOKE)$/.test(w[0]) ? w.slice(0, 2).join(' ') : (w[0] ?? '?');
}

console.log('| dialect | statements | each parser alone | service (first that accepts) | by parser |');
console.log('|:--|--:|:--|--:|:--|');
for (const [key, dialect] of Object.entries(DIALECTS)) {
  const statements = [];
  for (const r of rows.filter((x) => x[4] === key)) {
    const text = fs.readFileSync(path.join(corpus, r[0]), 'utf8');
    const split = dialect === 'PostgreSql' ? splitPostgres(text) : splitGeneric(text, dialect);
    for (const s of split.statements)
      statements.push({ file: r[0], sql: text.slice(s.start, s.end), psqlCopy: s.psqlCopy, innerEnds: (s.inner ?? []).map((x) => x.end - s.start) });
  }
  const engines = await SqlEngines.forDialect(dialect);
  const alone = engines.names().map(() => 0);
  let chain = 0;
  const by = {};
  const fails = new Map();
  for (const st of statements) {
    const text = st.psqlCopy ? st.sql.slice(1) : st.sql;
    engines.acceptsAlone(text).forEach((ok, i) => (alone[i] += ok ? 1 : 0));
    const r = engines.parse(st.sql, st.psqlCopy, st.innerEnds);
    if (r.parseStatus === 'parsed') {
      chain++;
      by[r.parser] = (by[r.parser] ?? 0) + 1;
    } else {
      const k = kind(st.sql);
      fails.set(k, [...(fails.get(k) ?? []), `${st.file}: ${st.sql.slice(0, 140).replace(/\s+/g, ' ')}\n      ${(r.parseError?.message ?? '').slice(0, 160)}`]);
    }
  }
  const pct = (n) => `${((n / statements.length) * 100).toFixed(1)}%`;
  const aloneCells = engines
    .names()
    .map((n, i) => `${n}: ${pct(alone[i])}`)
    .join('; ');
  console.log(
    `| ${dialect} | ${statements.length} | ${aloneCells} | **${pct(chain)}** (${chain}) | ${Object.entries(by)
      .map(([k, v]) => `${k}: ${v}`)
      .join('; ')} |`,
  );
  if (showFails === dialect) {
    const groups = [...fails.entries()].sort((a, b) => b[1].length - a[1].length);
    console.error(`${dialect}: ${statements.length - chain} statements no parser accepts`);
    for (const [k, list] of groups) console.error(`  ${list.length} × ${k}\n    ${list.join('\n    ')}`);
  }
}
