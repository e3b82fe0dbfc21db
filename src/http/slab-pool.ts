// Buffers of one size reused from one large upload to the next. A large body copied into
// fresh Buffers allocates as many ArrayBuffer bytes as it carries, and V8 starts a major GC
// every ≈ 16–18 MB of those (docs/performance.md, "Request bodies into reused buffers"); taken
// from a pool, a 1 GiB upload allocates a few MiB.
//
// Ownership is the caller's to keep straight, so it is spelled out: whoever took a slab owns
// it until it gives it back, and gives it back only once nothing refers to any part of it
// (no queued chunk, no write or request in flight). A slab that may still be referred to is
// never given back, only dropped (the GC takes it). give() refuses a slab it already holds.

export const SLAB_BYTES = 1 << 20;

export class SlabPool {
  private readonly free: Buffer[] = [];
  private idleTimer: NodeJS.Timeout | null = null;

  constructor(
    /** Slabs kept for reuse; more given back are dropped. */
    private readonly maxFree: number,
    /** The size of every slab of this pool. */
    readonly bytes = SLAB_BYTES,
    /** When set, the kept slabs are dropped once none was given back for this long (large slabs need not stay resident on an idle node). */
    private readonly idleMs: number | null = null,
  ) {}

  take(): Buffer {
    // allocUnsafeSlow: a slab of its own, never a slice of Node's shared pool.
    return this.free.pop() ?? Buffer.allocUnsafeSlow(this.bytes);
  }

  give(slab: Buffer): void {
    if (slab.length !== this.bytes || slab.byteOffset !== 0 || slab.buffer.byteLength !== this.bytes) throw new Error('not a whole slab of this pool');
    if (this.free.includes(slab)) throw new Error('slab given back twice');
    if (this.free.length < this.maxFree) this.free.push(slab);
    if (this.idleMs !== null) {
      if (this.idleTimer) this.idleTimer.refresh();
      else {
        this.idleTimer = setTimeout(() => {
          this.idleTimer = null;
          this.free.length = 0;
        }, this.idleMs);
        this.idleTimer.unref();
      }
    }
  }

  /** Slabs waiting for reuse (for tests). */
  get freeCount(): number {
    return this.free.length;
  }
}

/** The process's pool: bodies being received and disk writes in flight share it (16 MiB kept at most). */
export const slabs = new SlabPool(16);
