// 1 MiB buffers reused from one large upload to the next. A large body copied into fresh
// Buffers allocates as many ArrayBuffer bytes as it carries, and V8 starts a major GC every
// ≈ 16–18 MB of those (docs/performance.md, "Request bodies into reused buffers"); taken from
// here, a 1 GiB upload allocates a few MiB.
//
// Ownership is the caller's to keep straight, so it is spelled out: whoever took a slab owns
// it until it gives it back, and gives it back only once nothing refers to any part of it
// (no queued chunk, no write in flight). A slab that may still be referred to is never given
// back, only dropped (the GC takes it). give() refuses a slab it already holds.

export const SLAB_BYTES = 1 << 20;

export class SlabPool {
  private readonly free: Buffer[] = [];

  constructor(
    /** Slabs kept for reuse; more given back are dropped. */
    private readonly maxFree: number,
  ) {}

  take(): Buffer {
    // allocUnsafeSlow: a slab of its own, never a slice of Node's shared pool.
    return this.free.pop() ?? Buffer.allocUnsafeSlow(SLAB_BYTES);
  }

  give(slab: Buffer): void {
    if (slab.length !== SLAB_BYTES || slab.byteOffset !== 0) throw new Error('not a whole slab of this pool');
    if (this.free.includes(slab)) throw new Error('slab given back twice');
    if (this.free.length < this.maxFree) this.free.push(slab);
  }

  /** Slabs waiting for reuse (for tests). */
  get freeCount(): number {
    return this.free.length;
  }
}

/** The process's pool: bodies being received and disk writes in flight share it (16 MiB kept at most). */
export const slabs = new SlabPool(16);
