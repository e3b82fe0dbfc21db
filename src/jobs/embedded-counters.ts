// Process-local fixed-window counters for the embedded deployment.

import type { RateCounters } from './types.js';

export interface EmbeddedRateCountersOptions {
  /** Clock, for tests. */
  now?: () => number;
}

export class EmbeddedRateCounters implements RateCounters {
  /** `${key}\n${windowSeconds}\n${windowIndex}` → { total, expiresAt }. */
  private readonly windows = new Map<string, { total: number; expiresAt: number }>();
  private readonly now: () => number;
  private nextSweep = 0;

  constructor(opts: EmbeddedRateCountersOptions = {}) {
    this.now = opts.now ?? Date.now;
  }

  async addToWindow(key: string, amount: number, windowSeconds: number): Promise<number> {
    if (!(windowSeconds > 0)) throw new RangeError(`windowSeconds must be positive, got ${windowSeconds}`);
    const now = this.now();
    this.sweep(now);
    const windowMs = windowSeconds * 1000;
    const index = Math.floor(now / windowMs);
    const id = `${key}\n${windowSeconds}\n${index}`;
    let w = this.windows.get(id);
    if (!w) this.windows.set(id, (w = { total: 0, expiresAt: (index + 1) * windowMs }));
    w.total += amount;
    return w.total;
  }

  /** Drops finished windows, at most once a second. */
  private sweep(now: number): void {
    if (now < this.nextSweep) return;
    this.nextSweep = now + 1000;
    for (const [id, w] of this.windows) if (w.expiresAt <= now) this.windows.delete(id);
  }

  async close(): Promise<void> {
    this.windows.clear();
  }
}
