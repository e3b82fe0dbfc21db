// Memory on a large script: a ~200 MB script made of the dialect's corpus files repeated
// (GO-separated for T-SQL) is parsed exactly as the worker does (streamed split, statements
// parsed and written as they come); peak RSS is sampled every 100 ms and read from the OS.
// Usage: npx tsc -p tsconfig.json && node bench/sql/memory.mjs [--dialect=MsSql] [--mb=200]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { writeArtifact } from '../../dist/pipeline/thread.js';
import { parseSql } from '../../dist/formats/sql/index.js';
import { corpus, rows, MANIFEST_DIALECTS } from './corpus.mjs';

const opt = (n, d) => (process.argv.find((a) => a.startsWith(`--${n}=`)) ?? '').split('=')[1] || d;
const dialect = opt('dialect', 'MsSql');
const mb = Number(opt('mb', 200));
const key = Object.keys(MANIFEST_DIALECTS).find((k) => MANIFEST_DIALECTS[k] === dialect);
const sep = dialect === 'MsSql' ? '\nGO\n' : '\n;\n';
const unit =
  rows
    .filter((r) => r[4] === key)
    .map((r) => fs.readFileSync(path.join(corpus, r[0]), 'utf8'))
    .join(sep) + sep;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dp-bench-sql-mem-'));
const file = path.join(tmp, 'big.sql');
const fd = fs.openSync(file, 'w');
let copies = 0;
while (copies * Buffer.byteLength(unit) < mb * 1024 * 1024) {
  fs.writeSync(fd, unit);
  copies++;
}
fs.closeSync(fd);
const size = fs.statSync(file).size;
const baseline = process.memoryUsage().rss;
let peak = baseline;
const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 100);
const t0 = performance.now();
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
clearInterval(timer);
if (!r.ok) throw new Error(r.message);
const artifact = fs.statSync(path.join(tmp, 'a.json')).size;
console.log(
  JSON.stringify({
    dialect,
    inputMB: +(size / 1048576).toFixed(1),
    copies,
    statements: r.documentUnits,
    seconds: +(ms / 1000).toFixed(1),
    statementsPerSecond: Math.round((r.documentUnits / ms) * 1000),
    artifactMB: +(artifact / 1048576).toFixed(1),
    rssBeforeMB: +(baseline / 1048576).toFixed(0),
    peakRssSampledMB: +(peak / 1048576).toFixed(0),
    maxRssMB: +(process.resourceUsage().maxRSS / 1024).toFixed(0),
  }),
);
fs.rmSync(tmp, { recursive: true, force: true });
