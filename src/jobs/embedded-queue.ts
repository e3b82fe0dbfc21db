// In-process JobQueue for the embedded deployment: a FIFO per lane, a concurrency-limited
// consumer, timers for RetryLater. The queue itself is not persisted: the JobStore is the
// durable record, and recoverUnfinished() re-enqueues every job that still needs a worker
// when the process boots.

import { needsDelivery } from './transitions.js';
import type { Delivery, JobQueue, JobRef, JobStore, Lane, QueueDepth } from './types.js';
import { consoleLogger, deliveryId, errorInfo, isRetryLater, refOf, type JobLogger } from './support.js';

interface Item {
  id: string;
  ref: JobRef;
  attempt: number;
}

interface LaneState {
  waiting: Item[];
  head: number;
  active: number;
  consumer: { concurrency: number; handler: (d: Delivery) => Promise<void> } | null;
}

export interface EmbeddedJobQueueOptions {
  log?: JobLogger;
}

export class EmbeddedJobQueue implements JobQueue {
  private readonly lanes: Record<Lane, LaneState> = {
    light: { waiting: [], head: 0, active: 0, consumer: null },
    heavy: { waiting: [], head: 0, active: 0, consumer: null },
  };
  /** Delivery ids not yet acknowledged: waiting, delayed or active. */
  private readonly pending = new Set<string>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly running = new Set<Promise<void>>();
  private readonly log: JobLogger;
  private closing = false;

  constructor(opts: EmbeddedJobQueueOptions = {}) {
    this.log = opts.log ?? consoleLogger;
  }

  async enqueue(ref: JobRef): Promise<void> {
    if (this.closing) throw new Error('job queue is closed');
    const id = deliveryId(ref);
    if (this.pending.has(id)) return;
    this.pending.add(id);
    this.push({ id, ref: { ...ref }, attempt: 1 });
  }

  consume(lane: Lane, concurrency: number, handler: (d: Delivery) => Promise<void>): void {
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`);
    const state = this.lanes[lane];
    if (state.consumer) throw new Error(`lane ${lane} already has a consumer`);
    state.consumer = { concurrency, handler };
    this.pump(lane);
  }

  async depth(): Promise<QueueDepth> {
    let waiting = 0;
    let active = 0;
    for (const s of Object.values(this.lanes)) {
      waiting += s.waiting.length - s.head;
      active += s.active;
    }
    return { waiting, active, delayed: this.timers.size };
  }

  async close(): Promise<void> {
    this.closing = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  private push(item: Item): void {
    const s = this.lanes[item.ref.lane];
    s.waiting.push(item);
    this.pump(item.ref.lane);
  }

  private shift(s: LaneState): Item | undefined {
    if (s.head >= s.waiting.length) return undefined;
    const item = s.waiting[s.head++];
    if (s.head > 1024 && s.head * 2 > s.waiting.length) {
      s.waiting = s.waiting.slice(s.head);
      s.head = 0;
    }
    return item;
  }

  private pump(lane: Lane): void {
    const s = this.lanes[lane];
    const consumer = s.consumer;
    if (!consumer) return;
    while (!this.closing && s.active < consumer.concurrency) {
      const item = this.shift(s);
      if (!item) return;
      s.active++;
      const run = this.run(item, consumer.handler).finally(() => {
        s.active--;
        this.running.delete(run);
        this.pump(lane);
      });
      this.running.add(run);
    }
  }

  private async run(item: Item, handler: (d: Delivery) => Promise<void>): Promise<void> {
    try {
      // Defer to a fresh tick so a handler never runs inside enqueue()'s call stack.
      await new Promise<void>((resolve) => setImmediate(resolve));
      await handler({ ref: { ...item.ref }, attempt: item.attempt });
      this.pending.delete(item.id);
    } catch (err) {
      if (isRetryLater(err) && !this.closing) {
        const t = setTimeout(
          () => {
            this.timers.delete(t);
            this.push({ ...item, attempt: item.attempt + 1 });
          },
          Math.max(0, err.delayMs),
        );
        this.timers.add(t);
        return;
      }
      this.pending.delete(item.id);
      if (isRetryLater(err)) return; // closing: recovery on the next boot delivers it again
      this.log.error({ ...errorInfo(err), ref: item.ref, attempt: item.attempt }, 'jobs: handler failed; delivery dropped');
    }
  }
}

/**
 * Re-enqueues every job that still needs a worker (states 1–7) after a restart of the
 * embedded backend, oldest first. Upload sessions (state 0) are left alone: they have no
 * bytes yet. Returns the number of jobs enqueued.
 */
export async function recoverUnfinished(store: JobStore, queue: JobQueue): Promise<number> {
  let n = 0;
  for (const job of await store.listUnfinished()) {
    if (!needsDelivery(job.statusInt)) continue;
    await queue.enqueue(refOf(job));
    n++;
  }
  return n;
}
