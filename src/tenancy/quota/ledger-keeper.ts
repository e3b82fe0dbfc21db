// A quota keeper that decides in fast tallies (in process, or Redis scripts) and keeps the
// usage ledger as the durable truth: a missing tally is rebuilt from the ledger's sum, every
// charge is written to the ledger (in groups, ledger-batch.ts) before settle resolves, and the
// ledger's charge key makes a retried settle charge once.
//
// Counting errs on the safe side: a charge is counted (and marked) before its row is written;
// the count is taken back only when the ledger says the key was charged before (a re-run of a
// job charged before a crash) or the write certainly failed. When an outage or a crash hides
// whether the row was written, the count and its mark stay, and the next settle of the key
// writes again without counting again. A tally may be over the ledger (a mark whose job never
// settles again), never under it, so the quota stays a hard limit.
import type { SqlClient } from '../../db/sql.js';
import { DependencyUnavailableError } from '../../errors/dependency-unavailable.js';
import { MONTH, requireNonNegInt } from '../store/checks.js';
import { isCharged, unitsUsed } from '../store/usage.js';
import type { QuotaCheck, UnitHold, UsageCharge } from '../types.js';
import type { HoldRef, QuotaKeeper } from './keeper.js';
import { LedgerBatch } from './ledger-batch.js';
import type { Tallies, TallyRefusal } from './tallies.js';

export interface LedgerKeeperOptions {
  /** The control plane's connection: the usage ledger. */
  db: SqlClient;
  tallies: Tallies;
  /** Where a failed correction of a tally is reported. */
  log?: { warn(obj: object, msg: string): void };
  now?: () => number;
}

/** A month whose tally is still missing after this many seeds is an error (something deletes it as fast as it is made). */
const SEED_TRIES = 3;

export class LedgerQuotaKeeper implements QuotaKeeper {
  private readonly ledger: LedgerBatch;
  private readonly now: () => number;

  constructor(private readonly o: LedgerKeeperOptions) {
    this.ledger = new LedgerBatch(o.db);
    this.now = o.now ?? Date.now;
  }

  committed(appId: string, month: string): Promise<number> {
    return this.seeded(appId, month, () => this.o.tallies.committed(appId, month, this.now()));
  }

  async reserve(h: UnitHold): Promise<QuotaCheck> {
    checkUnits(h.month, h.units);
    const now = this.now();
    const answer = await this.seeded(h.appId, h.month, () => this.o.tallies.hold({ ...h, expiresAt: now + h.holdSeconds * 1000 }, now));
    if (answer.ok) return { ok: true };
    return this.refusal(h.chargeKey, h.quota, answer);
  }

  async settle(c: UsageCharge & { quota: number }): Promise<QuotaCheck> {
    checkUnits(c.month, c.units);
    const answer = await this.seeded(c.appId, c.month, () => this.o.tallies.charge(c, this.now()));
    if (!answer.ok) return this.refusal(c.chargeKey, c.quota, answer);
    let written: boolean;
    try {
      written = await this.ledger.write(c);
    } catch (err) {
      // An outage hides whether the row was written: the count and its mark stay, and the
      // retry finds them. Any other failure certainly wrote nothing (an app deleted meanwhile).
      if (!(err instanceof DependencyUnavailableError)) await this.correct(() => this.o.tallies.uncharge(c, answer.epoch));
      throw err;
    }
    // Not written and counted here: the key was charged in an earlier run (a re-run after a
    // crash), whose units the tally holds already — or by a concurrent settle relying on this
    // count, which uncharge sees. Counted before: the first try (or another settle) wrote it.
    if (written || answer.counted) await this.correct(() => this.o.tallies.confirm(c, answer.epoch));
    else await this.correct(() => this.o.tallies.uncharge(c, answer.epoch));
    return { ok: true };
  }

  release(h: HoldRef): Promise<void> {
    return this.o.tallies.release(h);
  }

  async ping(): Promise<void> {
    await Promise.all([this.o.db.query('SELECT 1'), this.o.tallies.ping()]);
  }

  close(): Promise<void> {
    return this.o.tallies.close();
  }

  /** A job charged before a crash re-runs under the same key: it is never refused (asked only on the refusal path). */
  private async refusal(chargeKey: string, quota: number, r: TallyRefusal): Promise<QuotaCheck> {
    if (await isCharged(this.o.db, chargeKey)) return { ok: true };
    return { ok: false, used: r.used, held: r.held, quota };
  }

  /** Runs ask; when the month has no tally, seeds it from the ledger's sum and asks again. */
  private async seeded<T>(appId: string, month: string, ask: () => Promise<T | null>): Promise<T> {
    for (let tries = 0; ; tries++) {
      const answer = await ask();
      if (answer !== null) return answer;
      if (tries === SEED_TRIES) throw new Error(`the quota tally of app ${appId} for ${month} could not be rebuilt from the ledger`);
      await this.o.tallies.seed(appId, month, await unitsUsed(this.o.db, appId, month), this.now());
    }
  }

  /**
   * A correction that fails is reported, not thrown: the charge is in the ledger (or certainly
   * not) whatever the tally says. A failed uncharge leaves the tally over by the units; a failed
   * confirm matters only if the tally was rebuilt in the moment between count and write.
   */
  private async correct(fn: () => Promise<void>): Promise<void> {
    try {
      await fn();
    } catch (err) {
      this.o.log?.warn({ err }, 'could not correct a quota tally after writing the ledger');
    }
  }
}

function checkUnits(month: string, units: number): void {
  if (!MONTH.test(month)) throw new Error(`usage month must be YYYY-MM, got "${month}"`);
  requireNonNegInt(units, 'units');
}
