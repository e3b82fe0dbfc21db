// How much one user or tenant may ask of the management API in a while, so that nobody can use
// the service to relay spam or phishing: tenants a user creates (each may e-mail an invitation
// in our name) and invitations (each is an e-mail). Counted in the node's fixed-window counters
// (Redis in the distributed mode, so they hold across nodes); platform operators are not
// limited. The e-mails one address gets are limited where they are queued, for every kind of
// e-mail (MAIL_PER_RECIPIENT_PER_DAY, src/mail/outbox-store.ts).
import { createHash } from 'node:crypto';
import { problem, type ProblemError } from '../../http/problem.js';
import type { RateCounters } from '../../jobs/types.js';
import { MAIL_PER_RECIPIENT_PER_DAY, type RecipientMailLimitError } from '../../mail/outbox-store.js';

export const HOUR = 3600;
export const DAY = 24 * HOUR;

export const MANAGE_LIMITS = {
  /** Tenants still Pending Activation that one user may own: an operator looks at each. */
  pendingTenantsPerUser: 3,
  /** Tenants one user may create in a (UTC) day. */
  tenantsPerUserPerDay: 10,
  /** Invitations one tenant's owners may send in a clock hour. */
  invitationsPerTenantPerHour: 20,
  /** Invitations one address may receive in a (UTC) day, from every tenant together. */
  invitationsPerRecipientPerDay: 3,
} as const;

/** Seconds to wait when the owned Pending Activation tenants are at their limit: until an operator acts, which has no fixed time. */
export const PENDING_TENANTS_RETRY_AFTER = HOUR;

/** Hashed, so that addresses and ids make short keys and no address is written to Redis. */
export const counterId = (s: string) => createHash('sha256').update(s).digest('base64url').slice(0, 22);

/** A slot taken in a counter; released when what it counted did not happen after all. */
export interface CounterSlot {
  release(): Promise<void>;
}

/**
 * Takes a slot in the current fixed window (windows start at multiples of windowSeconds since
 * the epoch) of counter `key`, or says how many seconds remain until the window ends.
 */
export async function takeSlot(
  counters: RateCounters,
  key: string,
  limit: number,
  windowSeconds: number,
  now: () => number = Date.now,
): Promise<CounterSlot | { retryAfter: number }> {
  const r = await counters.reserveInWindow([{ key, limit }], windowSeconds);
  if (!r.taken) return { retryAfter: windowSeconds - (Math.floor(now() / 1000) % windowSeconds) };
  return { release: () => counters.releaseInWindow([key], windowSeconds, r.window) };
}

export type LimitName = keyof typeof MANAGE_LIMITS | 'mailPerRecipientPerDay';

/** 429 rate_limited: `limit` (the number), `limitName` (which one, as MANAGE_LIMITS calls it), Retry-After. */
export function limitReached(limitName: LimitName, limit: number, detail: string, retryAfterSeconds: number): ProblemError {
  return problem('rate_limited', detail, { limit, limitName }, { 'Retry-After': String(retryAfterSeconds) });
}

/** The refusal of something whose e-mail an address cannot be sent today. */
export function mailLimitReached(err: RecipientMailLimitError): ProblemError {
  return limitReached(
    'mailPerRecipientPerDay',
    MAIL_PER_RECIPIENT_PER_DAY,
    `${err.address} has been sent as many e-mails by this service in the last 24 hours as one address may get (${MAIL_PER_RECIPIENT_PER_DAY}); try again in ${describeWait(err.retryAfterSeconds)}.`,
    err.retryAfterSeconds,
  );
}

/** "3 h 12 min", "45 s": a wait as a person reads it. */
export function describeWait(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  const h = Math.floor(seconds / HOUR);
  const min = Math.ceil((seconds % HOUR) / 60);
  return h ? `${h} h${min ? ` ${min} min` : ''}` : `${min} min`;
}
