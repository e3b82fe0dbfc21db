// The body of an S3 part (or small object) as the chunks it arrived in. Sending a part as
// one Buffer cost an 8 MiB copy per part (Buffer.concat) and a SHA-256 of the whole body in
// one go when the SDK signed it (SigV4's payload hash), both on the event loop; the copies
// were what drove the node's major GCs during long uploads. Here the chunks are kept as
// they are (a chunk across a part boundary is split without copying), the hash (and the
// CRC32 when the store sends checksums) grows as chunks are added, and the request streams
// the chunks with that hash as its signed x-amz-content-sha256, so the SDK hashes nothing.
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import type * as S3Sdk from '@aws-sdk/client-s3';

/** zlib.crc32 (node ≥ 20.15): without it a body that needs a CRC32 goes as one Buffer, the SDK computing it. */
const crc32 = (zlib as { crc32?: (data: Buffer, value?: number) => number }).crc32;

export class PartBody {
  readonly chunks: Buffer[] = [];
  bytes = 0;
  private readonly sha = createHash('sha256');
  private crc = 0;
  private sealed: { sha256: string; crc32: string | undefined } | null = null;

  /** @param withCrc32 The store sends CRC32 checksums with its parts (checksums: when_supported). */
  constructor(readonly withCrc32: boolean) {}

  push(chunk: Buffer): void {
    if (this.sealed) throw new Error('part body already sealed');
    this.chunks.push(chunk);
    this.bytes += chunk.length;
    this.sha.update(chunk);
    if (this.withCrc32 && crc32) this.crc = crc32(chunk, this.crc);
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

  /** The chunks as one Buffer: for the few bodies that are small (tails) or need a CRC32 this node cannot compute. */
  concat(): Buffer {
    return this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks, this.bytes);
  }

  /** True when the chunks can go as they are (else concat() and let the SDK hash). */
  get streamable(): boolean {
    return !this.withCrc32 || crc32 !== undefined;
  }
}

/** Cuts a stream of chunks into bodies of partSize bytes, without copying. */
export class PartCutter {
  private part: PartBody;

  constructor(
    private readonly partSize: number,
    private readonly withCrc32: boolean,
  ) {
    this.part = new PartBody(withCrc32);
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
    this.part = new PartBody(this.withCrc32);
    return part;
  }
}

interface HttpRequestLike {
  headers: Record<string, string>;
  body?: unknown;
}
type Handler = (args: { request: unknown }) => Promise<unknown>;
/** The one shape of the SDK's middleware stack used here (its own types are per step and command). */
interface Stack {
  add(middleware: (next: Handler) => Handler, options: { step: 'build' | 'deserialize'; name: string }): void;
}

/** The body members of an UploadPart or PutObject input that sends body (with withPartBody). */
export function partBodyInput(body: PartBody): { Body?: Buffer; ContentLength: number; ChecksumAlgorithm?: 'CRC32'; ChecksumCRC32?: string } {
  if (!body.streamable) return { Body: body.concat(), ContentLength: body.bytes };
  const { crc32 } = body.digests();
  return { ContentLength: body.bytes, ...(crc32 ? { ChecksumAlgorithm: 'CRC32' as const, ChecksumCRC32: crc32 } : {}) };
}

/**
 * Makes command (an UploadPart or PutObject whose input came from partBodyInput) send body's
 * chunks. The hash goes in as x-amz-content-sha256 before
 * signing (the signer uses a header that is there: @smithy/signature-v4 getPayloadHash), and
 * each attempt gets a fresh stream of the chunks just before it is sent, after the retry
 * middleware: that one sees no stream body, so a failed attempt is retried as with a Buffer.
 */
export function withPartBody<C extends S3Sdk.UploadPartCommand | S3Sdk.PutObjectCommand>(command: C, body: PartBody): C {
  if (!body.streamable) return command;
  const { sha256 } = body.digests();
  const stack = command.middlewareStack as unknown as Stack;
  stack.add(
    (next) => (args) => {
      (args.request as HttpRequestLike).headers['x-amz-content-sha256'] = sha256;
      return next(args);
    },
    { step: 'build', name: 'docparsePartPayloadHash' },
  );
  stack.add(
    (next) => (args) => {
      const request = args.request as HttpRequestLike;
      const attempt = Object.assign(Object.create(Object.getPrototypeOf(request) as object) as HttpRequestLike, request, {
        body: Readable.from(body.chunks, { objectMode: false }),
      });
      return next({ ...args, request: attempt });
    },
    { step: 'deserialize', name: 'docparsePartChunks' },
  );
  return command;
}
