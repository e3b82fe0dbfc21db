// Streaming JSON writer: artifacts can be far larger than memory, so parsers emit them
// piece by piece. Output is buffered in chunks and flushed with backpressure. Each piece is
// encoded into the current chunk as it comes: a long string grown by += and encoded at flush
// time cost ≈ 3× as much (V8 first copies the rope of pieces into one string).
import type { Writable } from 'node:stream';
import { once } from 'node:events';

type Frame = { kind: 'object' | 'array'; first: boolean; expectValue: boolean };

const FLUSH_AT = 64 * 1024;
const CHUNK = 64 * 1024;
/** Chars of a long string escaped at a time by string(). */
const STRING_SLICE = 8 * 1024;

export class JsonWriter {
  /** Encoded output not yet handed to the stream: sealed chunks, then `chunk` up to `used`. */
  private sealed: Buffer[] = [];
  /** Allocated when something is put into it: a sealed chunk is not followed by an empty one (a small artifact needs one chunk, not two). */
  private chunk: Buffer | null = null;
  private used = 0;
  /** Bytes in `sealed` and `chunk`. */
  private pending = 0;
  private stack: Frame[] = [];
  private bytes = 0;

  constructor(private readonly out: Writable) {}

  /** Bytes written so far (UTF-8). */
  get bytesWritten(): number {
    return this.bytes;
  }

  beginObject(): this {
    this.prefix();
    this.put('{');
    this.stack.push({ kind: 'object', first: true, expectValue: false });
    return this;
  }

  endObject(): this {
    const f = this.stack.pop();
    if (!f || f.kind !== 'object' || f.expectValue) throw new Error('JsonWriter: endObject without matching beginObject');
    this.put('}');
    return this;
  }

  beginArray(): this {
    this.prefix();
    this.put('[');
    this.stack.push({ kind: 'array', first: true, expectValue: false });
    return this;
  }

  endArray(): this {
    const f = this.stack.pop();
    if (!f || f.kind !== 'array') throw new Error('JsonWriter: endArray without matching beginArray');
    this.put(']');
    return this;
  }

  /** Writes a key inside an object; the next call writes its value. */
  key(name: string): this {
    const f = this.top();
    if (f.kind !== 'object' || f.expectValue) throw new Error('JsonWriter: key outside an object');
    if (!f.first) this.put(',');
    f.first = false;
    f.expectValue = true;
    this.put(JSON.stringify(name));
    this.put(':');
    return this;
  }

  /** Writes any JSON-serialisable value (keep each one small: it is stringified whole). */
  value(v: unknown): this {
    this.prefix();
    this.put(v === undefined ? 'null' : JSON.stringify(v));
    return this;
  }

  /**
   * Writes a string value slice by slice, escaping as it goes: a long string (a 50 MiB SQL
   * statement) is never copied whole into JSON text. Same output as value(s).
   */
  string(s: string): this {
    this.prefix();
    this.put('"');
    for (let at = 0; at < s.length;) {
      let end = Math.min(s.length, at + STRING_SLICE);
      // A surrogate pair stays in one slice (JSON.stringify would escape each half alone).
      const last = s.charCodeAt(end - 1);
      if (end < s.length && last >= 0xd800 && last <= 0xdbff) end--;
      const json = JSON.stringify(s.slice(at, end));
      this.put(json.slice(1, -1));
      at = end;
    }
    this.put('"');
    return this;
  }

  /**
   * Writes a value that is already JSON text (e.g. one line of GeoJSONSeq that was just
   * parsed and checked): saves stringifying it again. The caller vouches that it is valid.
   */
  raw(json: string): this {
    this.prefix();
    this.put(json);
    return this;
  }

  /** key + value in one call. */
  field(name: string, v: unknown): this {
    return this.key(name).value(v);
  }

  /** Flushes when the buffer is large; await it in loops so memory stays bounded. */
  async maybeFlush(): Promise<void> {
    if (this.pending >= FLUSH_AT) await this.flush();
  }

  async flush(): Promise<void> {
    this.seal();
    if (!this.sealed.length) return;
    const chunks = this.sealed;
    this.sealed = [];
    this.bytes += this.pending;
    this.pending = 0;
    // A stream that already failed (an earlier write error) would never drain.
    if (this.out.destroyed) throw this.out.errored ?? new Error('output stream closed before the document was written');
    let ok = true;
    for (const c of chunks) ok = this.out.write(c);
    if (!ok) await once(this.out, 'drain');
  }

  /** Encodes `s` (UTF-8) after what is buffered. */
  private put(s: string): void {
    // UTF-8 takes at most 3 bytes per UTF-16 code unit.
    if (s.length * 3 > CHUNK - this.used) {
      this.seal();
      if (s.length * 3 > CHUNK) {
        const b = Buffer.from(s, 'utf8');
        this.sealed.push(b);
        this.pending += b.length;
        return;
      }
    }
    this.chunk ??= Buffer.allocUnsafe(CHUNK);
    const n = this.chunk.write(s, this.used);
    this.used += n;
    this.pending += n;
  }

  /** Moves the chunk being filled to the sealed list. */
  private seal(): void {
    if (!this.chunk || !this.used) return;
    this.sealed.push(this.chunk.subarray(0, this.used));
    this.chunk = null;
    this.used = 0;
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
      if (!f.first) this.put(',');
      f.first = false;
    }
  }
}
