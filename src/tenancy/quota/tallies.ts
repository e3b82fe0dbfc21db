// What a ledger-backed quota keeper counts per app and month, decided in one step: units
// charged (rebuilt from the durable ledger when missing) and units held by jobs in progress
// (each with an expiry, so a hold whose node died lapses). In process (memory-tallies.ts) or
// in Redis (redis-tallies.ts). Every call answers null when the month's tally is missing: the
// keeper seeds it from the ledger and asks again.
import type { HoldRef } from './keeper.js';

export type TallyRefusal = { ok: false; used: number; held: number };

export interface TallyHold {
  chargeKey: string;
  appId: string;
  month: string;
  units: number;
  quota: number;
  /** When the hold lapses unless renewed (ms since the epoch). */
  expiresAt: number;
}

export type TallyCharge = Omit<TallyHold, 'expiresAt'>;

/**
 * A charge counted, and marked as counted until the ledger has its row (confirm) or certainly
 * will not (uncharge). `counted`: an earlier or concurrent settle of the same key (before an
 * outage or a crash of its node, or on another node) counted it already and left its mark,
 * now shared; it is not counted twice.
 * `epoch` names the tally it was counted in: a tally rebuilt from the ledger (Redis lost its
 * keys) has a new one, so a charge counted before the rebuild and written after it is added
 * again (confirm), and one taken back is taken only from the tally that counted it (uncharge).
 */
export type TallyCharged = { ok: true; epoch: string; counted: boolean };

export interface Tallies {
  /** Charged + live holds. */
  committed(appId: string, month: string, now: number): Promise<number | null>;
  /** Sets the job's hold to `units` if charged + others' holds + units fit the quota. */
  hold(h: TallyHold, now: number): Promise<{ ok: true } | TallyRefusal | null>;
  /** Drops the job's hold (this month's and last month's), then counts `units` as charged if they fit. */
  charge(c: TallyCharge, now: number): Promise<TallyCharged | TallyRefusal | null>;
  release(h: HoldRef): Promise<void>;
  /** The charge's row is in the ledger: its mark goes; a tally rebuilt since it was counted missed it, so it is added. */
  confirm(c: TallyCharge, epoch: string): Promise<void>;
  /**
   * The charge is not to be counted (the ledger had it before, or its write failed): its mark
   * goes, and its units from the tally that counted them — unless another settle of the key
   * relied on the count meanwhile (its mark shared or confirmed), when a double count is
   * possible but an uncounted charge is not.
   */
  uncharge(c: TallyCharge, epoch: string): Promise<void>;
  /** Creates the month's tally with `charged` (the ledger's sum) unless another caller did first. */
  seed(appId: string, month: string, charged: number, now: number): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
