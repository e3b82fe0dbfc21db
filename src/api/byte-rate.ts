// The plan's upload byte rate (maxBytesPerSecond, averaged over a fixed 10 s window that
// every node shares through the rate counters). A declared Content-Length is counted before
// the body is read; a body whose length is not declared is counted as it streams, so no
// framing escapes the limit.
import { problem } from '../http/problem.js';
import type { RateCounters } from '../jobs/types.js';

export const RATE_WINDOW_SECONDS = 10;

/** Streamed bytes counted per round trip to the counters (Redis in a cluster). */
export const METER_BATCH_BYTES = 64 * 1024;

export class UploadByteRate {
  constructor(
    private readonly counters: RateCounters,
    private readonly appId: string,
    private readonly bytesPerSecond: number,
  ) {}

  /**
   * Adds bytes to the app's window; 429 rate_limited when the window is then over the plan's.
   * Under half the window's allowance a cluster node sends the count a moment later, batched
   * with other uploads' (no round trip per upload); from half on, each count is the shared one.
   */
  async count(bytes: number): Promise<void> {
    const allowance = this.bytesPerSecond * RATE_WINDOW_SECONDS;
    const windowBytes = await this.counters.addToWindow(`upload-bytes:${this.appId}`, bytes, RATE_WINDOW_SECONDS, { lazyBelow: allowance / 2 });
    if (windowBytes > allowance) {
      throw problem(
        'rate_limited',
        `This app may upload ${this.bytesPerSecond} bytes per second (averaged over ${RATE_WINDOW_SECONDS} s).`,
        { limit: this.bytesPerSecond },
        { 'Retry-After': String(RATE_WINDOW_SECONDS) },
      );
    }
  }

  /**
   * The body, its bytes counted as they arrive (per METER_BATCH_BYTES, the rest at the end).
   * The batch that takes the window over the limit fails the stream with rate_limited
   * before its last chunk is passed on, so the writer stops and removes what it stored.
   */
  async *meter(body: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
    let uncounted = 0;
    for await (const chunk of body) {
      uncounted += chunk.length;
      if (uncounted >= METER_BATCH_BYTES) {
        await this.count(uncounted);
        uncounted = 0;
      }
      yield chunk;
    }
    if (uncounted > 0) await this.count(uncounted);
  }
}
