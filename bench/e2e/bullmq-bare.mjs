// Bare BullMQ, the baseline of bench/e2e/small-jobs.mjs: one process with a Queue, a Worker
// (concurrency C) that does nothing but complete each job, QueueEvents, and C producers each
// adding a small job and waiting for it to complete, on the same Redis as the service, under a
// throw-away prefix. Prints one JSON line: {jobs, seconds, jobsPerSec, cpuMsPerJob}.
//
//   node bench/e2e/bullmq-bare.mjs [--jobs 4000] [--concurrency 32] [--warmup 200]
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { args, deleteRedisPrefix, REDIS_URL } from './lib.mjs';

const require = createRequire(import.meta.url);
const { Queue, Worker, QueueEvents } = require('bullmq');
const { Redis } = require('ioredis');

const o = args({ jobs: 4000, concurrency: 32, warmup: 200 });
const prefix = `dp-bench-${randomBytes(4).toString('hex')}`;
const connections = [];
const connection = () => {
  const r = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  connections.push(r);
  return r;
};
const queue = new Queue('bare', { connection: connection(), prefix });
const events = new QueueEvents('bare', { connection: connection(), prefix });
const worker = new Worker('bare', async (job) => ({ rows: job.data.rows }), { connection: connection(), prefix, concurrency: o.concurrency });
queue.setMaxListeners(o.concurrency * 4);
events.setMaxListeners(o.concurrency * 4);
await events.waitUntilReady();
await worker.waitUntilReady();

async function run(total) {
  let next = 0;
  await Promise.all(
    Array.from({ length: o.concurrency }, async () => {
      while (next < total) {
        next++;
        const job = await queue.add('small', { rows: 50, name: 'small.csv' }, { removeOnComplete: 1000, removeOnFail: 1000 });
        await job.waitUntilFinished(events);
      }
    }),
  );
}

await run(o.warmup);
const cpu0 = process.cpuUsage();
const t0 = performance.now();
await run(o.jobs);
const seconds = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);
await worker.close();
await events.close();
await queue.close();
// Connections handed to BullMQ are the caller's to close.
await Promise.all(connections.map((r) => r.quit()));
await deleteRedisPrefix(prefix);
process.stdout.write(JSON.stringify({ jobs: o.jobs, seconds, jobsPerSec: o.jobs / seconds, cpuMsPerJob: (cpu.user + cpu.system) / 1000 / o.jobs }) + '\n');
