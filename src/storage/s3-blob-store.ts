// S3-compatible blob store (AWS S3, MinIO, R2, Wasabi, GCS interop …). Uploads stream in
// multipart parts of PART_SIZE, so memory per upload is bounded whatever the file size.
// A tenant's own storage is opened with the node's outbound policy: every connection to it is
// checked (src/outbound), no redirect is followed, and a failure reads as one fixed reason
// (storageFailureReason) while the raw error goes to the operator's log only. The node's own
// bucket (DOCPARSE_S3_*, set by the operator, often MinIO on a private address) has no policy.
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createRequire } from 'node:module';
import type * as S3Sdk from '@aws-sdk/client-s3';
import { problem } from '../http/problem.js';
import { SlabPool } from '../http/slab-pool.js';
import { storageFailureTerm, type FailureTerm } from '../outbound/failure-terms.js';
import type { OutboundPolicy } from '../outbound/outbound-policy.js';
import type { ChecksumMode } from '../tenancy/types.js';
import {
  BlobTooLargeError,
  IncompleteCopyError,
  StagedOffsetError,
  type AppendOptions,
  type AppendResult,
  type BlobStore,
  type WriteResult,
} from './blob-store.js';
import { PartFiller, type FullPart } from './part-filler.js';

let loaded: typeof S3Sdk | null = null;
/** The AWS SDK, loaded when a node first uses S3 storage (≈ 20 MB a node on local disk never needs). */
const sdk = (): typeof S3Sdk => (loaded ??= createRequire(import.meta.url)('@aws-sdk/client-s3') as typeof S3Sdk);

export interface S3BlobStoreOptions {
  endpoint: string | null;
  region: string;
  bucket: string;
  /** Key prefix inside the bucket ('' or ending without slash). */
  prefix: string;
  accessKeyId: string;
  secretAccessKey: string;
  forcePathStyle: boolean;
  /** Default when_required: the CRC trailers the SDK sends otherwise are rejected by several S3-compatible servers. */
  checksums?: ChecksumMode;
  /**
   * Parts of one staged append on their way to S3 at a time (default PARTS_IN_FLIGHT). Each
   * holds its own part in memory: an append holds up to (N + 1) parts, N sent and one filling.
   */
  partsInFlight?: number;
}

const PART_SIZE = 8 * 1024 * 1024;
/**
 * A real S3 server takes 60–120 ms per 8 MiB part (Ceph RGW, issue 29): one part at a time
 * leaves the upload waiting on each round trip; 4 keep the body flowing (32 MiB on its way per append).
 */
export const PARTS_IN_FLIGHT = 4;
/**
 * Part buffers of PART_SIZE reused by every upload of the process: one upload's window kept
 * (40 MiB), dropped after a minute without uploads.
 */
const partBuffers = new SlabPool(PARTS_IN_FLIGHT + 1, PART_SIZE, 60_000);
/** The requests that carry an object's bytes (a whole object, or a part of one). */
const UPLOAD_COMMANDS = new Set(['PutObjectCommand', 'UploadPartCommand']);
/** Signature V4's header for the body's SHA-256; the signer hashes no body that has it set. */
const PAYLOAD_HASH_HEADER = 'x-amz-content-sha256';

/**
 * Whether uploads to this endpoint sign their bytes' SHA-256 (null: AWS's own, over HTTPS).
 * Over HTTPS, TLS already checks every byte on its way, so they go UNSIGNED-PAYLOAD, as
 * botocore sends them (its payload_signing_enabled: only over plain HTTP); the SDK's hash of
 * each part cost the node ≈ 0.6 CPU s a GiB and the server as much again to check (issue 29).
 * Over plain HTTP nothing else checks them: signed.
 */
export function payloadSigning(endpoint: string | null): 'signed' | 'unsigned' {
  return endpoint === null || /^https:/i.test(endpoint) ? 'unsigned' : 'signed';
}

/** S3 takes at most this many parts in one multipart upload. */
const MAX_PARTS = 10_000;
/**
 * A staged upload (tus) is an S3 multipart upload of the final key, plus two small objects
 * beside it: its state (upload id, parts sent) and its tail, the bytes that do not fill a
 * part yet (under one part: S3 refuses parts under 5 MiB but the last). The state is the
 * commit point of an append; keeping both in the bucket lets any node continue the upload.
 */
const STATE_SUFFIX = '.staging-state';
const TAIL_SUFFIX = '.staging-tail-';

interface StagedState {
  uploadId: string | null;
  partSize: number;
  parts: { PartNumber: number; ETag: string }[];
  /** Bytes in parts: parts.length × partSize, all full. */
  partsBytes: number;
  tailKey: string | null;
  tailBytes: number;
}

/** Parts of 8 MiB, larger when needed to fit the whole upload in 10,000 parts (whole MiB). */
function partSizeFor(totalBytes: number): number {
  const mib = 1024 * 1024;
  return Math.max(PART_SIZE, Math.ceil(totalBytes / MAX_PARTS / mib) * mib);
}

/** An error of the store (not of the append's source) met while appending. */
class StoreError extends Error {
  constructor(readonly original: unknown) {
    super('storage request failed');
  }
}
/** A tenant endpoint that has not accepted the connection by then is not reachable. */
const TENANT_CONNECT_TIMEOUT_MS = 10_000;

/** All a tenant is told about a failed request to their storage: one of the fixed failure terms. */
export type StorageFailureReason = FailureTerm;

/** The fixed reason for a failed request to a tenant's storage (src/outbound/failure-terms.ts). */
export function storageFailureReason(err: unknown): StorageFailureReason {
  return storageFailureTerm(err);
}

/** The step of the live check that failed: the bucket itself, or writing, reading or deleting its probe object. */
export type CheckStep = 'bucket' | 'write' | 'read' | 'delete';

export interface CheckFailure {
  reason: StorageFailureReason;
  step: CheckStep;
}

/** Where the live check writes its probe object (under the config's prefix); removed at once. */
export const PROBE_FOLDER = '.docparse-probe';

export class S3BlobStore implements BlobStore {
  /** Each chunk is copied into a part buffer before the next is asked for (PartFiller). */
  readonly takesLentChunks = true;
  private readonly s3: S3Sdk.S3Client;
  private readonly agents: ReturnType<OutboundPolicy['agents']> | null = null;
  /** Why the policy refuses the endpoint URL itself (scheme, credentials), checked before any request. */
  private readonly refusedUrl: string | null;

  /** @param outbound The policy for a tenant's storage; none for the node's own bucket. */
  constructor(
    private readonly o: S3BlobStoreOptions,
    private readonly outbound: OutboundPolicy | null = null,
  ) {
    if (outbound) this.agents = outbound.agents({ keepAlive: true, maxSockets: 50 });
    this.refusedUrl = outbound && o.endpoint ? outbound.urlRefusal(o.endpoint) : null;
    this.s3 = new (sdk().S3Client)({
      region: o.region,
      ...(o.endpoint ? { endpoint: o.endpoint } : {}),
      forcePathStyle: o.forcePathStyle,
      credentials: { accessKeyId: o.accessKeyId, secretAccessKey: o.secretAccessKey },
      // Streamed bodies with the SDK's default CRC trailers are corrupted by some
      // S3-compatible servers (PACKAGES.md); checksums only where the API requires them,
      // unless the service takes them (the storage preset says: AWS does).
      requestChecksumCalculation: o.checksums === 'when_supported' ? 'WHEN_SUPPORTED' : 'WHEN_REQUIRED',
      responseChecksumValidation: o.checksums === 'when_supported' ? 'WHEN_SUPPORTED' : 'WHEN_REQUIRED',
      // The SDK follows no redirect (its handler is plain node:http); nor may a wrong-region answer send it elsewhere.
      followRegionRedirects: false,
      ...(this.agents ? { requestHandler: { httpAgent: this.agents.http, httpsAgent: this.agents.https, connectionTimeout: TENANT_CONNECT_TIMEOUT_MS } } : {}),
    });
    if (payloadSigning(o.endpoint) === 'unsigned') {
      this.s3.middlewareStack.add(
        (next, context) => async (args) => {
          const request = args.request as { headers?: Record<string, string> };
          if (UPLOAD_COMMANDS.has(context.commandName ?? '') && request.headers) request.headers[PAYLOAD_HASH_HEADER] ??= 'UNSIGNED-PAYLOAD';
          return next(args);
        },
        { step: 'build', name: 'docparseUnsignedUploads' },
      );
    }
  }

  /**
   * Sends one request; for a tenant's storage a failure becomes the 502 storage_unavailable
   * problem with its fixed reason (the API answers it as it is), the raw error logged.
   */
  private async send<T>(request: () => Promise<T>, opts: { raw?: (err: unknown) => boolean } = {}): Promise<T> {
    if (this.refusedUrl) throw this.tenantFailure(new Error(`the endpoint ${this.refusedUrl}`));
    try {
      return await request();
    } catch (err) {
      if (!this.outbound || opts.raw?.(err)) throw err;
      throw this.tenantFailure(err);
    }
  }

  /** The fixed reason for err; the raw error is logged (debug) for the operator, never shown to the tenant. */
  private reasonFor(err: unknown, message: string): StorageFailureReason {
    const reason = storageFailureReason(err);
    this.outbound?.log.debug({ err, bucket: this.o.bucket, endpoint: this.o.endpoint, reason }, message);
    return reason;
  }

  private tenantFailure(err: unknown) {
    const reason = this.reasonFor(err, 'tenant storage request failed');
    return problem('storage_unavailable', `The app's own storage (bucket ${JSON.stringify(this.o.bucket)}) could not be used: ${reason}.`, {
      bucket: this.o.bucket,
      reason,
    });
  }

  /**
   * The live check of a tenant's storage with its credentials, within timeoutMs: the bucket is
   * looked up, then a probe object is written, read back and deleted, so credentials that may
   * read but not write (or not delete) are found now rather than at the first job. Null when
   * all of it worked, else the step that failed and its fixed reason (the raw error goes to the
   * outbound log). A bucket lookup refused with 403 goes on to the write: keys limited to
   * object operations (no ListBucket) are fine, and the write's answer says which 403 it is.
   */
  async check(timeoutMs: number): Promise<CheckFailure | null> {
    const abortSignal = AbortSignal.timeout(timeoutMs);
    const Bucket = this.o.bucket;
    const Key = this.key(`${PROBE_FOLDER}/${randomBytes(8).toString('hex')}`);
    const body = Buffer.from(`docparse storage check ${new Date().toISOString()}\n`);
    let step: CheckStep = 'bucket';
    try {
      if (this.refusedUrl) throw new Error(`the endpoint ${this.refusedUrl}`);
      await this.s3.send(new (sdk().HeadBucketCommand)({ Bucket }), { abortSignal }).catch((err: unknown) => {
        if (storageFailureReason(err) !== 'access denied') throw err;
      });
      step = 'write';
      await this.s3.send(new (sdk().PutObjectCommand)({ Bucket, Key, Body: body, ContentLength: body.length }), { abortSignal });
      step = 'read';
      const got = await this.s3.send(new (sdk().GetObjectCommand)({ Bucket, Key }), { abortSignal });
      const read = await readAll(got.Body as Readable);
      if (!read.equals(body)) throw new Error('the probe object read back differs from the one written');
      step = 'delete';
      await this.s3.send(new (sdk().DeleteObjectCommand)({ Bucket, Key }), { abortSignal });
      return null;
    } catch (err) {
      const reason = this.reasonFor(err, 'storage check failed');
      // Best effort: a probe written and not read back is removed (a key that may not delete leaves it).
      if (step === 'read') await this.s3.send(new (sdk().DeleteObjectCommand)({ Bucket, Key }), { abortSignal: AbortSignal.timeout(5_000) }).catch(() => {});
      return { reason, step };
    }
  }

  private get partsInFlight(): number {
    return Math.max(1, this.o.partsInFlight ?? PARTS_IN_FLIGHT);
  }

  private key(key: string): string {
    if (key.split('/').some((p) => p === '..' || p === '.')) throw new Error(`invalid blob key: ${key}`);
    return this.o.prefix ? `${this.o.prefix.replace(/\/+$/, '')}/${key}` : key;
  }

  async write(key: string, source: AsyncIterable<Buffer>, opts: { maxBytes?: number; lent?: boolean } = {}): Promise<WriteResult> {
    const Key = this.key(key);
    const Bucket = this.o.bucket;
    const hash = createHash('sha256');
    let bytes = 0;
    let uploadId: string | null = null;
    const filler = new PartFiller(PART_SIZE, partBuffers);
    const parts = new PartsInFlight(this.partsInFlight);
    const sendPart = async (part: FullPart) => {
      try {
        await parts.room();
        const UploadId = (uploadId ??= (await this.send(() => this.s3.send(new (sdk().CreateMultipartUploadCommand)({ Bucket, Key })))).UploadId!);
        const PartNumber = parts.started + 1;
        parts.add(PartNumber, this.uploadPart(Key, UploadId, PartNumber, part));
      } catch (err) {
        part.release();
        throw err;
      }
    };

    try {
      for await (const chunk of source) {
        bytes += chunk.length;
        if (opts.maxBytes !== undefined && bytes > opts.maxBytes) throw new BlobTooLargeError(opts.maxBytes);
        hash.update(chunk);
        await filler.add(chunk, sendPart);
      }
      if (uploadId === null) {
        // Under one part: a single PutObject.
        const body = filler.rest();
        await this.send(() => this.s3.send(new (sdk().PutObjectCommand)({ Bucket, Key, Body: body, ContentLength: body.length })));
      } else {
        const UploadId: string = uploadId;
        if (filler.bytes > 0) {
          const PartNumber = parts.started + 1;
          // The last, short part is the filler's own buffer, released by the finally below once every part settled.
          parts.add(PartNumber, this.uploadPart(Key, UploadId, PartNumber, { body: filler.rest(), release: () => {} }));
        }
        const sent = await parts.settle();
        await this.send(() => this.s3.send(new (sdk().CompleteMultipartUploadCommand)({ Bucket, Key, UploadId, MultipartUpload: { Parts: sent } })));
      }
      return { bytes, sha256: hash.digest('hex') };
    } catch (err) {
      // No request outlives the write: every part settles before the upload is aborted.
      await parts.settle().catch(() => {});
      const UploadId = uploadId;
      if (UploadId !== null) await this.send(() => this.s3.send(new (sdk().AbortMultipartUploadCommand)({ Bucket, Key, UploadId }))).catch(() => {});
      throw err;
    } finally {
      filler.release();
    }
  }

  /** UploadPart of part's bytes; the part is released once the request has settled. */
  private uploadPart(Key: string, UploadId: string, PartNumber: number, part: FullPart): Promise<string> {
    const Body = part.body;
    return this.send(() => this.s3.send(new (sdk().UploadPartCommand)({ Bucket: this.o.bucket, Key, UploadId, PartNumber, Body, ContentLength: Body.length })))
      .then((r) => r.ETag!)
      .finally(part.release);
  }

  async putFile(key: string, localPath: string): Promise<number> {
    const { bytes } = await this.write(key, createReadStream(localPath, { highWaterMark: 1024 * 1024 }));
    await fs.rm(localPath, { force: true });
    return bytes;
  }

  async read(key: string) {
    try {
      const r = await this.send(() => this.s3.send(new (sdk().GetObjectCommand)({ Bucket: this.o.bucket, Key: this.key(key) })), { raw: isNotFound });
      return { stream: r.Body as Readable, size: Number(r.ContentLength ?? 0) };
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  async localPath(key: string, opts: { bytes?: number } = {}) {
    const blob = await this.read(key);
    if (!blob) throw Object.assign(new Error(`blob ${key} not found`), { code: 'ENOENT' });
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'docparse-s3-'));
    const release = () => fs.rm(dir, { recursive: true, force: true });
    const file = path.join(dir, randomBytes(6).toString('hex'));
    try {
      const out = createWriteStream(file);
      await pipeline(blob.stream, out);
      // Node fails a body cut short of its Content-Length, but a server may answer a prefix
      // of the object with a length to match (s3rver did, read right after the write was
      // answered): the copy is checked against the size the object was stored with.
      const expected = opts.bytes ?? blob.size;
      if (out.bytesWritten !== expected) throw new IncompleteCopyError(key, out.bytesWritten, expected);
    } catch (err) {
      await release();
      throw err;
    }
    return { path: file, release };
  }

  async delete(key: string): Promise<void> {
    await this.send(() => this.s3.send(new (sdk().DeleteObjectCommand)({ Bucket: this.o.bucket, Key: this.key(key) })));
  }

  async deletePrefix(prefix: string): Promise<void> {
    const Prefix = `${this.key(prefix).replace(/\/+$/, '')}/`;
    let ContinuationToken: string | undefined;
    do {
      const page = await this.send(() => this.s3.send(new (sdk().ListObjectsV2Command)({ Bucket: this.o.bucket, Prefix, ContinuationToken })));
      const keys = (page.Contents ?? []).map((o) => ({ Key: o.Key! }));
      // A staged upload's parts are no object: only its state names them (AbortMultipartUpload).
      const root = this.o.prefix ? `${this.o.prefix.replace(/\/+$/, '')}/` : '';
      for (const { Key } of keys) if (Key.endsWith(STATE_SUFFIX)) await this.discardStaged(Key.slice(root.length, -STATE_SUFFIX.length));
      if (keys.length) await this.send(() => this.s3.send(new (sdk().DeleteObjectsCommand)({ Bucket: this.o.bucket, Delete: { Objects: keys, Quiet: true } })));
      ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (ContinuationToken);
  }

  async ping(): Promise<void> {
    await this.send(() => this.s3.send(new (sdk().HeadBucketCommand)({ Bucket: this.o.bucket })));
  }

  private async readState(key: string): Promise<StagedState | null> {
    const blob = await this.read(key + STATE_SUFFIX);
    if (!blob) return null;
    return JSON.parse((await readAll(blob.stream)).toString('utf8')) as StagedState;
  }

  private async putSmall(key: string, body: Buffer): Promise<void> {
    await this.send(() => this.s3.send(new (sdk().PutObjectCommand)({ Bucket: this.o.bucket, Key: this.key(key), Body: body, ContentLength: body.length })));
  }

  async stagedSize(key: string): Promise<number> {
    const state = await this.readState(key);
    return state ? state.partsBytes + state.tailBytes : 0;
  }

  /**
   * Streams source into parts of the multipart upload, starting with the stored tail; what is
   * left under a part becomes the new tail. Up to partsInFlight parts are on their way at once
   * while the next one fills. Memory: (partsInFlight + 1) parts (8 MiB each, more only above
   * 80 GiB uploads) per append in progress, whatever the size of the request. Each chunk is
   * copied into a part buffer (PartFiller), so it may be lent; a part's buffer is reused once
   * its request has settled.
   */
  async appendStaged(key: string, offset: number, source: AsyncIterable<Buffer>, opts: AppendOptions): Promise<AppendResult> {
    const state: StagedState = (await this.readState(key)) ?? {
      uploadId: null,
      partSize: partSizeFor(opts.totalBytes),
      parts: [],
      partsBytes: 0,
      tailKey: null,
      tailBytes: 0,
    };
    if (state.partsBytes + state.tailBytes !== offset) throw new StagedOffsetError(state.partsBytes + state.tailBytes);
    const filler = new PartFiller(state.partSize, partBuffers);
    try {
      return await this.appendParts(key, offset, state, filler, source, opts);
    } finally {
      filler.release();
    }
  }

  private async appendParts(
    key: string,
    offset: number,
    state: StagedState,
    filler: PartFiller,
    source: AsyncIterable<Buffer>,
    opts: AppendOptions,
  ): Promise<AppendResult> {
    const Bucket = this.o.bucket;
    const Key = this.key(key);
    let uploadId = state.uploadId;
    let created: string | null = null;
    const store = async <T>(request: () => Promise<T>): Promise<T> => {
      try {
        return await this.send(request);
      } catch (err) {
        throw new StoreError(err);
      }
    };
    const parts = new PartsInFlight(this.partsInFlight);
    const sendPart = async (part: FullPart) => {
      try {
        await parts.room();
        if (uploadId === null) {
          uploadId = created = (await store(() => this.s3.send(new (sdk().CreateMultipartUploadCommand)({ Bucket, Key })))).UploadId!;
        }
        const PartNumber = state.parts.length + parts.started + 1;
        parts.add(
          PartNumber,
          this.uploadPart(Key, uploadId, PartNumber, part).catch((err: unknown) => {
            throw new StoreError(err);
          }),
        );
      } catch (err) {
        part.release();
        throw err;
      }
    };
    if (state.tailKey) {
      const tail = await this.read(state.tailKey);
      if (!tail) throw new Error(`the tail ${state.tailKey} of staged upload ${key} is missing`);
      await filler.add(await readAll(tail.stream), sendPart);
    }
    let failure: unknown = null;
    let sent: StagedState['parts'] = [];
    try {
      for await (const chunk of source) await filler.add(chunk, sendPart);
      // tus's offset means stored: the answer waits for every part of this request.
      sent = await parts.settle();
      opts.beforeCommit?.();
    } catch (caught) {
      // Parts still on their way count once all have arrived (a cut-off body keeps them); a
      // part that failed costs the whole append its parts, since the state's parts must be
      // contiguous from the first. Nothing is written or aborted before every part settled.
      let err = caught;
      if (!(err instanceof StoreError)) {
        await parts
          .settle()
          .then((arrived) => (sent = arrived))
          .catch((storeErr: unknown) => (err = storeErr));
      } else {
        await parts.settle().catch(() => {});
      }
      if (err instanceof StoreError || !opts.keepOnFailure(err)) {
        // Parts sent to an upload that existed before are left out of the state: the next
        // append sends those part numbers again, and completion lists only committed parts.
        const UploadId = created;
        if (UploadId !== null) await this.send(() => this.s3.send(new (sdk().AbortMultipartUploadCommand)({ Bucket, Key, UploadId }))).catch(() => {});
        if (err instanceof StoreError) throw err.original;
        return { offset, failure: err };
      }
      failure = err;
    }
    const next: StagedState = {
      ...state,
      uploadId,
      parts: [...state.parts, ...sent],
      partsBytes: state.partsBytes + sent.length * state.partSize,
      tailKey: filler.bytes ? `${key}${TAIL_SUFFIX}${randomBytes(6).toString('hex')}` : null,
      tailBytes: filler.bytes,
    };
    if (next.tailKey) await this.putSmall(next.tailKey, filler.rest());
    await this.putSmall(key + STATE_SUFFIX, Buffer.from(JSON.stringify(next)));
    if (state.tailKey) await this.delete(state.tailKey).catch(() => {});
    return { offset: next.partsBytes + next.tailBytes, failure };
  }

  async finishStaged(key: string): Promise<void> {
    const Bucket = this.o.bucket;
    const Key = this.key(key);
    const state = await this.readState(key);
    if (!state) throw new Error(`no staged upload under ${key}`);
    const parts = [...state.parts];
    let uploadId = state.uploadId;
    if (state.tailKey) {
      const tail = await this.read(state.tailKey);
      if (!tail) throw new Error(`the tail ${state.tailKey} of staged upload ${key} is missing`);
      const body = await readAll(tail.stream);
      uploadId ??= (await this.send(() => this.s3.send(new (sdk().CreateMultipartUploadCommand)({ Bucket, Key })))).UploadId!;
      const UploadId = uploadId;
      const PartNumber = parts.length + 1;
      const r = await this.send(() =>
        this.s3.send(new (sdk().UploadPartCommand)({ Bucket, Key, UploadId, PartNumber, Body: body, ContentLength: body.length })),
      );
      parts.push({ PartNumber, ETag: r.ETag! });
    }
    const UploadId = uploadId;
    if (UploadId === null) await this.putSmall(key, Buffer.alloc(0));
    else await this.send(() => this.s3.send(new (sdk().CompleteMultipartUploadCommand)({ Bucket, Key, UploadId, MultipartUpload: { Parts: parts } })));
    if (state.tailKey) await this.delete(state.tailKey);
    await this.delete(key + STATE_SUFFIX);
  }

  async discardStaged(key: string): Promise<void> {
    const state = await this.readState(key);
    if (!state) return;
    const UploadId = state.uploadId;
    if (UploadId !== null) {
      await this.send(() => this.s3.send(new (sdk().AbortMultipartUploadCommand)({ Bucket: this.o.bucket, Key: this.key(key), UploadId })), {
        raw: isNoSuchUpload,
      }).catch((err) => {
        if (!isNoSuchUpload(err)) throw err;
      });
    }
    if (state.tailKey) await this.delete(state.tailKey);
    await this.delete(key + STATE_SUFFIX);
  }

  close(): void {
    this.s3.destroy();
    // The SDK leaves agents it was handed alone.
    this.agents?.http.destroy();
    this.agents?.https.destroy();
  }
}

/**
 * A missing object, not a missing bucket: a bucket deleted under a running job answers 404
 * NoSuchBucket to every read, and that is the storage failing (retried, then failed
 * storage_unavailable), not an upload that was never there.
 */
function isNotFound(err: unknown): boolean {
  const e = err as { name?: string; Code?: string; $metadata?: { httpStatusCode?: number } };
  if (e?.name === 'NoSuchBucket' || e?.Code === 'NoSuchBucket') return false;
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.$metadata?.httpStatusCode === 404;
}

function isNoSuchUpload(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NoSuchUpload' || e?.$metadata?.httpStatusCode === 404;
}

/**
 * The UploadPart requests of one append, at most `limit` at a time. A failure surfaces at the
 * next room() (no more parts are started after it) or at settle(), which waits for every part
 * still on its way before it answers, so no request outlives the append.
 */
class PartsInFlight {
  private readonly running = new Set<Promise<unknown>>();
  private readonly arrived: { PartNumber: number; ETag: string }[] = [];
  private failed: { err: unknown } | null = null;

  /** Parts added so far. */
  started = 0;

  constructor(private readonly limit: number) {}

  add(PartNumber: number, upload: Promise<string>): void {
    this.started++;
    const done: Promise<unknown> = upload.then(
      (ETag) => void this.arrived.push({ PartNumber, ETag }),
      (err: unknown) => void (this.failed ??= { err }),
    );
    this.running.add(done);
    void done.finally(() => this.running.delete(done));
  }

  /** Waits until another part may start; throws the first failure of a part. */
  async room(): Promise<void> {
    while (!this.failed && this.running.size >= this.limit) await Promise.race(this.running);
    if (this.failed) throw this.failed.err;
  }

  /** Waits for every part on its way; the parts that arrived, by number, or the first failure. */
  async settle(): Promise<{ PartNumber: number; ETag: string }[]> {
    await Promise.all(this.running);
    if (this.failed) throw this.failed.err;
    return [...this.arrived].sort((a, b) => a.PartNumber - b.PartNumber);
  }
}

async function readAll(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of stream) parts.push(c as Buffer);
  return Buffer.concat(parts);
}
