// Memory on a large script, parsed exactly as the worker does (streamed split, statements
// parsed and written as they come); peak RSS is sampled every 100 ms and read from the OS.
// The script is either the dialect's corpus files repeated to ~`mb` MiB (GO-separated for
// T-SQL), or, with --insert-mb, an extended-insert dump from the fuzzer's generator
// (bench/fuzz/generators/sql-large.mjs): INSERTs of ~`insert-mb` MiB each up to ~`mb` MiB, or
// with --one the dump `CREATE TABLE …; SELECT 1; <INSERT of insert-mb MiB>; SELECT 2;`
// (--alone: the INSERT only). `expected` is how many statements the script holds; `seconds` is
// wall time, `cpuSeconds` the process's CPU time (less moved by other work on the machine).
// Usage: npx tsc -p tsconfig.json && node bench/sql/memory.mjs [--dialect=MsSql] [--mb=200]
//        node bench/sql/memory.mjs --dialect=PostgreSql --insert-mb=12 --one [--alone]
//        node bench/sql/memory.mjs --dialect=MySql --mb=200 --insert-mb=10
//        … --dist=/tmp/old/dist   (another build, e.g. the commit before a change)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { insertDumpPieces, largeInsertDumpPieces } from '../fuzz/generators/sql-large.mjs';

const opt = (n, d) => (process.argv.find((a) => a.startsWith(`--${n}=`)) ?? '').split('=')[1] || d;
const flag = (n) => process.argv.includes(`--${n}`);
const dist = path.resolve(opt('dist', new URL('../../dist', import.meta.url).pathname));
const { writeArtifact } = await import(pathToFileURL(path.join(dist, 'pipeline/thread.js')).href);
const { parseSql } = await import(pathToFileURL(path.join(dist, 'formats/sql/index.js')).href);
const dialect = opt('dialect', 'MsSql');
const mb = Number(opt('mb', 200));
const insertMb = Number(opt('insert-mb', 0));
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dp-bench-sql-mem-'));
const file = path.join(tmp, 'big.sql');
const fd = fs.openSync(file, 'w');
let copies = null;
let expected = null;
if (insertMb && flag('one')) {
  for (const piece of largeInsertDumpPieces({ dialect, mb: insertMb, around: !flag('alone') })) fs.writeSync(fd, piece);
  expected = flag('alone') ? 1 : 4;
} else if (insertMb) {
  const dump = insertDumpPieces({ dialect, mb, insertMb });
  for (const piece of dump) fs.writeSync(fd, piece);
  expected = dump.statements;
} else {
  const { corpus, rows, MANIFEST_DIALECTS } = await import('./corpus.mjs');
  const key = Object.keys(MANIFEST_DIALECTS).find((k) => MANIFEST_DIALECTS[k] === dialect);
  const sep = dialect === 'MsSql' ? '\nGO\n' : '\n;\n';
  const unit =
    rows
      .filter((r) => r[4] === key)
      .map((r) => fs.readFileSync(path.join(corpus, r[0]), 'utf8'))
      .join(sep) + sep;
  copies = 0;
  while (copies * Buffer.byteLength(unit) < mb * 1024 * 1024) {
    fs.writeSync(fd, unit);
    copies++;
  }
}
fs.closeSync(fd);
const size = fs.statSync(file).size;
const baseline = process.memoryUsage().rss;
let peak = baseline;
const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 100);
const t0 = performance.now();
const cpu0 = process.cpuUsage();
const r = await writeArtifact(
  {
    documentId: 'm',
    fileName: 'big.sql',
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
const cpu = process.cpuUsage(cpu0);
clearInterval(timer);
if (!r.ok) throw new Error(r.message);
const artifact = fs.statSync(path.join(tmp, 'a.json')).size;
console.log(
  JSON.stringify({
    dialect,
    inputMB: +(size / 1048576).toFixed(1),
    ...(copies !== null ? { copies } : {}),
    statements: r.documentUnits,
    ...(expected !== null ? { expected } : {}),
    warnings: r.warnings,
    seconds: +(ms / 1000).toFixed(1),
    cpuSeconds: +((cpu.user + cpu.system) / 1e6).toFixed(1),
    statementsPerSecond: Math.round((r.documentUnits / ms) * 1000),
    artifactMB: +(artifact / 1048576).toFixed(1),
    rssBeforeMB: +(baseline / 1048576).toFixed(0),
    peakRssSampledMB: +(peak / 1048576).toFixed(0),
    maxRssMB: +(process.resourceUsage().maxRSS / 1024).toFixed(0),
  }),
);
fs.rmSync(tmp, { recursive: true, force: true });
