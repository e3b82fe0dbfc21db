// Charges reach the usage ledger in groups: while one INSERT is in flight, the charges that
// arrive wait for it and then go together in the next (group commit), so a busy node writes
// the ledger once per batch rather than once per job, and a quiet one at once. An INSERT
// into PGlite is over before the next job settles, so in-flight alone groups nothing: a
// commit also waits until LINGER_MS after the previous one began (at most 1/LINGER_MS
// commits a second; a charge after a quiet spell goes at once). Each caller awaits the
// commit of its own batch: a job is completed only after its charge is durable.
import type { SqlClient } from '../../db/sql.js';
import { DependencyUnavailableError } from '../../errors/dependency-unavailable.js';
import { chargeUsage, chargeUsageBatch } from '../store/usage.js';
import type { UsageCharge } from '../types.js';

/** Rows in one INSERT (7 parameters each, well under PostgreSQL's 65,535). */
const MAX_ROWS = 500;
/** Least time between the starts of two commits (ms): what a busy node's charge may wait. */
const LINGER_MS = 10;

interface Pending {
  charge: UsageCharge;
  resolve(inserted: boolean): void;
  reject(err: unknown): void;
}

export class LedgerBatch {
  private waiting: Pending[] = [];
  private draining = false;
  private lastCommitAt = -Infinity;

  constructor(
    private readonly db: SqlClient,
    private readonly lingerMs = LINGER_MS,
  ) {}

  /** Resolves once the charge is in the ledger: true when this call wrote it, false when its key was charged already. */
  write(charge: UsageCharge): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ charge, resolve, reject });
      if (this.draining) return;
      this.draining = true;
      const wait = this.lastCommitAt + this.lingerMs - performance.now();
      // Charges settled in the same turn of the event loop go in the first batch too.
      if (wait > 0) setTimeout(() => void this.drain(), wait);
      else queueMicrotask(() => void this.drain());
    });
  }

  private async drain(): Promise<void> {
    try {
      while (this.waiting.length > 0) {
        const wait = this.lastCommitAt + this.lingerMs - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        this.lastCommitAt = performance.now();
        await this.commit(this.waiting.splice(0, MAX_ROWS));
      }
    } finally {
      this.draining = false;
    }
  }

  private async commit(batch: Pending[]): Promise<void> {
    // A key twice in one batch is charged by its first caller; the second finds it charged.
    const firsts = new Map<string, Pending>();
    for (const p of batch) if (!firsts.has(p.charge.chargeKey)) firsts.set(p.charge.chargeKey, p);
    let inserted: Set<string>;
    try {
      inserted = await chargeUsageBatch(
        this.db,
        [...firsts.values()].map((p) => p.charge),
      );
    } catch (err) {
      // An outage fails them all (their callers retry); any other error is one row's (an app
      // deleted meanwhile): each row alone, so only that caller sees it, as the store names it.
      if (err instanceof DependencyUnavailableError) {
        for (const p of batch) p.reject(err);
        return;
      }
      await Promise.all(batch.map((p) => (firsts.get(p.charge.chargeKey) === p ? chargeUsage(this.db, p.charge).then(p.resolve, p.reject) : null)));
      for (const p of batch) if (firsts.get(p.charge.chargeKey) !== p) p.resolve(false);
      return;
    }
    for (const p of batch) p.resolve(firsts.get(p.charge.chargeKey) === p && inserted.has(p.charge.chargeKey));
  }
}
