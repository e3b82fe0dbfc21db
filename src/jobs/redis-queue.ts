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
//   HandBack: (a stopping node's unfinished job) job.moveToWait + WaitingError: to the front of
//            wait, taken at once by another node; the turn is added to `parks`, not an attempt.
//   Stalls:  a delivery whose worker died keeps its lock only for lockDuration; the stalled
//            checker of any live worker (every stalledInterval) moves it back to wait.
//   Takeover: lockDuration 10 s, stalledInterval 5 s (TAKEOVER_DEFAULTS). A live worker renews
//            its locks every lockDuration / 2 = 5 s, so at a kill -9 a lock has 5–10 s left.
//            The checker marks active deliveries on one pass and moves those still without a
//            lock on the next, so a dead node's deliveries are back in wait within
//            lockDuration + stalledInterval ≤ 15 s of its death (10.7–13.3 s measured:
//            bench/outages), and a free worker takes them at once. Parsing runs off the event
//            loop, so renewals are not starved by long documents; a node whose loop
//            stalls longer than 5 s may lose a lock and see its delivery run twice — which the
//            generation-checked transitions and the idempotent charge make harmless.
//   Per tenant: with ConsumeOptions.perTenant, a delivery first takes one of its tenant's slots
//            (tenant-slots.ts, shared by every node); when they are all held it is parked in
//            delayed, behind the tenant's earlier ones, holding no handler, and is promoted when
//            a slot of its tenant is given back (or comes back by itself after lockDuration +
//            stalledInterval). Parked turns are subtracted from the attempt the handler sees.
//   Turns:   BullMQ's per-group fairness is not in the open-source BullMQ, so a delivery's turn
//            is its priority: ⌊its app's unfinished jobs at upload / fairTurn⌋ (EnqueueOptions
//            .inFlight). Turn 0 is a plain add to wait, which BullMQ takes before any
//            prioritized job; later turns wait in the prioritized set, by turn, then in order.
//            An app's k-th queued job thus runs after the first k of every other app: a
//            flood from one app leaves another's job at most fairTurn deliveries behind. A
//            delivery keeps its turn when delayed or parked; handed back, it goes to the front
//            of its turn (BullMQ's moveToWait of a prioritized job).
//   Outages: the Queues (enqueue, depth) fail fast while Redis is away (→ 503); the Workers'
//            connections wait for it. A handler that met an unreachable dependency is
//            delivered again once Redis answers (a new attempt, like any redelivery).

import { DelayedError, Queue, WaitingError, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';

import { DependencyUnavailableError } from '../errors/dependency-unavailable.js';
import type { ConsumeOptions, Delivery, EnqueueOptions, JobQueue, JobRef, Lane, LaneDepths, QueueDepth } from './types.js';
import { TenantSlots } from './tenant-slots.js';

/**
 * A delivery's data: its ref, and its turns that were not attempts: parked behind its tenant's
 * other deliveries, or handed back by a stopping node.
 */
type Parkable = JobRef & { parks?: number };
import { consoleLogger, deliveryId, errorInfo, isRetryLater, sumDepths, type JobLogger } from './support.js';
import { enqueueConnectionOptions, failFast, isRedisUnavailableError, workerConnectionOptions } from './redis-connection.js';

/**
 * Lock and stalled-check timing: a dead node's deliveries are taken over within
 * lockDuration + stalledInterval = 15 s (see the header). Stalls are never the reason a
 * delivery is dropped (maxStalledCount is out of reach): BullMQ would fail it without a word
 * to the job record, which would stay "processing" for ever. The worker loop retires a job
 * that took its node down DOCPARSE_MAX_ATTEMPTS times (the attempt is recorded before each
 * parse), with a reason, on the delivery after the last one.
 */
export const TAKEOVER_DEFAULTS = { lockDurationMs: 10_000, stalledIntervalMs: 5_000, maxStalledCount: 1_000_000 } as const;

/** After an outage, how soon a worker fetches again (BullMQ's default waits 15 s). */
const RUN_RETRY_DELAY_MS = 1000;

/** Deliveries of one app per turn (DOCPARSE_QUEUE_FAIR_TURN's default). */
export const DEFAULT_FAIR_TURN = 8;

/** BullMQ's largest priority (2^21). */
const MAX_PRIORITY = 2_097_152;

/** A delivery's BullMQ priority: its turn (0, a plain add to wait, for an app's first fairTurn jobs). */
export function turnPriority(inFlight: number | undefined, fairTurn: number): number {
  if (!inFlight || inFlight < fairTurn) return 0;
  return Math.min(MAX_PRIORITY, Math.floor(inFlight / fairTurn));
}

/** Delay before an outage-interrupted delivery runs again, counted from when Redis answers. */
const OUTAGE_REDELIVERY_DELAY_MS = 1000;

const ROLE = 'job queue';

export interface RedisJobQueueOptions {
  url: string;
  /** Namespace for every key, e.g. 'docparse'. */
  prefix: string;
  /** How often a worker looks for stalled deliveries (ms, default 5 000). */
  stalledIntervalMs?: number;
  /** How long a delivery's lock lasts without renewal (ms, default 10 000). */
  lockDurationMs?: number;
  /** Stalls after which BullMQ fails a delivery itself (default: out of reach; see TAKEOVER_DEFAULTS). */
  maxStalledCount?: number;
  /** Failed deliveries kept for inspection (default 1000, for up to 7 days). */
  keepFailed?: number;
  /** Deliveries of one app per turn (see Turns in the header; default DEFAULT_FAIR_TURN). */
  fairTurn?: number;
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
  /** For the per-tenant bound (TenantSlots), opened by the first consumer that has one. */
  private slotsRedis: Redis | null = null;

  constructor(opts: RedisJobQueueOptions) {
    if (!opts.prefix) throw new Error('RedisJobQueue: prefix is required');
    this.opts = {
      url: opts.url,
      prefix: opts.prefix,
      stalledIntervalMs: opts.stalledIntervalMs ?? TAKEOVER_DEFAULTS.stalledIntervalMs,
      lockDurationMs: opts.lockDurationMs ?? TAKEOVER_DEFAULTS.lockDurationMs,
      maxStalledCount: opts.maxStalledCount ?? TAKEOVER_DEFAULTS.maxStalledCount,
      keepFailed: opts.keepFailed ?? 1000,
      fairTurn: opts.fairTurn ?? DEFAULT_FAIR_TURN,
    };
    if (!Number.isInteger(this.opts.fairTurn) || this.opts.fairTurn < 1) throw new RangeError(`fairTurn must be a positive integer, got ${this.opts.fairTurn}`);
    this.log = opts.log ?? consoleLogger;
    const make = (lane: Lane): Queue => {
      const q = new Queue(lane, {
        connection: enqueueConnectionOptions(this.opts.url),
        prefix: bullPrefix(this.opts.prefix),
        defaultJobOptions: {
          attempts: 1,
          removeOnComplete: true,
          removeOnFail: { count: this.opts.keepFailed, age: 7 * 24 * 3600 },
        },
      });
      q.on('error', (err) => this.logError(err, lane, 'jobs: queue connection error'));
      return q;
    };
    this.queues = { light: make('light'), heavy: make('heavy') };
  }

  /**
   * Connection errors are expected while Redis is away: the job store reports the outage
   * once (redis-connection.ts), so they are not logged again on every reconnection attempt.
   */
  private logError(err: unknown, lane: Lane, msg: string): void {
    if (!isRedisUnavailableError(err)) this.log.error({ ...errorInfo(err), lane }, msg);
  }

  async enqueue(ref: JobRef, opts: EnqueueOptions = {}): Promise<void> {
    if (this.closing) throw new Error('job queue is closed');
    const q = this.queues[ref.lane];
    if (!q) throw new Error(`unknown lane ${String(ref.lane)}`);
    const jobId = deliveryId(ref);
    await failFast(ROLE, async () => {
      // A finished delivery of the same generation (a job recovered after a restart) is
      // removed first, or BullMQ would take the add for a duplicate and drop it.
      if (!opts.fresh) {
        const state = await q.getJobState(jobId);
        if (state === 'completed' || state === 'failed') await q.remove(jobId);
        else if (state !== 'unknown') return; // still pending
      }
      const data: JobRef = { tenantId: ref.tenantId, documentId: ref.documentId, generation: ref.generation, lane: ref.lane };
      const priority = turnPriority(opts.inFlight, this.opts.fairTurn);
      await q.add('job', data, priority ? { jobId, priority } : { jobId });
    });
  }

  consume(lane: Lane, concurrency: number, handler: (d: Delivery) => Promise<void>, opts: ConsumeOptions = {}): void {
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`);
    if (opts.perTenant !== undefined && (!Number.isInteger(opts.perTenant) || opts.perTenant < 1))
      throw new RangeError(`perTenant must be a positive integer, got ${opts.perTenant}`);
    if (this.closing) throw new Error('job queue is closed');
    if (this.workers.has(lane)) throw new Error(`lane ${lane} already has a consumer`);
    const slots = opts.perTenant === undefined ? null : this.tenantSlots(lane, opts.perTenant);
    const processor = async (job: Job<Parkable>, token?: string): Promise<void> => {
      const { parks = 0, ...ref } = job.data;
      // Parked and handed-back turns are not attempts: the handler counts only the runs it was given.
      const attempt = Math.max(1, job.attemptsStarted - parks);
      let renewal: NodeJS.Timeout | undefined;
      if (slots) {
        if (!(await slots.take(ref.tenantId, job.id!, job.timestamp))) {
          // The tenant holds all it may: the delivery waits in delayed, holding no handler,
          // until a slot of its tenant is given back (promoted then) or this delay passes.
          await job.updateData({ ...job.data, parks: parks + 1 });
          await job.moveToDelayed(Date.now() + this.parkMs(), token);
          throw new DelayedError();
        }
        renewal = setInterval(() => void slots.renew(ref.tenantId, job.id!).catch(() => {}), this.opts.lockDurationMs / 3);
      }
      try {
        await handler({ ref, attempt });
      } catch (err) {
        if (isRetryLater(err) && err.handBack) {
          // Its node is stopping: back to the front of wait for another node, not counted as an attempt.
          await job.updateData({ ...job.data, parks: parks + 1 });
          await job.moveToWait(token);
          throw new WaitingError();
        }
        if (isRetryLater(err)) {
          await job.moveToDelayed(Date.now() + Math.max(0, err.delayMs), token);
          throw new DelayedError();
        }
        if (err instanceof DependencyUnavailableError) {
          // Not a handler bug: a store went away mid-job. Dropping the delivery would strand
          // the job in its state; it runs again instead. The worker's connection waits for
          // Redis, so the move happens when Redis answers again.
          this.log.warn({ ref: job.data, attempt, dependency: err.dependency }, 'jobs: dependency unreachable mid-job; delivery will run again');
          await job.moveToDelayed(Date.now() + OUTAGE_REDELIVERY_DELAY_MS, token);
          throw new DelayedError();
        }
        this.log.error({ ...errorInfo(err), ref: job.data, attempt }, 'jobs: handler failed; delivery dropped');
        throw err;
      } finally {
        if (slots) {
          clearInterval(renewal);
          await this.giveBack(slots, lane, ref.tenantId, job.id!);
        }
      }
    };
    const worker = new Worker<Parkable>(lane, processor, {
      connection: workerConnectionOptions(this.opts.url),
      prefix: bullPrefix(this.opts.prefix),
      concurrency,
      stalledInterval: this.opts.stalledIntervalMs,
      lockDuration: this.opts.lockDurationMs,
      maxStalledCount: this.opts.maxStalledCount,
      runRetryDelay: RUN_RETRY_DELAY_MS,
    });
    worker.on('error', (err) => this.logError(err, lane, 'jobs: worker error'));
    worker.on('stalled', (jobId) => this.log.warn({ jobId, lane }, 'jobs: stalled delivery moved back to wait'));
    this.workers.set(lane, worker);
  }

  /** A parked delivery comes back by itself after this long, should no release wake it. */
  private parkMs(): number {
    return this.opts.lockDurationMs + this.opts.stalledIntervalMs;
  }

  private tenantSlots(lane: Lane, perTenant: number): TenantSlots {
    // The worker side's kind of connection: through an outage its commands wait for Redis.
    if (!this.slotsRedis) {
      this.slotsRedis = new Redis(this.opts.url, workerConnectionOptions(this.opts.url));
      this.slotsRedis.on('error', (err) => this.logError(err, lane, 'jobs: tenant slots connection error'));
    }
    return new TenantSlots(this.slotsRedis, { prefix: this.opts.prefix, lane, perTenant, leaseMs: this.opts.lockDurationMs, parkMs: this.parkMs() });
  }

  /** Frees a tenant's slot and wakes its oldest parked delivery, if any. */
  private async giveBack(slots: TenantSlots, lane: Lane, tenantId: string, deliveryId: string): Promise<void> {
    try {
      const next = await slots.give(tenantId, deliveryId);
      if (next) await (await this.queues[lane].getJob(next))?.promote();
    } catch (err) {
      // Not promoted (no longer delayed, or Redis away): it comes back after its own delay.
      if (!/not in the delayed state|is not in delayed/i.test((err as Error).message)) this.logError(err, lane, 'jobs: could not wake a parked delivery');
    }
  }

  async depth(): Promise<QueueDepth> {
    return sumDepths(await this.depthByLane());
  }

  async depthByLane(): Promise<LaneDepths> {
    const lanes = {} as LaneDepths;
    for (const [lane, q] of Object.entries(this.queues) as [Lane, Queue][]) {
      const c = await failFast(ROLE, () => q.getJobCounts('wait', 'prioritized', 'active', 'delayed'));
      lanes[lane] = { waiting: (c.wait ?? 0) + (c.prioritized ?? 0), active: c.active ?? 0, delayed: c.delayed ?? 0 };
    }
    return lanes;
  }

  /** Closes the Workers (BullMQ's close waits for their running handlers); the Queues stay open. */
  async stopConsuming(): Promise<void> {
    await Promise.all([...this.workers.values()].map((w) => w.close()));
  }

  /** Stops taking deliveries, waits for running handlers, closes connections. */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    await this.stopConsuming();
    await Promise.all(Object.values(this.queues).map((q) => q.close()));
    this.slotsRedis?.disconnect();
  }
}
