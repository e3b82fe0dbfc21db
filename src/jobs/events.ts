// The per-job event feed: what the live status stream (api/live-status.ts), the long poll and
// `Prefer: wait` listen to, and how a cancel reaches the node parsing the job.
//
// State changes cost the job path nothing extra. Embedded: the store calls stateChanged() on
// every put and transition (in process, in order). Distributed: the store's own put and
// transition Lua scripts PUBLISH each change on the job's channel (redis-store.ts), so every
// node's subscriber sees every change of a job in the order Redis applied them, with no write
// and no round trip added. A node SUBSCRIBEs to a job's channel only while one of its clients
// follows that job, and unsubscribes when the last one leaves: nobody listening, no work.
//
// Progress (pages or items done of the total when known) is published by the worker at most
// once a second per job, and not at all during a job's first second.
//
// Cancels: the node that cancels a job announces it on one channel (`…:jobs:cancel`) that
// each worker node follows; the node running the job aborts its parse (pipeline/job-ending.ts).

import type { Redis } from 'ioredis';

import { recordKey, type JobLogger } from './support.js';
import type { JobRecord, JobRef, JobStateInt } from './types.js';
import { loadIoredis, reconnectDelayMs } from './redis-connection.js';

/** A job's new state (which generation, when). */
export interface StateEvent {
  kind: 'state';
  generation: string;
  statusInt: JobStateInt;
  updatedAt: string;
}

/**
 * How far a running parse is: the fraction its parser reports and, once the parser has counted
 * the document's Document Units (pages, sheets, messages, statements…), how many of them are done.
 */
export interface ProgressEvent {
  kind: 'progress';
  generation: string;
  /** 0..1 */
  fraction: number;
  done: number | null;
  total: number | null;
}

export type JobEvent = StateEvent | ProgressEvent;
export type JobEventListener = (event: JobEvent) => void;
export type JobIdentity = Pick<JobRef, 'tenantId' | 'documentId' | 'generation'>;

export interface JobEvents {
  /**
   * Follows one job's events (every generation under the id). Resolves once listening, so a
   * caller that reads the job's state afterwards misses nothing in between; the function it
   * resolves to stops listening.
   */
  follow(tenantId: string, documentId: string, listener: JobEventListener): Promise<() => void>;
  /** Tells the job's followers, on every node, how far its parse is. */
  progress(job: JobIdentity, progress: Omit<ProgressEvent, 'kind' | 'generation'>): void;
  /** Tells every worker node that this job was cancelled. */
  announceCancel(job: JobIdentity): Promise<void>;
  /** A worker node hears cancels here (call once). */
  onCancel(listener: (job: JobIdentity) => void): void;
  close(): Promise<void>;
}

/** Followers on this node, by job; what both implementations hand their events to. */
class LocalFollowers {
  private readonly byJob = new Map<string, Set<JobEventListener>>();

  /** Adds a follower; true when it is the job's first on this node. */
  add(key: string, listener: JobEventListener): boolean {
    let set = this.byJob.get(key);
    const first = !set;
    if (!set) this.byJob.set(key, (set = new Set()));
    set.add(listener);
    return first;
  }

  /** Removes a follower; true when it was the job's last on this node. */
  remove(key: string, listener: JobEventListener): boolean {
    const set = this.byJob.get(key);
    if (!set?.delete(listener)) return false;
    if (set.size > 0) return false;
    this.byJob.delete(key);
    return true;
  }

  has(key: string): boolean {
    return this.byJob.has(key);
  }

  /** Nobody follows any job on this node. */
  get empty(): boolean {
    return this.byJob.size === 0;
  }

  emit(key: string, event: JobEvent): void {
    const set = this.byJob.get(key);
    if (!set) return;
    for (const listener of [...set]) listener(event);
  }
}

/** One process: the embedded store reports every change here. */
export class EmbeddedJobEvents implements JobEvents {
  private readonly followers = new LocalFollowers();
  private readonly cancelListeners: ((job: JobIdentity) => void)[] = [];

  /** The store's hook (EmbeddedJobStoreOptions.onChange): a record was put or moved. */
  readonly stateChanged = (job: JobRecord): void => {
    if (this.followers.empty) return; // the common case: no work per change
    const key = recordKey(job.tenantId, job.documentId);
    if (!this.followers.has(key)) return;
    this.followers.emit(key, { kind: 'state', generation: job.generation, statusInt: job.statusInt, updatedAt: job.updatedAt });
  };

  async follow(tenantId: string, documentId: string, listener: JobEventListener): Promise<() => void> {
    const key = recordKey(tenantId, documentId);
    this.followers.add(key, listener);
    return () => void this.followers.remove(key, listener);
  }

  progress(job: JobIdentity, progress: Omit<ProgressEvent, 'kind' | 'generation'>): void {
    this.followers.emit(recordKey(job.tenantId, job.documentId), { kind: 'progress', generation: job.generation, ...progress });
  }

  async announceCancel(job: JobIdentity): Promise<void> {
    const { tenantId, documentId, generation } = job;
    for (const listener of this.cancelListeners) listener({ tenantId, documentId, generation });
  }

  onCancel(listener: (job: JobIdentity) => void): void {
    this.cancelListeners.push(listener);
  }

  async close(): Promise<void> {}
}

/** The channel a job's changes are published on (the store's scripts publish there too). */
export function jobChannel(prefix: string, tenantId: string, documentId: string): string {
  return `${prefix}:jobs:ev:${recordKey(tenantId, documentId)}`;
}

/**
 * A state change as the Lua scripts publish it: `s <generation> <statusInt> <updatedAt>`;
 * progress: `p <generation> <fraction> <done or -> <total or ->`. Plain words: the scripts only concatenate.
 */
export function decodeJobMessage(message: string): JobEvent | null {
  const [kind, generation, a, b, c] = message.split(' ');
  if (kind === 's' && generation && a && b) return { kind: 'state', generation, statusInt: Number(a) as JobStateInt, updatedAt: b };
  const count = (x: string) => (x === '-' ? null : Number(x));
  if (kind === 'p' && generation && a && b && c) return { kind: 'progress', generation, fraction: Number(a), done: count(b), total: count(c) };
  return null;
}

export interface RedisJobEventsOptions {
  url: string;
  /** The job store's key namespace (its scripts publish on `${prefix}:jobs:ev:…`). */
  prefix: string;
  /** A connection that may publish (the job store's). */
  publisher: Redis;
  log?: JobLogger;
}

/** Many nodes: Redis pub/sub, one subscriber connection per node, opened when first needed. */
export class RedisJobEvents implements JobEvents {
  private readonly followers = new LocalFollowers();
  private subscriber: Redis | null = null;
  /** The SUBSCRIBE of each followed job's channel (settled once it is listening). */
  private readonly subscribing = new Map<string, Promise<unknown>>();
  private readonly cancelChannel: string;
  private readonly cancelListeners: ((job: JobIdentity) => void)[] = [];
  private closed = false;

  constructor(private readonly o: RedisJobEventsOptions) {
    this.cancelChannel = `${o.prefix}:jobs:cancel`;
  }

  private sub(): Redis {
    if (this.subscriber) return this.subscriber;
    // Its own connection (a subscribed one takes no other command); commands wait through an
    // outage, and ioredis subscribes again to every channel once it is back.
    const sub = new (loadIoredis().Redis)(this.o.url, { maxRetriesPerRequest: null, retryStrategy: reconnectDelayMs });
    sub.on('error', (err) => this.o.log?.warn({ err: err.message }, 'job events: subscriber connection error'));
    sub.on('message', (channel: string, message: string) => this.onMessage(channel, message));
    this.subscriber = sub;
    return sub;
  }

  private onMessage(channel: string, message: string): void {
    if (channel === this.cancelChannel) {
      try {
        const job = JSON.parse(message) as JobIdentity;
        for (const listener of this.cancelListeners) listener(job);
      } catch {
        /* not ours */
      }
      return;
    }
    const event = decodeJobMessage(message);
    if (event) this.followers.emit(channel, event);
  }

  async follow(tenantId: string, documentId: string, listener: JobEventListener): Promise<() => void> {
    const channel = jobChannel(this.o.prefix, tenantId, documentId);
    if (this.followers.add(channel, listener)) this.subscribing.set(channel, this.sub().subscribe(channel));
    try {
      // A second follower of the job waits for the first one's SUBSCRIBE too.
      await this.subscribing.get(channel);
    } catch (err) {
      if (this.followers.remove(channel, listener)) this.subscribing.delete(channel);
      throw err;
    }
    return () => {
      if (!this.followers.remove(channel, listener)) return;
      this.subscribing.delete(channel);
      if (!this.closed) this.subscriber?.unsubscribe(channel).catch(() => {});
    };
  }

  progress(job: JobIdentity, p: Omit<ProgressEvent, 'kind' | 'generation'>): void {
    const message = `p ${job.generation} ${p.fraction} ${p.done ?? '-'} ${p.total ?? '-'}`;
    this.o.publisher.publish(jobChannel(this.o.prefix, job.tenantId, job.documentId), message).catch(() => {
      /* progress is best effort: the next one, or the state change, follows */
    });
  }

  async announceCancel(job: JobIdentity): Promise<void> {
    const { tenantId, documentId, generation } = job;
    await this.o.publisher.publish(this.cancelChannel, JSON.stringify({ tenantId, documentId, generation }));
  }

  onCancel(listener: (job: JobIdentity) => void): void {
    if (this.cancelListeners.push(listener) === 1) {
      this.sub()
        .subscribe(this.cancelChannel)
        .catch((err) => this.o.log?.error({ err: (err as Error).message }, 'job events: could not follow cancels'));
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const sub = this.subscriber;
    this.subscriber = null;
    if (sub) await sub.quit().catch(() => sub.disconnect());
  }
}
