// In-process JobQueue for the embedded deployment: per lane, a FIFO per tenant taken in turns
// (tenant-turns.ts: a tenant that floods the lane does not delay another's next delivery by
// more than one of its own; a tenant at its perTenant bound is skipped), a concurrency-limited
// consumer, timers for RetryLater. The queue itself is not persisted: the JobStore is the
// durable record, and recoverUnfinished() re-enqueues every job that still needs a worker
// when the process boots.

import { needsDelivery } from './transitions.js';
import type { ConsumeOptions, Delivery, JobQueue, JobRef, JobStore, Lane, LaneDepths, QueueDepth } from './types.js';
import { consoleLogger, deliveryId, errorInfo, isRetryLater, refOf, sumDepths, type JobLogger } from './support.js';
import { TenantTurns } from './tenant-turns.js';

interface Item {
  id: string;
  ref: JobRef;
  attempt: number;
}

interface LaneState {
  /** Waiting deliveries by tenant, each tenant's in arrival order, tenants in turns. */
  waiting: TenantTurns<Item>;
  active: number;
  /** Deliveries waiting out a RetryLater delay. */
  delayed: number;
  activeByTenant: Map<string, number>;
  consumer: { concurrency: number; perTenant: number; handler: (d: Delivery) => Promise<void> } | null;
}

export interface EmbeddedJobQueueOptions {
  log?: JobLogger;
}

const newLane = (): LaneState => ({ waiting: new TenantTurns(), active: 0, delayed: 0, activeByTenant: new Map(), consumer: null });

export class EmbeddedJobQueue implements JobQueue {
  private readonly lanes: Record<Lane, LaneState> = { light: newLane(), heavy: newLane() };
  /** Delivery ids not yet acknowledged: waiting, delayed or active. */
  private readonly pending = new Set<string>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly running = new Set<Promise<void>>();
  private readonly log: JobLogger;
  private closing = false;
  /** No handler starts any more (stopConsuming or close); what arrives waits for the next boot. */
  private stopped = false;

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

  consume(lane: Lane, concurrency: number, handler: (d: Delivery) => Promise<void>, opts: ConsumeOptions = {}): void {
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`);
    const perTenant = opts.perTenant ?? concurrency;
    if (!Number.isInteger(perTenant) || perTenant < 1) throw new RangeError(`perTenant must be a positive integer, got ${perTenant}`);
    const state = this.lanes[lane];
    if (state.consumer) throw new Error(`lane ${lane} already has a consumer`);
    state.consumer = { concurrency, perTenant, handler };
    this.pump(lane);
  }

  async depth(): Promise<QueueDepth> {
    return sumDepths(await this.depthByLane());
  }

  async depthByLane(): Promise<LaneDepths> {
    const { light, heavy } = this.lanes;
    return {
      light: { waiting: light.waiting.size, active: light.active, delayed: light.delayed },
      heavy: { waiting: heavy.waiting.size, active: heavy.active, delayed: heavy.delayed },
    };
  }

  async stopConsuming(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const s of Object.values(this.lanes)) s.delayed = 0;
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.stopConsuming();
  }

  private push(item: Item): void {
    this.lanes[item.ref.lane].waiting.push(item.ref.tenantId, item);
    this.pump(item.ref.lane);
  }

  /** The next tenant in turn's oldest waiting delivery, skipping tenants that hold perTenant slots. */
  private take(s: LaneState, perTenant: number): Item | undefined {
    // Without a bound below the concurrency no tenant can be at it: no check per delivery.
    if (perTenant >= s.consumer!.concurrency) return s.waiting.take();
    return s.waiting.take((tenant) => (s.activeByTenant.get(tenant) ?? 0) < perTenant);
  }

  private pump(lane: Lane): void {
    const s = this.lanes[lane];
    const consumer = s.consumer;
    if (!consumer) return;
    while (!this.stopped && s.active < consumer.concurrency) {
      const item = this.take(s, consumer.perTenant);
      if (!item) return;
      const tenant = item.ref.tenantId;
      s.active++;
      s.activeByTenant.set(tenant, (s.activeByTenant.get(tenant) ?? 0) + 1);
      const run = this.run(item, consumer.handler).finally(() => {
        s.active--;
        const n = s.activeByTenant.get(tenant)! - 1;
        if (n) s.activeByTenant.set(tenant, n);
        else s.activeByTenant.delete(tenant);
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
      if (isRetryLater(err) && !this.stopped) {
        const lane = this.lanes[item.ref.lane];
        const t = setTimeout(
          () => {
            this.timers.delete(t);
            lane.delayed--;
            this.push({ ...item, attempt: item.attempt + 1 });
          },
          Math.max(0, err.delayMs),
        );
        this.timers.add(t);
        lane.delayed++;
        return;
      }
      this.pending.delete(item.id);
      if (isRetryLater(err)) return; // stopping: recovery on the next boot delivers it again
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
