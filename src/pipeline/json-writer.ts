// Streaming JSON writer: artifacts can be far larger than memory, so parsers emit them
// piece by piece. Output is buffered in chunks and flushed with backpressure.
import type { Writable } from 'node:stream';
import { once } from 'node:events';

type Frame = { kind: 'object' | 'array'; first: boolean; expectValue: boolean };

const FLUSH_AT = 64 * 1024;

export class JsonWriter {
  private buf = '';
  private stack: Frame[] = [];
  private bytes = 0;

  constructor(private readonly out: Writable) {}

  /** Bytes written so far (UTF-8). */
  get bytesWritten(): number {
    return this.bytes;
  }

  beginObject(): this {
    this.prefix();
    this.buf += '{';
    this.stack.push({ kind: 'object', first: true, expectValue: false });
    return this;
  }

  endObject(): this {
    const f = this.stack.pop();
    if (!f || f.kind !== 'object' || f.expectValue) throw new Error('JsonWriter: endObject without matching beginObject');
    this.buf += '}';
    return this;
  }

  beginArray(): this {
    this.prefix();
    this.buf += '[';
    this.stack.push({ kind: 'array', first: true, expectValue: false });
    return this;
  }

  endArray(): this {
    const f = this.stack.pop();
    if (!f || f.kind !== 'array') throw new Error('JsonWriter: endArray without matching beginArray');
    this.buf += ']';
    return this;
  }

  /** Writes a key inside an object; the next call writes its value. */
  key(name: string): this {
    const f = this.top();
    if (f.kind !== 'object' || f.expectValue) throw new Error('JsonWriter: key outside an object');
    if (!f.first) this.buf += ',';
    f.first = false;
    f.expectValue = true;
    this.buf += JSON.stringify(name) + ':';
    return this;
  }

  /** Writes any JSON-serialisable value (keep each one small: it is stringified whole). */
  value(v: unknown): this {
    this.prefix();
    this.buf += v === undefined ? 'null' : JSON.stringify(v);
    return this;
  }

  /**
   * Writes a value that is already JSON text (e.g. one line of GeoJSONSeq that was just
   * parsed and checked): saves stringifying it again. The caller vouches that it is valid.
   */
  raw(json: string): this {
    this.prefix();
    this.buf += json;
    return this;
  }

  /** key + value in one call. */
  field(name: string, v: unknown): this {
    return this.key(name).value(v);
  }

  /** Flushes when the buffer is large; await it in loops so memory stays bounded. */
  async maybeFlush(): Promise<void> {
    if (this.buf.length >= FLUSH_AT) await this.flush();
  }

  async flush(): Promise<void> {
    if (!this.buf) return;
    // Encoded here, once: the length comes with it (Buffer.byteLength, then the stream's own
    // encoding of the string, walked the 64 KiB chunk twice).
    const chunk = Buffer.from(this.buf, 'utf8');
    this.buf = '';
    this.bytes += chunk.length;
    // A stream that already failed (an earlier write error) would never drain.
    if (this.out.destroyed) throw this.out.errored ?? new Error('output stream closed before the document was written');
    if (!this.out.write(chunk)) await once(this.out, 'drain');
  }

  /** Flushes and checks that every object and array was closed. */
  async finish(): Promise<void> {
    if (this.stack.length) throw new Error('JsonWriter: unclosed object or array');
    await this.flush();
  }

  private top(): Frame {
    const f = this.stack[this.stack.length - 1];
    if (!f) throw new Error('JsonWriter: no open object or array');
    return f;
  }

  private prefix(): void {
    const f = this.stack[this.stack.length - 1];
    if (!f) return; // top-level value
    if (f.kind === 'object') {
      if (!f.expectValue) throw new Error('JsonWriter: value without key inside an object');
      f.expectValue = false;
    } else {
      if (!f.first) this.buf += ',';
      f.first = false;
    }
  }
}
