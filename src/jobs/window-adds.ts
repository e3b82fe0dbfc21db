// Additions to a shared fixed-window counter that may be sent late while the window is far
// from its limit: an upload's bytes need not cost a round trip to Redis each when the app
// has used a fraction of its rate. Per counter and window, this node keeps the total it last
// read and what it has added since; an addition that keeps both under the caller's
// `lazyBelow` is only noted and sent with the others every FLUSH_MS (one INCRBY for all of
// them); any other addition, and the first of a window on this node, is sent at once with
// whatever is pending, so the answer near a limit is the shared counter's own.
//
// What the other nodes added since the last read is not seen here until the next one: a
// window can pass lazyBelow by what the nodes together add between two flushes. Callers pass
// a lazyBelow well under their limit (the upload byte rate: half of it).

/** How long an addition may wait before it is sent (ms). */
export const FLUSH_MS = 200;

/** Sends `amount` to the counter `key` of window number `index` and returns its new total. */
export type SendAdd = (key: string, amount: number, windowSeconds: number, index: number) => Promise<number>;

interface Tally {
  key: string;
  windowSeconds: number;
  index: number;
  /** The shared total last read (this node's earlier additions included). */
  known: number;
  /** Added here since, not sent yet. */
  pending: number;
}

export class WindowAdds {
  private readonly tallies = new Map<string, Tally>();
  private timer: NodeJS.Timeout | null = null;
  private nextSweep = 0;

  constructor(
    private readonly send: SendAdd,
    /** A flush that failed: its additions are lost (the rate is counted low for a moment). */
    private readonly onFlushError: (err: unknown) => void,
    private readonly now: () => number = Date.now,
    private readonly flushMs = FLUSH_MS,
  ) {}

  /** Adds amount in window `index`; the window's total, as this node knows it. */
  async add(key: string, amount: number, windowSeconds: number, index: number, lazyBelow: number): Promise<number> {
    this.sweep();
    const id = `${windowSeconds}:${index}:${key}`;
    const t = this.tallies.get(id);
    if (t && t.known + t.pending + amount < lazyBelow) {
      t.pending += amount;
      this.flushSoon();
      return t.known + t.pending;
    }
    // At once, with what waits: the answer is the shared total.
    const pending = t?.pending ?? 0;
    if (t) t.pending = 0;
    let total: number;
    try {
      total = await this.send(key, pending + amount, windowSeconds, index);
    } catch (err) {
      if (t) t.pending += pending;
      throw err;
    }
    this.note(id, { key, windowSeconds, index, known: total, pending: 0 });
    return total + (this.tallies.get(id)?.pending ?? 0);
  }

  /** Sends every pending addition now (on close). */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const sends: Promise<void>[] = [];
    for (const [id, t] of this.tallies) {
      if (t.pending === 0) continue;
      const amount = t.pending;
      t.pending = 0;
      sends.push(
        this.send(t.key, amount, t.windowSeconds, t.index).then(
          (total) => this.note(id, { ...t, known: total, pending: 0 }),
          (err) => this.onFlushError(err),
        ),
      );
    }
    await Promise.all(sends);
  }

  /** Records a total read from the shared counter (additions made meanwhile stay pending). */
  private note(id: string, read: Tally): void {
    const t = this.tallies.get(id);
    if (!t) this.tallies.set(id, read);
    else t.known = Math.max(t.known, read.known);
  }

  /** Forgets the windows that have ended and have nothing left to send, at most once a second. */
  private sweep(): void {
    const now = this.now();
    if (now < this.nextSweep) return;
    this.nextSweep = now + 1000;
    for (const [id, t] of this.tallies) if (t.pending === 0 && (t.index + 1) * t.windowSeconds * 1000 <= now) this.tallies.delete(id);
  }

  private flushSoon(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => void this.flush(), this.flushMs);
    this.timer.unref();
  }
}
