// Chooses the job backend: Redis (BullMQ) when a Redis URL is configured, else the embedded
// in-process implementation persisted under dataDir. The embedded backend's queue is not
// persistent: the caller runs recoverUnfinished(store, queue) at boot (kind === 'embedded').
// With Redis, the node waits up to FIRST_CONNECT_TIMEOUT_MS for it at start; once running,
// Redis outages fail requests fast (503) and heal by themselves (redis-connection.ts).

import { EmbeddedRateCounters } from './embedded-counters.js';
import { EmbeddedJobQueue } from './embedded-queue.js';
import { EmbeddedJobStore } from './embedded-store.js';
import { EmbeddedJobEvents, type JobEvents } from './events.js';
import type { JobLogger } from './support.js';
import type { JobQueue, JobStore, RateCounters } from './types.js';

export interface OpenJobBackendOptions {
  redisUrl?: string;
  dataDir: string;
  /** Key namespace in Redis (default 'docparse'). */
  prefix?: string;
  log?: JobLogger;
  /**
   * Redis only: stalled-delivery check interval and lock duration (ms). Defaults (5 s, 10 s:
   * redis-queue.ts TAKEOVER_DEFAULTS) take over a dead node's deliveries within 15 s.
   */
  stalledIntervalMs?: number;
  lockDurationMs?: number;
  /** Redis only: how long an expired record stays readable by the sweeper (ms, default 24 h). */
  expiredGraceMs?: number;
  /** Redis only: deliveries of one app per turn (redis-queue.ts, Turns; DOCPARSE_QUEUE_FAIR_TURN). */
  fairTurn?: number;
}

export interface JobBackend {
  store: JobStore;
  queue: JobQueue;
  counters: RateCounters;
  /** Each job's state changes and progress, and cancels for the worker (events.ts). */
  events: JobEvents;
  kind: 'redis' | 'embedded';
  /** Closes the queue first (waiting for running handlers), then the store and counters. */
  close(): Promise<void>;
}

export async function openJobBackend(opts: OpenJobBackendOptions): Promise<JobBackend> {
  if (opts.redisUrl) {
    // Loaded only here: an embedded node never holds BullMQ or ioredis (≈ 15 MB).
    const [{ RedisJobStore }, { RedisRateCounters }, { RedisJobQueue }, { waitForRedis }, { RedisJobEvents }] = await Promise.all([
      import('./redis-store.js'),
      import('./redis-counters.js'),
      import('./redis-queue.js'),
      import('./redis-connection.js'),
      import('./events.js'),
    ]);
    const prefix = opts.prefix ?? 'docparse';
    const store = new RedisJobStore({ url: opts.redisUrl, prefix, expiredGraceMs: opts.expiredGraceMs, log: opts.log });
    const counters = new RedisRateCounters({ url: opts.redisUrl, prefix, log: opts.log });
    const queue = new RedisJobQueue({
      url: opts.redisUrl,
      prefix,
      log: opts.log,
      stalledIntervalMs: opts.stalledIntervalMs,
      lockDurationMs: opts.lockDurationMs,
      fairTurn: opts.fairTurn,
    });
    try {
      await Promise.all([waitForRedis(store.redis, 'job store'), waitForRedis(counters.redis, 'rate limiter')]);
      await store.ping();
    } catch (err) {
      await Promise.allSettled([queue.close(), store.close(), counters.close()]);
      throw err;
    }
    const events = new RedisJobEvents({ url: opts.redisUrl, prefix, publisher: store.redis, log: opts.log });
    return backend('redis', store, queue, counters, events);
  }
  const events = new EmbeddedJobEvents();
  const store = await EmbeddedJobStore.open({ dataDir: opts.dataDir, log: opts.log, onChange: events.stateChanged });
  const queue = new EmbeddedJobQueue({ log: opts.log });
  const counters = new EmbeddedRateCounters();
  return backend('embedded', store, queue, counters, events);
}

function backend(kind: JobBackend['kind'], store: JobStore, queue: JobQueue, counters: RateCounters, events: JobEvents): JobBackend {
  return {
    store,
    queue,
    counters,
    events,
    kind,
    close: async () => {
      await queue.close();
      await Promise.all([store.close(), counters.close(), events.close()]);
    },
  };
}
