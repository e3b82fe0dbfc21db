// A streamed response body (Reply.stream) written to uWS with backpressure; with a known
// length, as a Content-Length body, otherwise chunked.
import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import type { Exchange } from './exchange.js';

/**
 * Streams a Readable with backpressure; with a known length, as a Content-Length body.
 * One onWritable handler per response, reading the pending chunk from shared state: uWS
 * keeps calling the first handler registered, so a handler per chunk would resend the
 * wrong bytes. The request is finished when the last byte is handed to uWS, not on the
 * stream's 'end' (which can come while the last chunk still waits for the socket).
 * The status line and headers are written already.
 */
export function streamReply(ex: Exchange, stream: Readable, length: number | undefined, logger: Logger, finish: (ex: Exchange) => void): void {
  const { res } = ex;
  /** res was ended or closed: it must not be touched again. */
  let responded = false;
  let pending: { chunk: Buffer; start: number } | null = null;
  let streamEnded = false;
  let writableRegistered = false;

  const complete = () => {
    responded = true;
    if (!streamEnded) stream.destroy();
    finish(ex);
  };
  const abandon = (why: string, err?: unknown) => {
    // A live status client that reads too slowly is cut on purpose (api/live-stream.ts): not an error of ours.
    if ((err as NodeJS.ErrnoException | undefined)?.code === 'ERR_SLOW_CLIENT') logger.warn({ err, requestId: ex.requestId, path: ex.path }, why);
    else logger.error({ err, requestId: ex.requestId, path: ex.path }, why);
    if (!responded && !ex.aborted) res.close();
    responded = true;
    stream.destroy();
    finish(ex);
  };
  const shortBody = () => abandon(`response stream ended after ${ex.bytesOut} of ${length} declared bytes`);
  const onWritable = (offset: number): boolean => {
    if (ex.aborted || responded) return true;
    if (length === undefined) {
      stream.resume();
      return true;
    }
    if (!pending) return true;
    const [ok, done] = res.tryEnd(pending.chunk.subarray(offset - pending.start), length);
    if (done) {
      pending = null;
      complete();
      return true;
    }
    if (ok) {
      pending = null;
      if (streamEnded) shortBody();
      else stream.resume();
    }
    return ok;
  };
  const waitWritable = () => {
    stream.pause();
    if (!writableRegistered) {
      writableRegistered = true;
      res.onWritable(onWritable);
    }
  };

  ex.onAbort = () => stream.destroy();
  stream.on('error', (err) => abandon('response stream failed', err));
  stream.on('end', () => {
    streamEnded = true;
    if (ex.aborted || responded) return;
    if (length === undefined) {
      responded = true;
      res.cork(() => res.end());
      finish(ex);
      return;
    }
    if (pending) return; // onWritable finishes it
    if (length === 0) {
      responded = true;
      res.cork(() => res.end());
      finish(ex);
      return;
    }
    shortBody();
  });
  stream.on('data', (data: Buffer | string) => {
    if (ex.aborted || responded) return;
    const chunk = typeof data === 'string' ? Buffer.from(data) : data;
    ex.bytesOut += chunk.length;
    if (length === undefined) {
      let ok = true;
      res.cork(() => {
        ok = res.write(chunk);
      });
      if (!ok) waitWritable();
      return;
    }
    const start = res.getWriteOffset();
    let result: [boolean, boolean] = [false, false];
    res.cork(() => {
      result = res.tryEnd(chunk, length);
    });
    const [ok, done] = result;
    if (done) complete();
    else if (!ok) {
      pending = { chunk, start };
      waitWritable();
    }
  });
}
