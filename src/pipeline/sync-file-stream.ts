// A Writable that writes to its file synchronously, for artifacts written from a parse thread.
// A worker thread has nothing else to do while its artifact is written, and fs.createWriteStream
// sends every open, write and close through libuv's thread pool — shared by the whole process,
// so each round trip waits behind other jobs' file I/O (≈ 1 ms apiece on a busy machine, ≈ 5 %
// of a SingleColumn PDF's wall time). Writes go to the page cache; nothing is fsynced, as before.
import fs from 'node:fs';
import { Writable } from 'node:stream';

export class SyncFileStream extends Writable {
  private fd: number | null;

  /** Opens (creates or truncates) `path` at once: a failure throws here, before any parsing. */
  constructor(path: string, opts: { highWaterMark?: number; mode?: number } = {}) {
    super({ highWaterMark: opts.highWaterMark ?? 1024 * 1024, decodeStrings: true });
    this.fd = fs.openSync(path, 'w', opts.mode);
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (err?: Error | null) => void): void {
    try {
      this.writeAll(chunk);
      done();
    } catch (err) {
      done(err as Error);
    }
  }

  override _writev(chunks: { chunk: Buffer }[], done: (err?: Error | null) => void): void {
    try {
      for (const { chunk } of chunks) this.writeAll(chunk);
      done();
    } catch (err) {
      done(err as Error);
    }
  }

  override _final(done: (err?: Error | null) => void): void {
    try {
      this.closeFd();
      done();
    } catch (err) {
      done(err as Error);
    }
  }

  override _destroy(err: Error | null, done: (err?: Error | null) => void): void {
    try {
      this.closeFd();
    } catch {
      // the stream is being torn down for `err` already
    }
    done(err);
  }

  private writeAll(chunk: Buffer): void {
    if (this.fd === null) throw new Error('write after the file was closed');
    // writeSync may write less than asked (a full disk, a signal): go on from where it stopped.
    for (let off = 0; off < chunk.length;) off += fs.writeSync(this.fd, chunk, off, chunk.length - off);
  }

  private closeFd(): void {
    if (this.fd === null) return;
    const fd = this.fd;
    this.fd = null;
    fs.closeSync(fd);
  }
}
