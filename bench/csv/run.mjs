// CSV family throughput: generated files parsed exactly as the worker does (two streamed
// passes, artifact written to disk by writeArtifact), Tabular and Spatial (lon/lat points and
// WKT), medians of --repeats runs. Several builds (--dist=A,B) are run alternately in one
// process, so a change is compared with the build before it under the same load. CPU time
// (the process's, user + system) moves less than wall time when the machine is shared.
// Usage: npx tsc -p tsconfig.json && node bench/csv/run.mjs [--rows=500000] [--repeats=5] [--dist=/tmp/before/dist,dist]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';

const opt = (n, d) => (process.argv.find((a) => a.startsWith(`--${n}=`)) ?? '').split('=')[1] || d;
const ROWS = Number(opt('rows', 500_000));
const REPEATS = Number(opt('repeats', 5));
const dists = opt('dist', new URL('../../dist', import.meta.url).pathname)
  .split(',')
  .map((d) => path.resolve(d));
const builds = [];
for (const dist of dists) {
  const { writeArtifact } = await import(pathToFileURL(path.join(dist, 'pipeline/thread.js')).href);
  const { parseCsv } = await import(pathToFileURL(path.join(dist, 'formats/csv/index.js')).href);
  builds.push({ dist, writeArtifact, parseCsv });
}
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dp-bench-csv-'));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Writes `rows` lines made by `line(i)` after `header`, in blocks. */
function generate(name, header, line) {
  const file = path.join(tmp, name);
  const fd = fs.openSync(file, 'w');
  fs.writeSync(fd, `${header}\n`);
  for (let i = 0; i < ROWS; i += 10_000) {
    let block = '';
    for (let k = i; k < Math.min(ROWS, i + 10_000); k++) block += `${line(k)}\n`;
    fs.writeSync(fd, block);
  }
  fs.closeSync(fd);
  return file;
}

const inputs = [
  {
    name: 'tabular',
    route: 'Tabular',
    file: generate(
      'tabular.csv',
      'id,name,price,day,flag',
      (i) =>
        `${i},item ${i % 977},${(i % 10_000) / 100},2020-${String((i % 12) + 1).padStart(2, '0')}-${String((i % 28) + 1).padStart(2, '0')},${i % 2 ? 'true' : 'false'}`,
    ),
  },
  {
    name: 'spatial lon/lat',
    route: 'Spatial',
    file: generate('points.csv', 'id,name,lon,lat', (i) => `${i},p${i % 977},${((i % 36_000) / 100 - 180).toFixed(2)},${((i % 18_000) / 100 - 90).toFixed(2)}`),
  },
  {
    name: 'spatial WKT',
    route: 'Spatial',
    file: generate('wkt.csv', 'id,WKT', (i) => `${i},"LINESTRING (${i % 180} ${i % 90}, ${(i + 1) % 180} ${(i + 3) % 90})"`),
  },
];

async function once(build, input) {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const r = await build.writeArtifact(
    {
      documentId: 'b',
      fileName: path.basename(input.file),
      format: 'csv',
      options: { csvRoute: input.route },
      customMetadata: null,
      inputPath: input.file,
      artifactPath: path.join(tmp, 'a.json'),
      tempDir: tmp,
    },
    async () => build.parseCsv,
  );
  if (!r.ok) throw new Error(r.message);
  const c = process.cpuUsage(c0);
  return { ms: performance.now() - t0, cpuMs: (c.user + c.system) / 1000, bytes: r.artifactBytes };
}

console.log(
  `${new Date().toISOString()}, ${os.cpus().length} cores, node ${process.version}, load ${os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}, ${ROWS} rows, ${REPEATS} runs`,
);
console.log(`| input | MB | ${builds.map((b) => `${b.dist}: wall ms, median (runs) | CPU ms, median (runs) | artifact MB`).join(' | ')} |`);
console.log(`|:--|--:|${builds.map(() => ':--|:--|--:').join('|')}|`);
for (const input of inputs) {
  const times = builds.map(() => []);
  const cpu = builds.map(() => []);
  const bytes = builds.map(() => 0);
  for (let r = 0; r < REPEATS; r++) {
    for (const [i, b] of builds.entries()) {
      const x = await once(b, input);
      times[i].push(x.ms);
      cpu[i].push(x.cpuMs);
      bytes[i] = x.bytes;
    }
  }
  const mb = (fs.statSync(input.file).size / 2 ** 20).toFixed(1);
  const runs = (xs) => `**${median(xs).toFixed(0)}** (${xs.map((t) => t.toFixed(0)).join(', ')})`;
  const cells = builds.map((_, i) => `${runs(times[i])} | ${runs(cpu[i])} | ${(bytes[i] / 2 ** 20).toFixed(1)}`);
  console.log(`| ${input.name} | ${mb} | ${cells.join(' | ')} |`);
}
console.log(
  `load at the end ${os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);
fs.rmSync(tmp, { recursive: true, force: true });
