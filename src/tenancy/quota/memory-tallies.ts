// Quota tallies in this process, for the embedded control plane (PGlite): the data-dir lock
// makes this node the ledger's only writer, so what it has charged since it loaded a month is
// the whole truth, and every decision is a few map operations with no query.
//
// Holds are not written anywhere: they only keep jobs running at the same time from together
// crossing the quota. A node that stops has no job running any more; on restart its unfinished
// jobs are queued again (recoverUnfinished) and each reserves again before any work, so an
// empty set of holds is exactly right after a restart. Charges are durable in the ledger, from
// which a month's tally is rebuilt on first use.
import type { HoldRef } from './keeper.js';
import { previousMonth } from './keeper.js';
import type { Tallies, TallyCharge, TallyCharged, TallyHold, TallyRefusal } from './tallies.js';

interface MonthTally {
  epoch: string;
  charged: number;
  held: number;
  holds: Map<string, { units: number; expiresAt: number }>;
  /** Charges counted whose ledger write is not confirmed yet, by charge key: 'shared' once another settle of the key relied on the count. */
  marks: Map<string, 'counted' | 'shared'>;
  /** No hold lapses before this (ms): until then no hold needs looking at. */
  nextExpiry: number;
}

export class MemoryTallies implements Tallies {
  /** By `${appId} ${month}`. */
  private readonly months = new Map<string, MonthTally>();
  private seeds = 0;

  async committed(appId: string, month: string, now: number): Promise<number | null> {
    const t = this.live(appId, month, now);
    return t ? t.charged + t.held : null;
  }

  async hold(h: TallyHold, now: number): Promise<{ ok: true } | TallyRefusal | null> {
    const t = this.live(h.appId, h.month, now);
    if (!t) return null;
    const own = t.holds.get(h.chargeKey)?.units ?? 0;
    const others = t.held - own;
    if (t.charged + others + h.units > h.quota) return { ok: false, used: t.charged, held: others };
    t.holds.set(h.chargeKey, { units: h.units, expiresAt: h.expiresAt });
    t.held = others + h.units;
    t.nextExpiry = Math.min(t.nextExpiry, h.expiresAt);
    return { ok: true };
  }

  async charge(c: TallyCharge, now: number): Promise<TallyCharged | TallyRefusal | null> {
    const t = this.live(c.appId, c.month, now);
    if (!t) return null;
    this.dropHold(c.chargeKey, c.appId, c.month);
    this.dropHold(c.chargeKey, c.appId, previousMonth(c.month));
    if (t.marks.has(c.chargeKey)) {
      t.marks.set(c.chargeKey, 'shared');
      return { ok: true, epoch: t.epoch, counted: true };
    }
    if (t.charged + t.held + c.units > c.quota) return { ok: false, used: t.charged, held: t.held };
    t.charged += c.units;
    t.marks.set(c.chargeKey, 'counted');
    return { ok: true, epoch: t.epoch, counted: false };
  }

  async release(h: HoldRef): Promise<void> {
    this.dropHold(h.chargeKey, h.appId, h.month);
    this.dropHold(h.chargeKey, h.appId, previousMonth(h.month));
  }

  async confirm(c: TallyCharge, epoch: string): Promise<void> {
    const t = this.months.get(`${c.appId} ${c.month}`);
    if (!t) return;
    t.marks.delete(c.chargeKey);
    if (t.epoch !== epoch) t.charged += c.units;
  }

  async uncharge(c: TallyCharge, epoch: string): Promise<void> {
    const t = this.months.get(`${c.appId} ${c.month}`);
    // Another settle of the key relied on the count (its mark is gone or shared): it stays.
    if (t?.epoch !== epoch || t.marks.get(c.chargeKey) !== 'counted') return;
    t.marks.delete(c.chargeKey);
    t.charged -= c.units;
  }

  async seed(appId: string, month: string, charged: number): Promise<void> {
    const key = `${appId} ${month}`;
    if (this.months.has(key)) return;
    this.months.set(key, { epoch: String(++this.seeds), charged, held: 0, holds: new Map(), marks: new Map(), nextExpiry: Infinity });
    // Nothing is charged to a month before last month any more: its tallies go (a late retry seeds again).
    const oldest = previousMonth(month);
    for (const [k, t] of this.months) if (k.slice(k.lastIndexOf(' ') + 1) < oldest && t.held === 0 && t.marks.size === 0) this.months.delete(k);
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    this.months.clear();
  }

  /** The month's tally with its lapsed holds dropped, or null before it is seeded. */
  private live(appId: string, month: string, now: number): MonthTally | null {
    const t = this.months.get(`${appId} ${month}`);
    if (!t) return null;
    if (now >= t.nextExpiry) {
      t.held = 0;
      t.nextExpiry = Infinity;
      for (const [key, h] of t.holds) {
        if (h.expiresAt <= now) t.holds.delete(key);
        else {
          t.held += h.units;
          t.nextExpiry = Math.min(t.nextExpiry, h.expiresAt);
        }
      }
    }
    return t;
  }

  private dropHold(chargeKey: string, appId: string, month: string): void {
    const t = this.months.get(`${appId} ${month}`);
    const h = t?.holds.get(chargeKey);
    if (!t || !h) return;
    t.holds.delete(chargeKey);
    t.held -= h.units;
  }
}
