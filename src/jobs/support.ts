// Small helpers shared by the job store/queue implementations.

import { isJobState } from './transitions.js';
import type { JobRecord, JobRef, LaneDepths, QueueDepth } from './types.js';

/** pino-compatible subset; the wiring passes its pino logger. */
export interface JobLogger {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export const consoleLogger: JobLogger = {
  warn: (obj, msg) => console.warn(msg, obj),
  error: (obj, msg) => console.error(msg, obj),
};

export function b64u(s: string): string {
  return Buffer.from(s, 'utf8').toString('base64url');
}

/** Identity of a job record: one per (tenantId, documentId). Injective: base64url never contains '.'. */
export function recordKey(tenantId: string, documentId: string): string {
  return `${b64u(tenantId)}.${b64u(documentId)}`;
}

/**
 * Identity of one delivery: (tenantId, documentId, generation). Safe as a BullMQ custom job
 * id (no ':', never an integer string).
 */
export function deliveryId(ref: Pick<JobRef, 'tenantId' | 'documentId' | 'generation'>): string {
  return `${b64u(ref.tenantId)}.${b64u(ref.documentId)}.${b64u(ref.generation)}`;
}

export function refOf(job: JobRecord): JobRef {
  return { tenantId: job.tenantId, documentId: job.documentId, generation: job.generation, lane: job.lane };
}

export function expiresAtMs(job: Pick<JobRecord, 'expiresAt'>): number {
  const t = Date.parse(job.expiresAt);
  if (Number.isNaN(t)) throw new TypeError(`job expiresAt is not a timestamp: ${JSON.stringify(job.expiresAt)}`);
  return t;
}

/** True when the record is past its retention (expiresAt < now): invisible to get(). */
export function isExpired(job: Pick<JobRecord, 'expiresAt'>, nowMs: number): boolean {
  return expiresAtMs(job) < nowMs;
}

export function cloneRecord(job: JobRecord): JobRecord {
  return structuredClone(job);
}

/**
 * Freezes a record and everything in it (iteratively: custom metadata may be deeply
 * nested), so a store can hand the one copy it holds to every reader: a status poll reads
 * many records and copying each was most of its cost. A reader that tried to change one
 * would throw (modules run in strict mode) instead of changing the store behind its back.
 */
export function deepFreeze<T extends object>(value: T): Readonly<T> {
  const stack: object[] = [value];
  while (stack.length > 0) {
    const o = stack.pop()!;
    if (Object.isFrozen(o)) continue;
    Object.freeze(o);
    for (const v of Object.values(o)) if (v !== null && typeof v === 'object') stack.push(v as object);
  }
  return value;
}

export function isRetryLater(err: unknown): err is { delayMs: number; message: string; handBack?: true } {
  return err instanceof Error && err.name === 'RetryLater' && typeof (err as { delayMs?: unknown }).delayMs === 'number';
}

export function errorInfo(err: unknown): object {
  return err instanceof Error ? { err: { name: err.name, message: err.message, stack: err.stack } } : { err };
}

/** A deep copy of obj without its undefined-valued keys (a patch never un-sets a field by omission). */
export function definedOnly<T extends object>(obj: T | undefined): Partial<T> {
  const out: Partial<T> = {};
  if (!obj) return out;
  for (const [k, v] of Object.entries(obj)) if (v !== undefined) (out as Record<string, unknown>)[k] = structuredClone(v);
  return out;
}

/** Fields JobStore.transition() may patch. */
export const PATCHABLE_FIELDS: ReadonlySet<string> = new Set([
  'startedAt',
  'completedAt',
  'error',
  'artifactKey',
  'artifactBytes',
  'documentUnits',
  'attempts',
]);

/** The patch without undefined values; throws on a field transition() may not set. */
export function checkedPatch<T extends object>(patch: T | undefined): Partial<T> {
  const clean = definedOnly(patch);
  for (const k of Object.keys(clean)) {
    if (!PATCHABLE_FIELDS.has(k)) throw new TypeError(`transition patch may not set ${k}`);
  }
  return clean;
}

/** Why a stored record cannot be used (a field every lookup relies on is missing or malformed), or null. */
export function recordFlaw(job: Partial<JobRecord> | null): string | null {
  if (job === null || typeof job !== 'object') return 'not a job record';
  for (const field of ['tenantId', 'appId', 'documentId', 'generation', 'uploadKey'] as const) {
    if (typeof job[field] !== 'string') return `${field} is not a string`;
  }
  if (!isJobState(job.statusInt)) return `statusInt ${JSON.stringify(job.statusInt)} is not a job state`;
  if (typeof job.expiresAt !== 'string' || Number.isNaN(Date.parse(job.expiresAt))) return `expiresAt ${JSON.stringify(job.expiresAt)} is not a timestamp`;
  return null;
}

/** The whole queue's depth: its lanes' summed. */
export function sumDepths(lanes: LaneDepths): QueueDepth {
  const sum: QueueDepth = { waiting: 0, active: 0, delayed: 0 };
  for (const d of Object.values(lanes)) {
    sum.waiting += d.waiting;
    sum.active += d.active;
    sum.delayed += d.delayed;
  }
  return sum;
}
