// JobQueue on BullMQ: one Queue (and, once consumed, one Worker) per lane.
//
//   keys:    P:bull:<lane>:…   (BullMQ prefix `${prefix}:bull`, queue name = lane)
//   job id:  base64url(tenantId) "." base64url(documentId) "." base64url(generation): BullMQ
//            ignores an add whose id exists, which makes enqueue idempotent while the
//            delivery is waiting, delayed or active. Completed jobs are removed at once;
//            failed ones (a handler bug, or too many stalls) are kept, capped, for
//            inspection, and removed by a later enqueue of the same generation.
//   attempt: job.attemptsStarted (BullMQ increments it each time the job becomes active, so
//            a RetryLater redelivery and a stalled-job redelivery both count).
//   RetryLater: job.moveToDelayed(now + delayMs) + DelayedError.
//   Stalls:  a delivery whose worker died keeps its lock only for lockDuration; the stalled
//            checker of any live worker (every stalledInterval) moves it back to wait.

import { DelayedError, Queue, Worker, type Job } from 'bullmq';

import type { Delivery, JobQueue, JobRef, Lane, QueueDepth } from './types.js';
import { consoleLogger, deliveryId, errorInfo, isRetryLater, type JobLogger } from './support.js';

export interface RedisJobQueueOptions {
  url: string;
  /** Namespace for every key, e.g. 'docparse'. */
  prefix: string;
  /** How often a worker looks for stalled deliveries (ms, default 30 000). */
  stalledIntervalMs?: number;
  /** How long a delivery's lock lasts without renewal (ms, default 30 000). */
  lockDurationMs?: number;
  /** Stalls after which a delivery is failed instead of redelivered (default 3). */
  maxStalledCount?: number;
  /** Failed deliveries kept for inspection (default 1000, for up to 7 days). */
  keepFailed?: number;
  log?: JobLogger;
}

/** BullMQ prefix used for a given key prefix (exported for tests and tooling). */
export function bullPrefix(prefix: string): string {
  return `${prefix}:bull`;
}

export class RedisJobQueue implements JobQueue {
  private readonly queues: Record<Lane, Queue>;
  private readonly workers = new Map<Lane, Worker>();
  private readonly opts: Required<Omit<RedisJobQueueOptions, 'log'>>;
  private readonly log: JobLogger;
  private closing = false;

  constructor(opts: RedisJobQueueOptions) {
    if (!opts.prefix) throw new Error('RedisJobQueue: prefix is required');
    this.opts = {
      url: opts.url,
      prefix: opts.prefix,
      stalledIntervalMs: opts.stalledIntervalMs ?? 30_000,
      lockDurationMs: opts.lockDurationMs ?? 30_000,
      maxStalledCount: opts.maxStalledCount ?? 3,
      keepFailed: opts.keepFailed ?? 1000,
    };
    this.log = opts.log ?? consoleLogger;
    const make = (lane: Lane): Queue => {
      const q = new Queue(lane, {
        connection: this.connection(),
        prefix: bullPrefix(this.opts.prefix),
        defaultJobOptions: {
          attempts: 1,
          removeOnComplete: true,
          removeOnFail: { count: this.opts.keepFailed, age: 7 * 24 * 3600 },
        },
      });
      q.on('error', (err) => this.log.error({ ...errorInfo(err), lane }, 'jobs: queue connection error'));
      return q;
    };
    this.queues = { light: make('light'), heavy: make('heavy') };
  }

  private connection() {
    return { url: this.opts.url, maxRetriesPerRequest: null };
  }

  async enqueue(ref: JobRef): Promise<void> {
    if (this.closing) throw new Error('job queue is closed');
    const q = this.queues[ref.lane];
    if (!q) throw new Error(`unknown lane ${String(ref.lane)}`);
    const jobId = deliveryId(ref);
    const state = await q.getJobState(jobId);
    if (state === 'completed' || state === 'failed') await q.remove(jobId);
    else if (state !== 'unknown') return; // still pending
    const data: JobRef = { tenantId: ref.tenantId, documentId: ref.documentId, generation: ref.generation, lane: ref.lane };
    await q.add('job', data, { jobId });
  }

  consume(lane: Lane, concurrency: number, handler: (d: Delivery) => Promise<void>): void {
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`);
    if (this.closing) throw new Error('job queue is closed');
    if (this.workers.has(lane)) throw new Error(`lane ${lane} already has a consumer`);
    const processor = async (job: Job<JobRef>, token?: string): Promise<void> => {
      const attempt = Math.max(1, job.attemptsStarted);
      try {
        await handler({ ref: { ...job.data }, attempt });
      } catch (err) {
        if (isRetryLater(err)) {
          await job.moveToDelayed(Date.now() + Math.max(0, err.delayMs), token);
          throw new DelayedError();
        }
        this.log.error({ ...errorInfo(err), ref: job.data, attempt }, 'jobs: handler failed; delivery dropped');
        throw err;
      }
    };
    const worker = new Worker<JobRef>(lane, processor, {
      connection: this.connection(),
      prefix: bullPrefix(this.opts.prefix),
      concurrency,
      stalledInterval: this.opts.stalledIntervalMs,
      lockDuration: this.opts.lockDurationMs,
      maxStalledCount: this.opts.maxStalledCount,
    });
    worker.on('error', (err) => this.log.error({ ...errorInfo(err), lane }, 'jobs: worker error'));
    worker.on('stalled', (jobId) => this.log.warn({ jobId, lane }, 'jobs: stalled delivery moved back to wait'));
    this.workers.set(lane, worker);
  }

  async depth(): Promise<QueueDepth> {
    const depth: QueueDepth = { waiting: 0, active: 0, delayed: 0 };
    for (const q of Object.values(this.queues)) {
      const c = await q.getJobCounts('wait', 'prioritized', 'active', 'delayed');
      depth.waiting += (c.wait ?? 0) + (c.prioritized ?? 0);
      depth.active += c.active ?? 0;
      depth.delayed += c.delayed ?? 0;
    }
    return depth;
  }

  /** Stops taking deliveries, waits for running handlers, closes connections. */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    await Promise.all([...this.workers.values()].map((w) => w.close()));
    await Promise.all(Object.values(this.queues).map((q) => q.close()));
  }
}
