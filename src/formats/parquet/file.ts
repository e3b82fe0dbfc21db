// A hyparquet AsyncBuffer over an fs.FileHandle: every slice is a positioned read, so the
// file is never held whole in memory. Bytes read are counted (benchmarks and the
// MetadataOnly guarantee that no data page is read).
import type { FileHandle } from 'node:fs/promises';
import type { AsyncBuffer } from 'hyparquet';

export class FileAsyncBuffer implements AsyncBuffer {
  bytesRead = 0;
  /** Largest single read (bytes): bounded by one row group's column chunks in MetadataPlusRows. */
  largestRead = 0;

  constructor(
    private readonly fh: FileHandle,
    readonly byteLength: number,
  ) {}

  async slice(start: number, end?: number): Promise<ArrayBuffer> {
    const s = Math.max(0, Math.min(start, this.byteLength));
    const e = Math.max(s, Math.min(end ?? this.byteLength, this.byteLength));
    const out = new ArrayBuffer(e - s);
    const view = new Uint8Array(out);
    let done = 0;
    while (done < view.length) {
      const { bytesRead } = await this.fh.read(view, done, view.length - done, s + done);
      if (bytesRead === 0) break;
      done += bytesRead;
    }
    this.bytesRead += done;
    if (done > this.largestRead) this.largestRead = done;
    return done === out.byteLength ? out : out.slice(0, done);
  }
}
