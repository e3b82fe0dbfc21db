// Fills the parts of an S3 multipart upload by copying each chunk into a part-sized buffer,
// so the chunks may be lent (BlobStore.takesLentChunks: valid only until the next is asked
// for) and no part is put together by a concat. Parts of the usual size come from a pool:
// a 1 GiB upload allocates a few parts' worth of memory, not 2 GiB (issue 29: the copies and
// concats were ≈ 5 of the node's 8 CPU seconds a GiB).
//
// Ownership: a full part is handed to the caller, who calls its release() once the request
// that sends it has settled (succeeded or failed, retries included); the buffer is reused
// from then on. The part being filled stays the filler's until release() on the filler.
import { SlabPool } from '../http/slab-pool.js';

/** A part of the upload, ready to send; release() once its request has settled. */
export interface FullPart {
  body: Buffer;
  release(): void;
}

export class PartFiller {
  private buf: Buffer | null = null;
  private used = 0;

  /** @param pool Buffers of partSize to reuse; null, or another size, allocates each part. */
  constructor(
    private readonly partSize: number,
    private readonly pool: SlabPool | null,
  ) {}

  /** Bytes in the part being filled. */
  get bytes(): number {
    return this.used;
  }

  /**
   * Copies chunk in; each part that fills goes to onFull, awaited before the copy goes on
   * (so a window of parts in flight holds the source back). chunk is not read after this
   * resolves.
   */
  async add(chunk: Buffer, onFull: (part: FullPart) => Promise<void>): Promise<void> {
    for (let from = 0; from < chunk.length;) {
      this.buf ??= this.take();
      const n = chunk.copy(this.buf, this.used, from);
      this.used += n;
      from += n;
      if (this.used === this.partSize) await onFull(this.handOver());
    }
  }

  /** The bytes of the part being filled (a view: valid until release()). */
  rest(): Buffer {
    return this.buf ? this.buf.subarray(0, this.used) : Buffer.alloc(0);
  }

  /** The part being filled is done with (its bytes sent or dropped). */
  release(): void {
    const buf = this.buf;
    this.buf = null;
    this.used = 0;
    if (buf) this.giveBack(buf);
  }

  private handOver(): FullPart {
    const body = this.buf!;
    this.buf = null;
    this.used = 0;
    let released = false;
    return {
      body,
      release: () => {
        if (released) return;
        released = true;
        this.giveBack(body);
      },
    };
  }

  private take(): Buffer {
    return this.pool && this.pool.bytes === this.partSize ? this.pool.take() : Buffer.allocUnsafeSlow(this.partSize);
  }

  private giveBack(buf: Buffer): void {
    if (this.pool && this.pool.bytes === this.partSize) this.pool.give(buf);
  }
}
