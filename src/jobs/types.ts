// The document job: states, record shape, and the store/queue interfaces that the embedded
// and Redis implementations both satisfy (one shared test suite: test/jobs/contract.ts).
import type { JobFailureCode } from '../errors/catalogue.js';
import type { JobOptions, Lane } from '../formats/kit/options.js';

export const JobState = {
  NotQueued: 0,
  Received: 1,
  Queued: 2,
  Processing: 3,
  Materializing: 4,
  Retrying: 5,
  WaitingForProvider: 6,
  ProviderProcessing: 7,
  Completed: 8,
  Failed: 9,
} as const;
export type JobStateInt = (typeof JobState)[keyof typeof JobState];

/** The spec's status strings, indexed by statusInt. */
export const STATUS_NAMES = [
  'job not yet queued',
  'received',
  'queued',
  'processing',
  'materializing',
  'retrying',
  'waiting-for-provider',
  'provider-processing',
  'completed',
  'failed',
] as const;

// A job's parse options and lane are the parsers' words (src/formats/kit/options.ts).
export type { JobOptions, Lane } from '../formats/kit/options.js';

export interface JobError {
  /** One of the catalogue's job failures (src/errors/catalogue.ts). */
  code: JobFailureCode;
  message: string;
  /** Pipeline stage that failed: 'upload' | 'detect' | 'extract' | 'materialize' | 'worker' | 'cancel' (cancelled by the app). */
  stage: string;
}

export interface JobRecord {
  tenantId: string;
  appId: string;
  documentId: string;
  /** Unique id of this upload of documentId; an overwrite makes a new generation. */
  generation: string;
  statusInt: JobStateInt;
  /** Concrete detected format, e.g. 'csv', 'pdf'. */
  format: string;
  lane: Lane;
  fileName: string | null;
  options: JobOptions;
  customMetadata: Record<string, unknown> | null;
  uploadKey: string;
  sizeBytes: number;
  sha256: string;
  attempts: number;
  createdAt: string;
  updatedAt: string;
  startedAt: string | null;
  completedAt: string | null;
  /** When status/result start answering 404 and the bytes are removed. */
  expiresAt: string;
  error: JobError | null;
  artifactKey: string | null;
  artifactBytes: number | null;
  documentUnits: number | null;
  /** Storage config the blobs live in (tenant's own S3), or null for the node's default. */
  storageConfigId: string | null;
  /** The upload request's id, so the worker's log lines join the request's. */
  requestId?: string | null;
  /** Where the job's end is announced (a signed webhook, src/webhooks); absent when none was asked for. */
  callbackUrl?: string | null;
}

export interface JobRef {
  tenantId: string;
  documentId: string;
  generation: string;
  lane: Lane;
}

export interface JobStore {
  /**
   * Creates or replaces the job for (tenantId, documentId). Returns the previous record
   * when one was replaced (its blobs are the caller's to delete).
   */
  put(job: JobRecord): Promise<JobRecord | null>;
  /**
   * Like put, for an upload session (state 0), in one atomic step: refused (null) when an
   * unexpired job that has its bytes (state ≥ 1) is stored under the id — a direct upload
   * that completed meanwhile is never replaced by an empty session.
   */
  putSession(job: JobRecord): Promise<{ previous: JobRecord | null } | null>;
  /**
   * Like put, unless a live job of another generation is stored under the id (unexpired, with
   * its bytes, not failed): then nothing is written and that job is returned, for the caller to
   * decide (an upload repeating it is answered with it; any other replaces it with put). One
   * step where a read and a put were two.
   */
  putUnlessLive(job: JobRecord): Promise<{ stored: true; previous: JobRecord | null } | { stored: false; live: JobRecord }>;
  /** Unexpired job, or null. */
  get(tenantId: string, documentId: string): Promise<JobRecord | null>;
  getMany(tenantId: string, documentIds: string[]): Promise<(JobRecord | null)[]>;
  /**
   * Moves a job to a new state, applying patch, only if the stored generation matches and
   * the transition is legal (jobs/transitions.ts). Returns the new record, or null when
   * the job is gone or was overwritten by a newer generation (a stale worker's update).
   */
  transition(
    ref: Pick<JobRef, 'tenantId' | 'documentId' | 'generation'>,
    to: JobStateInt,
    patch?: Partial<Pick<JobRecord, 'startedAt' | 'completedAt' | 'error' | 'artifactKey' | 'artifactBytes' | 'documentUnits' | 'attempts'>>,
    /** Only from these states (a cancel: transitions.ts CANCELLABLE_STATES); others throw IllegalTransitionError. */
    opts?: { from?: readonly JobStateInt[] },
  ): Promise<JobRecord | null>;
  /**
   * A light job's delivery, read and started in one step: the unexpired job under `ref`'s id,
   * moved 2/5 → 3 (Processing) when it waits under `ref.generation` and its attempt — the
   * delivery's, or the stored attempts + 1 if more — is within maxAttempts, with `attempts` set
   * to it and `startedAt` set unless set before (`started: true`). Otherwise the job as get()
   * would read it, unchanged, for the worker's other paths (`started: false`).
   */
  startLight(
    ref: Pick<JobRef, 'tenantId' | 'documentId' | 'generation'>,
    attempt: number,
    maxAttempts: number,
  ): Promise<{ job: JobRecord | null; started: boolean }>;
  /**
   * Removes the record (retention sweep, overwrite). With `generation`, removes it only if
   * that generation is still the stored one, so a sweep never deletes a newer upload that
   * replaced the expired record it listed.
   */
  delete(tenantId: string, documentId: string, generation?: string): Promise<void>;
  /** Jobs whose expiresAt is before now, for the retention sweep to delete with their blobs. */
  listExpired(now: Date, limit: number): Promise<JobRecord[]>;
  /** Unfinished jobs of an app (states 0–7), for the per-plan concurrency limit. */
  countUnfinished(appId: string): Promise<number>;
  /** Unfinished jobs of every tenant, for the embedded queue's recovery on boot. */
  listUnfinished(): Promise<JobRecord[]>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface Delivery {
  ref: JobRef;
  /** 1 on first delivery. */
  attempt: number;
}

export interface QueueDepth {
  waiting: number;
  active: number;
  delayed: number;
}

/** Depth of each lane; QueueDepth is their sum. */
export type LaneDepths = Record<Lane, QueueDepth>;

export interface JobQueue {
  /**
   * Idempotent per (tenantId, documentId, generation) while that delivery is pending.
   * Deliveries of different tenants are taken in turns, not in arrival order alone, so one
   * tenant's flood does not starve another's job (docs/jobs.md, Fairness).
   */
  enqueue(ref: JobRef, opts?: EnqueueOptions): Promise<void>;
  /**
   * Starts consuming a lane with up to `concurrency` handlers at once. A handler that
   * resolves acknowledges the delivery. A handler that throws RetryLater makes the queue
   * deliver it again after `delayMs`. Anything else thrown is a bug: the delivery is
   * dropped and logged (the handler owns the job's state). Deliveries whose handler never
   * finished (process died) are delivered again after restart (stalled-job recovery).
   */
  consume(lane: Lane, concurrency: number, handler: (d: Delivery) => Promise<void>, opts?: ConsumeOptions): void;
  depth(): Promise<QueueDepth>;
  /** The same counts, lane by lane (node-state and /metrics read them through jobs/depth-cache.ts). */
  depthByLane(): Promise<LaneDepths>;
  /**
   * Stops taking new deliveries and waits for running handlers (a node that drains); enqueue
   * still works, for the uploads it answers meanwhile.
   */
  stopConsuming(): Promise<void>;
  /** Stops taking new deliveries, waits for running handlers, and closes. */
  close(): Promise<void>;
}

export interface EnqueueOptions {
  /**
   * The caller made this generation just now, so no earlier delivery of it can exist
   * (finished or not) and none is looked for (one round trip fewer per upload).
   */
  fresh?: boolean;
  /**
   * Unfinished jobs its app had before this one (the intake's count for the plan's limit).
   * The Redis queue turns it into the delivery's turn: a BullMQ priority of
   * ⌊inFlight / DOCPARSE_QUEUE_FAIR_TURN⌋, so an app's k-th queued job waits behind the
   * first k of every other app. The embedded queue takes tenants in turns and ignores it.
   */
  inFlight?: number;
}

export interface ConsumeOptions {
  /**
   * Most handlers of one tenant's deliveries that run at once on this lane: in the process
   * (embedded) or on every node consuming the same Redis queue together. A tenant's further
   * deliveries wait, in the order they were enqueued, without holding a slot, while other
   * tenants' run; waiting costs no attempt. Default: only `concurrency` bounds a tenant.
   */
  perTenant?: number;
}

export class RetryLater extends Error {
  constructor(
    public readonly delayMs: number,
    reason: string,
  ) {
    super(reason);
    this.name = 'RetryLater';
  }
}

/**
 * Thrown by a handler whose node is stopping before the job is done: the delivery goes back
 * to the queue at once, for another node (or this one's next start, embedded), and the turn
 * it had is not counted as an attempt.
 */
export class HandBack extends RetryLater {
  readonly handBack = true;
  constructor(reason: string) {
    super(0, reason);
  }
}

/** A counter that reserveInWindow takes a slot in, and how many slots its window holds. */
export interface WindowLimit {
  key: string;
  limit: number;
}

export type WindowReservation =
  /** One slot taken in every counter, in fixed window number `window` (for releaseInWindow). */
  | { taken: true; window: number }
  /** Nothing taken: counter `fullKey` already held its limit. */
  | { taken: false; fullKey: string };

/** Short-window counters shared by every node (Redis) or by the process (embedded). */
export interface RateCounters {
  /**
   * Adds amount to a fixed window counter and returns the window's total. With `lazyBelow`,
   * an addition that leaves the total (as this node last read it, plus what it added since)
   * under that bound may be sent to the shared counter a moment later, batched with others
   * (window-adds.ts), and the total returned is this node's view; at or over it, the answer
   * is the shared counter's.
   */
  addToWindow(key: string, amount: number, windowSeconds: number, opts?: { lazyBelow?: number }): Promise<number>;
  /**
   * Takes one slot in the current fixed window of every counter if each is below its limit,
   * else takes none, in one atomic step: concurrent callers can never pass a limit together
   * (a check followed by a separate add could). Counters are the ones addToWindow adds to.
   */
  reserveInWindow(limits: WindowLimit[], windowSeconds: number): Promise<WindowReservation>;
  /**
   * Gives back slots taken by reserveInWindow in fixed window number `window`. A window that
   * has already ended is left alone, so a late release never credits the next one.
   */
  releaseInWindow(keys: string[], windowSeconds: number, window: number): Promise<void>;
  close(): Promise<void>;
}
