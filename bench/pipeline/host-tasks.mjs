// The parsing process's CPU per small task, alone (issue 28, fourth round): a ParseHost from
// this dist (and from another, alternated) runs small CSV tasks the way the node hands them
// over — at most one per thread in flight, the next sent as one finishes — and the parsing
// process's CPU (all its threads, kernel included, from /proc) is divided by the tasks. The
// node's own work around a job (HTTP, stores, queue) is not in it.
//
//   TMPDIR=/mnt/ext4j node bench/pipeline/host-tasks.mjs [--other /path/to/other/dist] [--tasks 4000] [--runs 3] [--threads 2] [--rows 50]
//
// Artifacts go under TMPDIR (file creates cost more on some file systems: say which).
// BENCH_MEASURED_PID_FILE: the measured parsing process's pid is written there as its measured
// run starts (for `perf record -g -p $(cat FILE)`).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { args, cpuSeconds, median, smallCsv, uptimeLine } from '../e2e/lib.mjs';

const o = args({ other: '', tasks: 4000, runs: 3, threads: 2, rows: 50, warmup: 500 });
const here = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../dist');
const dists = { this: here, ...(o.other ? { other: path.resolve(o.other) } : {}) };
const silent = { level: 'silent', ...Object.fromEntries(['fatal', 'error', 'warn', 'info', 'debug', 'trace'].map((l) => [l, () => {}])) };
silent.child = () => silent;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dp-bench-host-tasks-'));
const input = path.join(dir, 'small.csv');
fs.writeFileSync(input, smallCsv(o.rows));
// As the node sends it (job.sizeBytes); a dist that predates the field ignores it.
const inputBytes = fs.statSync(input).size;

/** Runs `n` tasks with `threads` in flight (the host keeps one per thread); returns the artifacts' folder. */
async function runTasks(host, n, tag) {
  const out = path.join(dir, tag);
  fs.mkdirSync(out);
  let next = 0;
  await Promise.all(
    Array.from({ length: o.threads * 4 }, async () => {
      while (next < n) {
        const i = next++;
        const r = await host.run({
          documentId: `d${i}`,
          fileName: 'small.csv',
          format: 'csv',
          options: { csvRoute: 'Tabular' },
          customMetadata: null,
          inputPath: input,
          inputBytes,
          artifactPath: path.join(out, `${i}.json`),
          tempDir: path.join(out, `${i}.tmp`),
        });
        if (!r.ok) throw new Error(`task failed: ${r.message}`);
      }
    }),
  );
  return out;
}

const cpu = Object.fromEntries(Object.keys(dists).map((k) => [k, []]));
try {
  for (let run = 0; run < o.runs; run++) {
    const order = run % 2 ? Object.keys(dists).reverse() : Object.keys(dists);
    for (const name of order) {
      const { ParseHost } = await import(path.join(dists[name], 'pipeline/parse-host.js'));
      const { loadConfig } = await import(path.join(dists[name], 'config.js'));
      // DOCPARSE_PARSER_NODE_ARGS reaches the parsing process as in a node ("--perf-basic-prof" for perf, "--cpu-prof …").
      const config = loadConfig(process.env);
      const host = new ParseHost({
        threads: o.threads,
        taskTimeoutMs: 600_000,
        maxHeapMb: 2048,
        recycleAboveMb: 2048,
        maxProcessRssMb: 16_384,
        parsers: config.parsers,
        nodeArgs: config.parserNodeArgs,
        logger: silent,
      });
      try {
        if (!(await host.whenReady(60_000))) throw new Error('the parsing process did not start');
        fs.rmSync(await runTasks(host, o.warmup, `${name}-${run}-warm`), { recursive: true });
        const load = uptimeLine();
        if (process.env.BENCH_MEASURED_PID_FILE) fs.writeFileSync(process.env.BENCH_MEASURED_PID_FILE, String(host.pid));
        const c0 = cpuSeconds(host.pid);
        const t0 = performance.now();
        const out = await runTasks(host, o.tasks, `${name}-${run}`);
        const ms = ((cpuSeconds(host.pid) - c0) * 1000) / o.tasks;
        const perS = o.tasks / ((performance.now() - t0) / 1000);
        fs.rmSync(out, { recursive: true });
        cpu[name].push(ms);
        console.error(
          `${name} (${dists[name]}), run ${run + 1}: ${ms.toFixed(3)} ms CPU per task in the parsing process, ${perS.toFixed(0)} tasks/s; load ${load}`,
        );
      } finally {
        await host.close();
      }
    }
  }
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
console.log(`| dist | parsing-process ms CPU per small CSV task, per run | median |\n|:--|:--|--:|`);
for (const [name, v] of Object.entries(cpu)) console.log(`| ${name} (${dists[name]}) | ${v.map((x) => x.toFixed(3)).join(', ')} | ${median(v).toFixed(3)} |`);
