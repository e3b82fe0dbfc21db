// A request body as an async iterable of Buffers, fed by uWS onData with backpressure:
// the socket is paused while more than HIGH_WATER bytes wait for the consumer. An optional
// SlowBodyWatch times the body while the socket is read (not while we hold it back).
import { SLAB_BYTES, slabs } from './slab-pool.js';
import { problems } from './problem.js';
import type { SlowBodyWatch } from './slow-body.js';

const HIGH_WATER = 1 << 20; // 1 MiB
const LOW_WATER = 256 << 10;
/** A declared length up to this is received into one buffer of exactly its size. */
const EXACT_MAX = 64 << 10;

/** A slab (slab-pool.ts) the lent chunks are copied into, with how many of them still refer to it. */
interface Slab {
  buf: Buffer;
  used: number;
  holds: number;
}

export class ClientAbortedError extends Error {
  constructor() {
    super('client closed the connection before the body was received');
    this.name = 'ClientAbortedError';
  }
}

export interface PausableSource {
  pause(): void;
  resume(): void;
}

export class BodyStream implements AsyncIterable<Buffer> {
  private chunks: Buffer[] = [];
  /** The slab each queued chunk lies in (null: a buffer of its own), when lent() reads. */
  private owners: (Slab | null)[] = [];
  /** Set by lent(): arriving bytes go into reused slabs, this the one being filled. */
  private lending = false;
  private fill: Slab | null = null;
  /** A declared small body: its one buffer, and how much of it arrived. */
  private exact: Buffer | null = null;
  private exactUsed = 0;
  private buffered = 0;
  private paused = false;
  private waiter: (() => void) | null = null;
  private failure: Error | null = null;
  private consumed = false;
  /** True once the last chunk arrived from the socket. */
  ended = false;
  /** Bytes received from the socket so far. */
  received = 0;

  constructor(
    private readonly source: PausableSource,
    /** Declared Content-Length, or null for chunked bodies. */
    readonly declaredLength: number | null,
    private readonly watch: SlowBodyWatch | null = null,
  ) {
    watch?.start();
  }

  /**
   * Called from uWS onData. `view` is only read during the call (uWS reuses its memory
   * afterwards): its bytes are copied, once, into a buffer the body owns.
   */
  push(view: Uint8Array, isLast: boolean): void {
    if (view.length) {
      let owner: Slab | null = null;
      let chunk: Buffer;
      if (this.lending && view.length <= SLAB_BYTES) {
        owner = this.slabFor(view.length);
        chunk = owner.buf.subarray(owner.used, owner.used + view.length);
        chunk.set(view);
        owner.used += view.length;
        owner.holds++;
      } else chunk = this.copyOut(view);
      this.chunks.push(chunk);
      this.owners.push(owner);
      this.buffered += chunk.length;
      this.received += chunk.length;
    }
    if (isLast) {
      this.ended = true;
      this.watch?.end();
    } else this.watch?.received(view.length);
    if (!this.paused && this.buffered > HIGH_WATER && !this.ended) {
      this.paused = true;
      this.source.pause();
      // The client is not slow: we are. uWS stops its own body timer while paused too.
      this.watch?.hold();
    }
    this.wake();
  }

  fail(err: Error): void {
    this.failure ??= err;
    this.watch?.end();
    this.wake();
  }

  /** No more timing: the response has started or the exchange is over. */
  stopWatch(): void {
    this.watch?.end();
  }

  /** The chunks, each the consumer's to keep. */
  [Symbol.asyncIterator](): AsyncIterator<Buffer> {
    return this.iterate();
  }

  /**
   * The chunks, each lent: valid only until the next one is asked for (or the iteration
   * ends), as its memory is then reused for later bytes. For a consumer that copies every
   * chunk before asking for the next (a disk store's writes: BlobStore.takesLentChunks):
   * a large body then allocates a few reused MiB instead of its own size.
   */
  lent(): AsyncIterable<Buffer> {
    this.lending = true;
    return { [Symbol.asyncIterator]: () => this.iterate() };
  }

  private async *iterate(): AsyncGenerator<Buffer> {
    if (this.consumed) throw new Error('request body already consumed');
    this.consumed = true;
    // The slab of the chunk last yielded: the consumer is done with it once it asks again.
    let lentFrom: Slab | null = null;
    try {
      for (;;) {
        if (lentFrom) this.release(lentFrom);
        lentFrom = null;
        if (this.failure) throw this.failure;
        const chunk = this.chunks.shift();
        if (chunk) {
          lentFrom = this.owners.shift() ?? null;
          this.buffered -= chunk.length;
          if (this.paused && this.buffered < LOW_WATER) {
            this.paused = false;
            this.source.resume();
            this.watch?.start();
          }
          yield chunk;
          continue;
        }
        if (this.ended) {
          // Nothing more will be copied into the last slab.
          const last = this.fill;
          this.fill = null;
          if (last && last.holds === 0) slabs.give(last.buf);
          return;
        }
        await new Promise<void>((resolve) => (this.waiter = resolve));
      }
    } finally {
      if (lentFrom) this.release(lentFrom);
    }
  }

  /** The slab to copy `bytes` into: the one being filled while they fit, else a fresh one from the pool. */
  private slabFor(bytes: number): Slab {
    const current = this.fill;
    if (current && current.buf.length - current.used >= bytes) return current;
    // The full one goes back once its last chunk is released (now, if none is held).
    if (current && current.holds === 0) slabs.give(current.buf);
    this.fill = { buf: slabs.take(), used: 0, holds: 0 };
    return this.fill;
  }

  /** A chunk of a lent slab is done with: the slab goes back when nothing refers to it and nothing more will be copied into it. */
  private release(slab: Slab): void {
    slab.holds--;
    if (slab.holds === 0 && slab !== this.fill) slabs.give(slab.buf);
  }

  /**
   * A copy of view the consumer may keep. A small declared body lands in one buffer of its
   * exact size (readAll and a small upload's write then need no concatenation or pool).
   */
  private copyOut(view: Uint8Array): Buffer {
    const declared = this.declaredLength;
    if (declared !== null && declared <= EXACT_MAX && view.length < declared) {
      this.exact ??= Buffer.allocUnsafe(declared);
      if (this.exactUsed + view.length <= declared) {
        const chunk = this.exact.subarray(this.exactUsed, this.exactUsed + view.length);
        chunk.set(view);
        this.exactUsed += view.length;
        return chunk;
      }
    }
    return Buffer.from(view);
  }

  /** Reads the whole body, refusing more than maxBytes (for small JSON/form bodies only). */
  async readAll(maxBytes: number): Promise<Buffer> {
    if (this.declaredLength !== null && this.declaredLength > maxBytes) {
      throw problems.bodyTooLarge(maxBytes);
    }
    const parts: Buffer[] = [];
    let total = 0;
    for await (const c of this) {
      total += c.length;
      if (total > maxBytes) {
        throw problems.bodyTooLarge(maxBytes);
      }
      parts.push(c);
    }
    if (parts.length === 1) return parts[0];
    // Parts of one buffer of the declared length, in order: that buffer, whole.
    const whole = this.exact;
    if (whole && total === whole.length && parts[0].buffer === whole.buffer && parts[0].byteOffset === whole.byteOffset) return whole;
    return Buffer.concat(parts, total);
  }

  private wake(): void {
    const w = this.waiter;
    this.waiter = null;
    w?.();
  }
}
