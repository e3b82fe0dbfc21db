// Process-local fixed-window counters for the embedded deployment. Every method does its
// reads and writes without an await in between, so each is atomic within the process.

import type { RateCounters, WindowLimit, WindowReservation } from './types.js';

export interface EmbeddedRateCountersOptions {
  /** Clock, for tests. */
  now?: () => number;
}

interface Window {
  total: number;
  expiresAt: number;
}

export class EmbeddedRateCounters implements RateCounters {
  /** `${key}\n${windowSeconds}\n${windowIndex}` → { total, expiresAt }. */
  private readonly windows = new Map<string, Window>();
  private readonly now: () => number;
  private nextSweep = 0;

  constructor(opts: EmbeddedRateCountersOptions = {}) {
    this.now = opts.now ?? Date.now;
  }

  /** Exact at once (the process is the only counter), so `lazyBelow` changes nothing. */
  async addToWindow(key: string, amount: number, windowSeconds: number): Promise<number> {
    checkWindow(windowSeconds);
    const index = this.currentIndex(windowSeconds);
    const w = this.window(key, windowSeconds, index);
    w.total += amount;
    return w.total;
  }

  async reserveInWindow(limits: WindowLimit[], windowSeconds: number): Promise<WindowReservation> {
    checkWindow(windowSeconds);
    const index = this.currentIndex(windowSeconds);
    const windows = limits.map((l) => this.window(l.key, windowSeconds, index));
    const full = limits.findIndex((l, i) => windows[i].total >= l.limit);
    if (full >= 0) return { taken: false, fullKey: limits[full].key };
    for (const w of windows) w.total += 1;
    return { taken: true, window: index };
  }

  async releaseInWindow(keys: string[], windowSeconds: number, window: number): Promise<void> {
    checkWindow(windowSeconds);
    if (window !== this.currentIndex(windowSeconds)) return;
    for (const key of keys) {
      const w = this.windows.get(windowId(key, windowSeconds, window));
      if (w && w.total > 0) w.total -= 1;
    }
  }

  private currentIndex(windowSeconds: number): number {
    const now = this.now();
    this.sweep(now);
    return Math.floor(now / (windowSeconds * 1000));
  }

  private window(key: string, windowSeconds: number, index: number): Window {
    const id = windowId(key, windowSeconds, index);
    let w = this.windows.get(id);
    if (!w) this.windows.set(id, (w = { total: 0, expiresAt: (index + 1) * windowSeconds * 1000 }));
    return w;
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

const windowId = (key: string, windowSeconds: number, index: number) => `${key}\n${windowSeconds}\n${index}`;

function checkWindow(windowSeconds: number): void {
  if (!(windowSeconds > 0)) throw new RangeError(`windowSeconds must be positive, got ${windowSeconds}`);
}
