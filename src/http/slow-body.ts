// Answers a request body that arrives too slowly before uWS drops it without a word.
//
// uWS 20.30 keeps a 10 s timer on a connection whose request body is in flight and
// restarts it only once 160 KiB (16 KiB/s × 10 s) have arrived since the request or the
// last restart; pausing the socket stops it, resuming starts it afresh. Its timers tick
// every 4 s, so it closes such a connection 8 to 12 s after the last restart, with no
// response. This watch applies the same byte rule on a shorter clock, so the client gets a
// 408 before that close.

/** Bytes that restart uWS's body timer (HTTP_RECEIVE_THROUGHPUT_BYTES × HTTP_IDLE_TIMEOUT_S). */
export const UWS_BODY_BYTES_PER_TIMEOUT = 16 * 1024 * 10;

/** Below uWS's earliest close (8 s after its timer starts), with a second to spare. */
export const SLOW_BODY_TIMEOUT_MS = 7000;

export class SlowBodyWatch {
  private timer: NodeJS.Timeout | null = null;
  private sinceRestart = 0;
  private over = false;

  constructor(
    readonly timeoutMs: number,
    private readonly onSlow: () => void,
    /** Bytes that restart the clock; 1 makes every chunk restart it (for tests). */
    private readonly bytesPerTimeout = UWS_BODY_BYTES_PER_TIMEOUT,
  ) {}

  /** Starts the clock afresh: at the request, and when a body we held back is read again. */
  start(): void {
    if (this.over) return;
    this.sinceRestart = 0;
    if (this.timer) this.timer.refresh();
    else {
      this.timer = setTimeout(() => {
        this.timer = null;
        this.over = true;
        this.onSlow();
      }, this.timeoutMs);
      this.timer.unref();
    }
  }

  /** Counts body bytes; enough of them restart the clock, as they restart uWS's. */
  received(bytes: number): void {
    if (!this.timer) return;
    this.sinceRestart += bytes;
    if (this.sinceRestart >= this.bytesPerTimeout) this.start();
  }

  /** Stops the clock while we hold the body back (the client is not the slow one then). */
  hold(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** For good: the body ended or failed, or the response has started. */
  end(): void {
    this.over = true;
    this.hold();
  }
}
