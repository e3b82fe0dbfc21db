// S3-compatible blob store (AWS S3, MinIO, R2, Wasabi, GCS interop …). Uploads stream in
// multipart parts of PART_SIZE, so memory per upload is bounded whatever the file size.
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { BlobTooLargeError, type BlobStore, type WriteResult } from './blob-store.js';

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

export class S3BlobStore implements BlobStore {
  private readonly s3: S3Client;

  constructor(private readonly o: S3BlobStoreOptions) {
    this.s3 = new S3Client({
      region: o.region,
      ...(o.endpoint ? { endpoint: o.endpoint } : {}),
      forcePathStyle: o.forcePathStyle,
      credentials: { accessKeyId: o.accessKeyId, secretAccessKey: o.secretAccessKey },
      // Streamed bodies with the SDK's default CRC trailers are corrupted by some
      // S3-compatible servers (PACKAGES.md); checksums only where the API requires them.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
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
          await this.s3.send(new PutObjectCommand({ Bucket, Key, Body: body, ContentLength: body.length }));
          return;
        }
        uploadId = (await this.s3.send(new CreateMultipartUploadCommand({ Bucket, Key }))).UploadId!;
      }
      const PartNumber = parts.length + 1;
      const r = await this.s3.send(new UploadPartCommand({ Bucket, Key, UploadId: uploadId, PartNumber, Body: body, ContentLength: body.length }));
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
      if (uploadId !== null) {
        await this.s3.send(new CompleteMultipartUploadCommand({ Bucket, Key, UploadId: uploadId, MultipartUpload: { Parts: parts } }));
      }
      return { bytes, sha256: hash.digest('hex') };
    } catch (err) {
      if (uploadId !== null) await this.s3.send(new AbortMultipartUploadCommand({ Bucket, Key, UploadId: uploadId })).catch(() => {});
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
      const r = await this.s3.send(new GetObjectCommand({ Bucket: this.o.bucket, Key: this.key(key) }));
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
    await this.s3.send(new DeleteObjectCommand({ Bucket: this.o.bucket, Key: this.key(key) }));
  }

  async deletePrefix(prefix: string): Promise<void> {
    const Prefix = `${this.key(prefix).replace(/\/+$/, '')}/`;
    let ContinuationToken: string | undefined;
    do {
      const page = await this.s3.send(new ListObjectsV2Command({ Bucket: this.o.bucket, Prefix, ContinuationToken }));
      const keys = (page.Contents ?? []).map((o) => ({ Key: o.Key! }));
      if (keys.length) await this.s3.send(new DeleteObjectsCommand({ Bucket: this.o.bucket, Delete: { Objects: keys, Quiet: true } }));
      ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (ContinuationToken);
  }

  async ping(): Promise<void> {
    await this.s3.send(new HeadBucketCommand({ Bucket: this.o.bucket }));
  }

  close(): void {
    this.s3.destroy();
  }
}

function isNotFound(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.$metadata?.httpStatusCode === 404;
}
