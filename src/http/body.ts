// A request body as an async iterable of Buffers, fed by uWS onData with backpressure:
// the socket is paused while more than HIGH_WATER bytes wait for the consumer. An optional
// SlowBodyWatch times the body while the socket is read (not while we hold it back).
import { problems } from './problem.js';
import type { SlowBodyWatch } from './slow-body.js';

const HIGH_WATER = 1 << 20; // 1 MiB
const LOW_WATER = 256 << 10;

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

  /** Called from uWS onData; chunk must already be a copy. */
  push(chunk: Buffer, isLast: boolean): void {
    if (chunk.length) {
      this.chunks.push(chunk);
      this.buffered += chunk.length;
      this.received += chunk.length;
    }
    if (isLast) {
      this.ended = true;
      this.watch?.end();
    } else this.watch?.received(chunk.length);
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

  async *[Symbol.asyncIterator](): AsyncIterator<Buffer> {
    if (this.consumed) throw new Error('request body already consumed');
    this.consumed = true;
    for (;;) {
      if (this.failure) throw this.failure;
      const chunk = this.chunks.shift();
      if (chunk) {
        this.buffered -= chunk.length;
        if (this.paused && this.buffered < LOW_WATER) {
          this.paused = false;
          this.source.resume();
          this.watch?.start();
        }
        yield chunk;
        continue;
      }
      if (this.ended) return;
      await new Promise<void>((resolve) => (this.waiter = resolve));
    }
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
    return Buffer.concat(parts, total);
  }

  private wake(): void {
    const w = this.waiter;
    this.waiter = null;
    w?.();
  }
}
