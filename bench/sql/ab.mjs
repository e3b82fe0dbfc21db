// The SQL service parse of the corpus (per dialect, as bench/sql/run.mjs builds it: the
// dialect's corpus files joined, --copies times) under two or more builds alternated run by
// run in one process; CPU ms of the process per parse (user + system), medians of --repeats.
// Usage: npx tsc -p tsconfig.json && node bench/sql/ab.mjs --dist=/tmp/before/dist,dist [--repeats=5] [--copies=4]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { corpus, rows } from './corpus.mjs';

const opt = (n, d) => (process.argv.find((a) => a.startsWith(`--${n}=`)) ?? '').split('=')[1] || d;
const REPEATS = Number(opt('repeats', 5));
const COPIES = Number(opt('copies', 4));
const builds = [];
for (const dist of opt('dist', 'dist')
  .split(',')
  .map((d) => path.resolve(d))) {
  const { writeArtifact } = await import(pathToFileURL(path.join(dist, 'pipeline/thread.js')).href);
  const sql = await import(pathToFileURL(path.join(dist, 'formats/sql/index.js')).href);
  await sql.loadPostgres();
  builds.push({ dist, writeArtifact, parseSql: sql.parseSql });
}
const DIALECTS = { postgresql: 'PostgreSql', transactsql: 'MsSql', snowflake: 'Snowflake', mysql: 'MySql' };
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dp-bench-sql-ab-'));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

console.log(
  `${new Date().toISOString()}, node ${process.version}, load ${os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}, ${COPIES} copies, ${REPEATS} runs`,
);
console.log(`| dialect | statements | ${builds.map((b) => `${b.dist}: CPU ms, median (runs) | artifact MiB`).join(' | ')} |`);
console.log(`|:--|--:|${builds.map(() => ':--|--:').join('|')}|`);
for (const [key, dialect] of Object.entries(DIALECTS)) {
  const files = rows.filter((r) => r[4] === key).map((r) => r[0]);
  const sep = dialect === 'MsSql' ? '\nGO\n' : '\n;\n';
  const file = path.join(tmp, `${dialect}.sql`);
  fs.writeFileSync(
    file,
    Array(COPIES)
      .fill(files.map((f) => fs.readFileSync(path.join(corpus, f), 'utf8')).join(sep))
      .join(sep),
  );
  const cpu = builds.map(() => []);
  const bytes = builds.map(() => 0);
  let units = 0;
  for (let r = 0; r < REPEATS; r++) {
    for (const [i, b] of builds.entries()) {
      const c0 = process.cpuUsage();
      const task = {
        documentId: 'b',
        fileName: 'b.sql',
        format: 'sql',
        options: { sqlDialect: dialect },
        customMetadata: null,
        inputPath: file,
        artifactPath: path.join(tmp, 'a.json'),
        tempDir: tmp,
      };
      const out = await b.writeArtifact(task, async () => b.parseSql);
      if (!out.ok) throw new Error(out.message);
      const c = process.cpuUsage(c0);
      cpu[i].push((c.user + c.system) / 1000);
      units = out.documentUnits;
      bytes[i] = out.artifactBytes;
    }
  }
  const cells = cpu.map((xs, i) => `**${median(xs).toFixed(0)}** (${xs.map((x) => x.toFixed(0)).join(', ')}) | ${(bytes[i] / 2 ** 20).toFixed(2)}`);
  console.log(`| ${dialect} | ${units} | ${cells.join(' | ')} |`);
}
console.log(
  `load at the end ${os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);
fs.rmSync(tmp, { recursive: true, force: true });
