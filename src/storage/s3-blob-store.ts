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
import type { OutboundPolicy } from '../outbound/outbound-policy.js';
import { BlobTooLargeError, type BlobStore, type WriteResult } from './blob-store.js';

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
}

const PART_SIZE = 8 * 1024 * 1024;
/** A tenant endpoint that has not accepted the connection by then is not reachable. */
const TENANT_CONNECT_TIMEOUT_MS = 10_000;

/** All a tenant is told about a failed request to their storage. */
export type StorageFailureReason = 'endpoint not reachable' | 'access denied' | 'bucket not found';

/**
 * The fixed reason for a failed request to a tenant's storage: its credentials refused (401,
 * 403), no such bucket (404), else the endpoint is not reachable (a refused address, DNS,
 * connection, TLS, timeout, a redirect or any other answer no S3 service gives).
 */
export function storageFailureReason(err: unknown): StorageFailureReason {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } } | null;
  const status = e?.$metadata?.httpStatusCode;
  if (status === 401 || status === 403) return 'access denied';
  if (status === 404 || e?.name === 'NoSuchBucket') return 'bucket not found';
  return 'endpoint not reachable';
}

export class S3BlobStore implements BlobStore {
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
      // S3-compatible servers (PACKAGES.md); checksums only where the API requires them.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      // The SDK follows no redirect (its handler is plain node:http); nor may a wrong-region answer send it elsewhere.
      followRegionRedirects: false,
      ...(this.agents ? { requestHandler: { httpAgent: this.agents.http, httpsAgent: this.agents.https, connectionTimeout: TENANT_CONNECT_TIMEOUT_MS } } : {}),
    });
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
   * The live check of a tenant's bucket with its credentials, within timeoutMs: null when it
   * answers, else the fixed reason (the raw error goes to the outbound log).
   */
  async check(timeoutMs: number): Promise<StorageFailureReason | null> {
    try {
      if (this.refusedUrl) throw new Error(`the endpoint ${this.refusedUrl}`);
      await this.s3.send(new (sdk().HeadBucketCommand)({ Bucket: this.o.bucket }), { abortSignal: AbortSignal.timeout(timeoutMs) });
      return null;
    } catch (err) {
      return this.reasonFor(err, 'storage check failed');
    }
  }

  private key(key: string): string {
    if (key.split('/').some((p) => p === '..' || p === '.')) throw new Error(`invalid blob key: ${key}`);
    return this.o.prefix ? `${this.o.prefix.replace(/\/+$/, '')}/${key}` : key;
  }

  async write(key: string, source: AsyncIterable<Buffer>, opts: { maxBytes?: number } = {}): Promise<WriteResult> {
    const Key = this.key(key);
    const hash = createHash('sha256');
    let bytes = 0;
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let uploadId: string | null = null;
    const parts: { ETag: string; PartNumber: number }[] = [];
    const Bucket = this.o.bucket;

    const sendPart = async (last: boolean) => {
      const body = Buffer.concat(pending, pendingBytes);
      pending = [];
      pendingBytes = 0;
      if (uploadId === null) {
        if (last) {
          await this.send(() => this.s3.send(new (sdk().PutObjectCommand)({ Bucket, Key, Body: body, ContentLength: body.length })));
          return;
        }
        uploadId = (await this.send(() => this.s3.send(new (sdk().CreateMultipartUploadCommand)({ Bucket, Key })))).UploadId!;
      }
      const PartNumber = parts.length + 1;
      const UploadId = uploadId;
      const r = await this.send(() =>
        this.s3.send(new (sdk().UploadPartCommand)({ Bucket, Key, UploadId, PartNumber, Body: body, ContentLength: body.length })),
      );
      parts.push({ ETag: r.ETag!, PartNumber });
    };

    try {
      for await (const chunk of source) {
        bytes += chunk.length;
        if (opts.maxBytes !== undefined && bytes > opts.maxBytes) throw new BlobTooLargeError(opts.maxBytes);
        hash.update(chunk);
        pending.push(chunk);
        pendingBytes += chunk.length;
        if (pendingBytes >= PART_SIZE) await sendPart(false);
      }
      if (uploadId === null || pendingBytes > 0) await sendPart(true);
      const UploadId = uploadId;
      if (UploadId !== null) {
        await this.send(() => this.s3.send(new (sdk().CompleteMultipartUploadCommand)({ Bucket, Key, UploadId, MultipartUpload: { Parts: parts } })));
      }
      return { bytes, sha256: hash.digest('hex') };
    } catch (err) {
      const UploadId = uploadId;
      if (UploadId !== null) await this.send(() => this.s3.send(new (sdk().AbortMultipartUploadCommand)({ Bucket, Key, UploadId }))).catch(() => {});
      throw err;
    }
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

  async localPath(key: string) {
    const blob = await this.read(key);
    if (!blob) throw Object.assign(new Error(`blob ${key} not found`), { code: 'ENOENT' });
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'docparse-s3-'));
    const file = path.join(dir, randomBytes(6).toString('hex'));
    await pipeline(blob.stream, createWriteStream(file));
    return { path: file, release: () => fs.rm(dir, { recursive: true, force: true }) };
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
      if (keys.length) await this.send(() => this.s3.send(new (sdk().DeleteObjectsCommand)({ Bucket: this.o.bucket, Delete: { Objects: keys, Quiet: true } })));
      ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (ContinuationToken);
  }

  async ping(): Promise<void> {
    await this.send(() => this.s3.send(new (sdk().HeadBucketCommand)({ Bucket: this.o.bucket })));
  }

  close(): void {
    this.s3.destroy();
    // The SDK leaves agents it was handed alone.
    this.agents?.http.destroy();
    this.agents?.https.destroy();
  }
}

function isNotFound(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.$metadata?.httpStatusCode === 404;
}
