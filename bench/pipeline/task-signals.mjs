// What a parse task's abort plumbing costs (issue 28, third round): the pool's former
// AbortSignal.timeout() + AbortSignal.any() per task against one AbortController and a timer
// cleared when the task ends. CPU per task, and heap still held after a full GC (the timer
// behind AbortSignal.timeout lives until it fires, the pool's task timeout: 600 s by default).
//
//   node --expose-gc bench/pipeline/task-signals.mjs [--tasks 20000] [--runs 3]
import { args, median } from '../e2e/lib.mjs';

const o = args({ tasks: 20000, runs: 3 });
const TIMEOUT_MS = 600_000;

const ways = {
  'AbortSignal.timeout + any': async (cancel) => {
    const signal = AbortSignal.any([AbortSignal.timeout(TIMEOUT_MS), cancel]);
    await Promise.resolve(signal);
  },
  'controller + cleared timer': async (cancel) => {
    const stop = new AbortController();
    const timer = setTimeout(() => stop.abort(), TIMEOUT_MS).unref();
    const onCancel = () => stop.abort();
    cancel.addEventListener('abort', onCancel, { once: true });
    try {
      await Promise.resolve(stop.signal);
    } finally {
      clearTimeout(timer);
      cancel.removeEventListener('abort', onCancel);
    }
  },
};

if (!global.gc) throw new Error('run with node --expose-gc');
const rows = [];
for (const [name, task] of Object.entries(ways)) {
  const cpu = [];
  const held = [];
  for (let run = 0; run < o.runs; run++) {
    for (let i = 0; i < 2000; i++) await task(new AbortController().signal);
    global.gc();
    const heap0 = process.memoryUsage().heapUsed;
    const c0 = process.cpuUsage();
    for (let i = 0; i < o.tasks; i++) await task(new AbortController().signal);
    const c = process.cpuUsage(c0);
    global.gc();
    cpu.push((c.user + c.system) / o.tasks);
    held.push((process.memoryUsage().heapUsed - heap0) / o.tasks);
    console.error(`${name}, run ${run + 1}: ${cpu.at(-1).toFixed(1)} µs CPU per task, ${held.at(-1).toFixed(0)} bytes held per task`);
  }
  rows.push(`| ${name} | ${median(cpu).toFixed(1)} | ${median(held).toFixed(0)} |`);
}
console.log(`| way (${o.tasks} tasks a run, medians of ${o.runs}) | µs CPU per task | heap bytes held per task after GC |\n|:--|--:|--:|\n${rows.join('\n')}`);
