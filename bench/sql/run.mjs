// SQL family throughput per dialect: our parser (dialect-aware split + per-statement parse,
// artifact streamed to disk exactly as the worker does) against node-sql-parser alone (naive
// ';' split, each piece parsed with the dialect's grammar, nothing written). Input: the
// corpus files of each dialect concatenated, repeated --copies times.
// Usage: npm run build && node bench/sql/run.mjs [--repeats=3] [--copies=4]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { writeArtifact } from '../../dist/pipeline/thread.js';
import { parseSql } from '../../dist/formats/sql/index.js';

const require = createRequire(import.meta.url);
const arg = (n, d) => Number((process.argv.find((a) => a.startsWith(`--${n}=`)) ?? '').split('=')[1] || process.env[`BENCH_${n.toUpperCase()}`] || d);
const REPEATS = arg('repeats', 3);
const COPIES = arg('copies', 4);
const corpus = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../../shared/corpus/sql');
const rows = fs.readFileSync(path.join(corpus, 'MANIFEST.tsv'), 'utf8').trim().split('\n').slice(1).map((l) => l.split('\t'));
const DIALECTS = { postgresql: ['PostgreSql', 'PostgresQL', 'postgresql'], transactsql: ['MsSql', 'TransactSQL', 'transactsql'], snowflake: ['Snowflake', 'Snowflake', 'snowflake'], mysql: ['MySql', 'MySQL', 'mysql'] };
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dp-bench-sql-'));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function ours(file, dialect) {
  const t0 = performance.now();
  const r = await writeArtifact(
    { documentId: 'b', fileName: 'b.sql', format: 'sql', options: { sqlDialect: dialect }, customMetadata: null, inputPath: file, artifactPath: path.join(tmp, 'a.json'), tempDir: tmp },
    async () => parseSql,
  );
  const ms = performance.now() - t0;
  if (!r.ok) throw new Error(r.message);
  const meta = JSON.parse(fs.readFileSync(path.join(tmp, 'a.json'), 'utf8')).metadata;
  return { ms, statements: r.documentUnits, parsed: meta.parsedCount };
}

function nspAlone(text, build, database) {
  const { Parser } = require(`node-sql-parser/build/${build}.js`);
  const p = new Parser();
  const t0 = performance.now();
  const pieces = text.split(';').filter((s) => s.trim());
  let parsed = 0;
  for (const s of pieces) {
    try {
      p.astify(s, { database });
      parsed++;
    } catch {
      /* rejected */
    }
  }
  return { ms: performance.now() - t0, statements: pieces.length, parsed };
}

const out = [];
for (const [key, [dialect, database, build]] of Object.entries(DIALECTS)) {
  const files = rows.filter((r) => r[4] === key).map((r) => r[0]);
  const text = files.map((f) => fs.readFileSync(path.join(corpus, f), 'utf8')).join('\n;\n');
  const big = Array(COPIES).fill(text).join('\n;\n');
  const file = path.join(tmp, `${dialect}.sql`);
  fs.writeFileSync(file, big);
  const a = [];
  const b = [];
  for (let i = 0; i < REPEATS; i++) {
    a.push(await ours(file, dialect));
    b.push(nspAlone(big, build, database));
    process.stderr.write(`${dialect} run ${i + 1}: ours ${a[i].statements} st in ${a[i].ms.toFixed(0)} ms; node-sql-parser ${b[i].statements} pieces in ${b[i].ms.toFixed(0)} ms\n`);
  }
  const oa = median(a.map((x) => (x.statements / x.ms) * 1000));
  const ob = median(b.map((x) => (x.statements / x.ms) * 1000));
  out.push({ dialect, files: files.length, bytes: Buffer.byteLength(big), ours: a[0], nsp: b[0], oursRate: oa, nspRate: ob });
}
console.log(`| dialect | files × copies | MB | ours: statements | ours: parsed | ours: statements/s | node-sql-parser alone: ';' pieces | parsed | pieces/s | ours / nsp (statements/s) |`);
console.log('|:--|--:|--:|--:|--:|--:|--:|--:|--:|--:|');
for (const r of out) {
  console.log(`| ${r.dialect} | ${r.files} × ${COPIES} | ${(r.bytes / 1048576).toFixed(2)} | ${r.ours.statements} | ${((r.ours.parsed / r.ours.statements) * 100).toFixed(1)}% | ${r.oursRate.toFixed(0)} | ${r.nsp.statements} | ${((r.nsp.parsed / r.nsp.statements) * 100).toFixed(1)}% | ${r.nspRate.toFixed(0)} | ${(r.oursRate / r.nspRate).toFixed(2)} |`);
}
fs.rmSync(tmp, { recursive: true, force: true });
