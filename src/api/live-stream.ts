// One Server-Sent Events response: the text/event-stream framing, a heartbeat comment, and the
// cut of a client that does not read. The HTTP front pauses this stream while uWS cannot take
// more (stream-reply.ts), so what piles up in its buffer is exactly what the client has not
// been sent; past `maxUnsentBytes` the response is cut (the client reconnects with
// Last-Event-ID and misses nothing: the replay starts from the job's current state).
import { Readable } from 'node:stream';

export interface LiveStreamOptions {
  /** Heartbeat comment interval (ms). */
  heartbeatMs: number;
  /** Unsent bytes past which the client is cut. */
  maxUnsentBytes: number;
  /** Called at each heartbeat (a re-read of the job, for a change a lost message hid). */
  onHeartbeat?: () => void;
  /** Called once when the stream ends, whichever way (client gone, cut, finished). */
  onClose: () => void;
}

export class LiveStream {
  readonly readable: Readable;
  private readonly timer: NodeJS.Timeout;
  private ended = false;

  constructor(private readonly o: LiveStreamOptions) {
    this.readable = new Readable({
      read() {},
      destroy: (err, done) => {
        this.finish();
        done(err);
      },
    });
    this.timer = setInterval(() => {
      this.write(': heartbeat\n\n');
      o.onHeartbeat?.();
    }, o.heartbeatMs);
    this.timer.unref();
  }

  get open(): boolean {
    return !this.ended;
  }

  /** An event; `id` makes it a point a reconnecting client resumes after. */
  event(type: string, data: unknown, id?: string): void {
    this.write(`${id === undefined ? '' : `id: ${id}\n`}event: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  /** The client's reconnection delay (ms). */
  retry(ms: number): void {
    this.write(`retry: ${ms}\n\n`);
  }

  write(text: string): void {
    if (this.ended) return;
    if (this.readable.readableLength + text.length > this.o.maxUnsentBytes) {
      const err = Object.assign(new Error(`live status client cut: over ${this.o.maxUnsentBytes} bytes unsent`), { code: 'ERR_SLOW_CLIENT' });
      this.readable.destroy(err);
      return;
    }
    this.readable.push(text);
  }

  /** Ends the response once what is queued is sent. */
  end(): void {
    if (this.ended) return;
    this.finish();
    this.readable.push(null);
  }

  private finish(): void {
    if (this.ended) return;
    this.ended = true;
    clearInterval(this.timer);
    this.o.onClose();
  }
}
