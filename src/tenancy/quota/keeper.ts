// What holds and charges Document Units against an app's monthly quota, a hard limit. One
// interface, three keepers, chosen where the node is wired (open.ts): in-process tallies on
// the embedded control plane, Redis scripts in front of PostgreSQL in a cluster, and the
// control plane's own SQL transactions where neither applies.
import type { QuotaCheck, UnitHold, UsageCharge } from '../types.js';

/** The hold of one job run: its charge key, and where it counts (a hold reserved late in a month may be settled in the next). */
export interface HoldRef {
  chargeKey: string;
  appId: string;
  /** The month the job is released or settled in ('YYYY-MM', UTC); the month before is cleared too. */
  month: string;
}

export interface QuotaKeeper {
  /** Units charged plus units held by jobs in progress: what admission compares to the quota. */
  committed(appId: string, month: string): Promise<number>;
  /**
   * Sets the job's hold to `units` in all if charged + others' holds + units stays within the
   * quota; a job already charged is always ok.
   */
  reserve(h: UnitHold): Promise<QuotaCheck>;
  /**
   * Charges the job's final units and drops its hold, only if they fit (its own hold aside).
   * Resolves once the charge is in the durable ledger, so a job is completed only after it is
   * charged. Idempotent per charge key: a second call charges nothing.
   */
  settle(c: UsageCharge & { quota: number }): Promise<QuotaCheck>;
  /** Drops a job's hold (it failed or was replaced). */
  release(h: HoldRef): Promise<void>;
  /** Resolves when everything the keeper needs answers (the probe jobs wait on during an outage). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** The month before 'YYYY-MM'. */
export function previousMonth(month: string): string {
  const [y, m] = month.split('-').map(Number);
  return m === 1 ? `${y - 1}-12` : `${y}-${String(m - 1).padStart(2, '0')}`;
}
