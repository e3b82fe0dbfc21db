// The body of an S3 part (or small object), filled as chunks arrive. Each part used to be a
// fresh 8 MiB Buffer.concat of its chunks, hashed again in one go by the SDK for SigV4's
// payload hash, both on the event loop. Here chunks are copied into part buffers reused from
// part to part (no allocation per part; a chunk is dropped at once), the part's SHA-256 (and
// CRC32 when the store sends checksums) grows as chunks are copied, and the request is signed
// with that hash, so the SDK hashes nothing. (Sending the chunks themselves, uncopied, held
// them through the part's request and cost more CPU: bench/RESULTS.md, "Resumable uploads to
// S3: parts without Buffer.concat".)
import { createHash } from 'node:crypto';
import zlib from 'node:zlib';
import type * as S3Sdk from '@aws-sdk/client-s3';

/** zlib.crc32 (node ≥ 20.15); without it the SDK computes a part's CRC32 itself. */
const crc32 = (zlib as { crc32?: (data: Uint8Array, value?: number) => number }).crc32;

/** Part buffers kept for the next part, at most this many (idle ones go after IDLE_MS). */
const MAX_IDLE = 4;
const IDLE_MS = 30_000;

/** Buffers of a part's size, handed back after their part's request and reused. */
class PartBuffers {
  private readonly idle: Buffer[] = [];
  private timer: NodeJS.Timeout | null = null;

  take(size: number): Buffer {
    const i = this.idle.findIndex((b) => b.length === size);
    return i >= 0 ? this.idle.splice(i, 1)[0] : Buffer.allocUnsafeSlow(size);
  }

  give(buf: Buffer): void {
    if (this.idle.length >= MAX_IDLE) return;
    this.idle.push(buf);
    this.timer?.refresh();
    this.timer ??= setTimeout(() => {
      this.idle.length = 0;
      this.timer = null;
    }, IDLE_MS).unref();
  }
}
const buffers = new PartBuffers();

export class PartBody {
  /** Taken at the first byte: a part that stays empty holds none. */
  private buf: Buffer | null = null;
  private released = false;
  bytes = 0;
  private readonly sha = createHash('sha256');
  private crc = 0;
  private sealed: { sha256: string; crc32: string | undefined } | null = null;

  /**
   * @param size The part size: the most this body holds.
   * @param withCrc32 The store sends CRC32 checksums with its parts (checksums: when_supported).
   */
  constructor(
    private readonly size: number,
    readonly withCrc32: boolean,
  ) {}

  /** Copies chunk in (it must fit). */
  push(chunk: Buffer): void {
    if (this.sealed || this.released) throw new Error('part body already sealed');
    if (this.bytes + chunk.length > this.size) throw new RangeError('chunk overflows the part');
    this.buf ??= buffers.take(this.size);
    chunk.copy(this.buf, this.bytes);
    this.bytes += chunk.length;
    this.sha.update(chunk);
    if (this.withCrc32 && crc32) this.crc = crc32(chunk, this.crc);
  }

  /** The bytes; valid until release(). */
  get view(): Buffer {
    if (this.released) throw new Error('part body released');
    return this.buf ? this.buf.subarray(0, this.bytes) : Buffer.alloc(0);
  }

  /** The SHA-256 (hex) and CRC32 (base64, as S3 takes it; when asked for) of the bytes; no more may be pushed. */
  digests(): { sha256: string; crc32: string | undefined } {
    if (!this.sealed) {
      const crc = Buffer.alloc(4);
      crc.writeUInt32BE(this.crc >>> 0);
      this.sealed = { sha256: this.sha.digest('hex'), crc32: this.withCrc32 && crc32 ? crc.toString('base64') : undefined };
    }
    return this.sealed;
  }

  /**
   * Hands the buffer back for another part: only once its request has succeeded (a failed
   * one may still be writing it to its socket; that buffer is left to the GC).
   */
  release(): void {
    const buf = this.buf;
    this.buf = null;
    this.released = true;
    if (buf) buffers.give(buf);
  }
}

/** Cuts a stream of chunks into bodies of partSize bytes. */
export class PartCutter {
  private part: PartBody;

  constructor(
    private readonly partSize: number,
    private readonly withCrc32: boolean,
  ) {
    this.part = new PartBody(partSize, withCrc32);
  }

  /** Bytes of the part being filled. */
  get bytes(): number {
    return this.part.bytes;
  }

  /** Adds chunk; the parts it filled, in order (usually none or one). */
  add(chunk: Buffer): PartBody[] {
    const full: PartBody[] = [];
    let rest = chunk;
    while (rest.length > 0) {
      const room = this.partSize - this.part.bytes;
      const head = rest.length <= room ? rest : rest.subarray(0, room);
      this.part.push(head);
      rest = rest.subarray(head.length);
      if (this.part.bytes === this.partSize) full.push(this.take());
    }
    return full;
  }

  /** The bytes added and not yet in a full part (the cutter starts an empty part). */
  take(): PartBody {
    const part = this.part;
    this.part = new PartBody(this.partSize, this.withCrc32);
    return part;
  }
}

/** The body members of an UploadPart or PutObject input that sends body (with withPartBody). */
export function partBodyInput(body: PartBody): { Body: Buffer; ContentLength: number; ChecksumAlgorithm?: 'CRC32'; ChecksumCRC32?: string } {
  const { crc32 } = body.digests();
  return { Body: body.view, ContentLength: body.bytes, ...(crc32 ? { ChecksumAlgorithm: 'CRC32' as const, ChecksumCRC32: crc32 } : {}) };
}

type Handler = (args: { request: unknown }) => Promise<unknown>;
/** The one shape of the SDK's middleware stack used here (its own types are per step and command). */
interface Stack {
  add(middleware: (next: Handler) => Handler, options: { step: 'build'; name: string }): void;
}

/**
 * Signs command (an UploadPart or PutObject whose input came from partBodyInput) with body's
 * SHA-256 as its x-amz-content-sha256: the signer takes a header that is there as the payload
 * hash (@smithy/signature-v4 getPayloadHash) instead of hashing the body again.
 */
export function withPartBody<C extends S3Sdk.UploadPartCommand | S3Sdk.PutObjectCommand>(command: C, body: PartBody): C {
  const { sha256 } = body.digests();
  (command.middlewareStack as unknown as Stack).add(
    (next) => (args) => {
      (args.request as { headers: Record<string, string> }).headers['x-amz-content-sha256'] = sha256;
      return next(args);
    },
    { step: 'build', name: 'docparsePartPayloadHash' },
  );
  return command;
}
