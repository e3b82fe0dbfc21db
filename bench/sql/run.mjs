// SQL family throughput per dialect: the service's parser (streamed split, each statement
// offered to the dialect's parsers in turn, type, tables/columns, inner statements, artifact
// streamed to disk exactly as the worker does) against each bare parser alone on the same
// statements (our split's statement texts, parse only, nothing written; --no-antlr leaves out
// the slow antlr4ts-sql grammars, which the service only reaches for statements the others reject). Input: the corpus
// files of each dialect concatenated, repeated --copies times. Medians of --repeats runs,
// configurations alternated.
// Usage: npx tsc -p tsconfig.json && node bench/sql/run.mjs [--repeats=5] [--copies=4] [--dist=DIR]
// (--dist: another build, e.g. the commit before a change, built with `npx tsc --outDir DIR`).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import * as pg from 'libpg-query';
import { init, parse as sqlparserParse } from '@guanmingchiu/sqlparser-ts';
import * as polyglot from '@polyglot-sql/sdk';
import { pathToFileURL } from 'node:url';
import { corpus, rows } from './corpus.mjs';

const require = createRequire(import.meta.url);
const arg = (n, d) => Number((process.argv.find((a) => a.startsWith(`--${n}=`)) ?? '').split('=')[1] || d);
const dist = path.resolve((process.argv.find((a) => a.startsWith('--dist=')) ?? '').split('=')[1] || new URL('../../dist', import.meta.url).pathname);
const { writeArtifact } = await import(pathToFileURL(path.join(dist, 'pipeline/thread.js')).href);
const { loadPostgres, parseSql, splitGeneric, splitPostgres } = await import(pathToFileURL(path.join(dist, 'formats/sql/index.js')).href);
const REPEATS = arg('repeats', 5);
const COPIES = arg('copies', 4);
const DIALECTS = {
  postgresql: { dialect: 'PostgreSql', bare: { 'libpg-query': (s) => pg.parseSync(s) } },
  transactsql: { dialect: 'MsSql', sp: 'mssql', nsp: ['transactsql', 'TransactSQL'], antlr: 'TSQL' },
  snowflake: { dialect: 'Snowflake', sp: 'snowflake', nsp: ['snowflake', 'Snowflake'], polyglot: 'Snowflake' },
  mysql: { dialect: 'MySql', sp: 'mysql', nsp: ['mysql', 'MySQL'], antlr: 'MYSQL' },
};

/** antlr4ts-sql alone: the grammar's parse tree with SLL prediction (as the service runs it). */
function antlrBare(grammar) {
  require('antlr4ts');
  const { antlr4tsSQL, SQLDialect } = require('antlr4ts-sql');
  const { PredictionMode } = require('antlr4ts/atn/PredictionMode');
  const a = new antlr4tsSQL(SQLDialect[grammar]);
  const fail = {
    syntaxError: () => {
      throw new Error('syntax');
    },
  };
  return (s) => {
    const tokens = a.getTokens(s, [fail]);
    const p = a.getParser(tokens, [fail]);
    // As the service reads MySQL: lexer and parser both at 8.0.21.
    if (grammar === 'MYSQL') tokens.tokenSource.serverVersion = p.serverVersion = 80021;
    p.interpreter.setPredictionMode(PredictionMode.SLL);
    return a.getParseTree(p);
  };
}
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dp-bench-sql-'));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
await init();
await loadPostgres();

async function ours(file, dialect) {
  const t0 = performance.now();
  const r = await writeArtifact(
    {
      documentId: 'b',
      fileName: 'b.sql',
      format: 'sql',
      options: { sqlDialect: dialect },
      customMetadata: null,
      inputPath: file,
      artifactPath: path.join(tmp, 'a.json'),
      tempDir: tmp,
    },
    async () => parseSql,
  );
  const ms = performance.now() - t0;
  if (!r.ok) throw new Error(r.message);
  return { ms, statements: r.documentUnits };
}

function bare(statements, fn) {
  const t0 = performance.now();
  let parsed = 0;
  for (const s of statements) {
    try {
      fn(s);
      parsed++;
    } catch {
      /* rejected */
    }
  }
  return { ms: performance.now() - t0, statements: statements.length, parsed };
}

const out = [];
for (const [key, cfg] of Object.entries(DIALECTS)) {
  const files = rows.filter((r) => r[4] === key).map((r) => r[0]);
  const sep = cfg.dialect === 'MsSql' ? '\nGO\n' : '\n;\n';
  const text = Array(COPIES)
    .fill(files.map((f) => fs.readFileSync(path.join(corpus, f), 'utf8')).join(sep))
    .join(sep);
  const file = path.join(tmp, `${cfg.dialect}.sql`);
  fs.writeFileSync(file, text);
  const split = cfg.dialect === 'PostgreSql' ? splitPostgres(text) : splitGeneric(text, cfg.dialect);
  const statements = split.statements.map((s) => (s.psqlCopy ? text.slice(s.start + 1, s.end) : text.slice(s.start, s.end)));
  const bareFns = { ...(cfg.bare ?? {}) };
  if (cfg.sp) bareFns[`sqlparser-rs (${cfg.sp})`] = (s) => sqlparserParse(s, cfg.sp);
  if (cfg.nsp) {
    const p = new (require(`node-sql-parser/build/${cfg.nsp[0]}.js`).Parser)();
    bareFns[`node-sql-parser (${cfg.nsp[1]})`] = (s) => p.parse(s, { database: cfg.nsp[1] });
  }
  if (cfg.polyglot)
    bareFns[`polyglot-sql (${cfg.polyglot})`] = (s) => {
      if (!polyglot.parse(s, polyglot.Dialect[cfg.polyglot]).success) throw new Error('rejected');
    };
  if (cfg.antlr && !process.argv.includes('--no-antlr')) bareFns[`antlr4ts-sql (${cfg.antlr})`] = antlrBare(cfg.antlr);
  const runs = { ours: [] };
  for (const k of Object.keys(bareFns)) runs[k] = [];
  for (let i = 0; i < REPEATS; i++) {
    const o = await ours(file, cfg.dialect);
    runs.ours.push((o.statements / o.ms) * 1000);
    for (const [k, fn] of Object.entries(bareFns)) {
      const b = bare(statements, fn);
      runs[k].push((b.statements / b.ms) * 1000);
      runs[`${k}#parsed`] = b.parsed;
    }
    process.stderr.write(`${cfg.dialect} run ${i + 1}: ours ${o.statements} st in ${o.ms.toFixed(0)} ms\n`);
  }
  out.push({ dialect: cfg.dialect, mb: Buffer.byteLength(text) / 1048576, statements: statements.length, runs });
}
console.log(
  '| dialect | MB | statements | service: statements/s (median) | bare parser: statements/s (median), share it parses alone | service / fastest bare |',
);
console.log('|:--|--:|--:|--:|:--|--:|');
for (const r of out) {
  const bares = Object.keys(r.runs).filter((k) => k !== 'ours' && !k.endsWith('#parsed'));
  const oursRate = median(r.runs.ours);
  const fastest = Math.max(...bares.map((k) => median(r.runs[k])));
  const cells = bares.map((k) => `${k}: ${median(r.runs[k]).toFixed(0)} (${((r.runs[`${k}#parsed`] / r.statements) * 100).toFixed(1)}%)`).join('; ');
  console.log(`| ${r.dialect} | ${r.mb.toFixed(2)} | ${r.statements} | ${oursRate.toFixed(0)} | ${cells} | ${(oursRate / fastest).toFixed(2)} |`);
}
fs.rmSync(tmp, { recursive: true, force: true });
