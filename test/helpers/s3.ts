// A real S3-compatible server over HTTP (or HTTPS) for tests (s3rver), on 127.0.0.1 and a free port.
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
// @ts-expect-error s3rver ships no types
import S3rver from 's3rver';
import { S3BlobStore } from '../../src/storage/s3-blob-store.js';

/** s3rver's one account, whose key pairs it accepts (process-wide). */
const s3rverAccount = (
  createRequire(import.meta.url)('s3rver/lib/models/account.js') as {
    DUMMY_ACCOUNT: { createKeyPair(id: string, secret: string): void };
  }
).DUMMY_ACCOUNT;
const READ_ONLY_KEY = 'S3RVER-READONLY';
s3rverAccount.createKeyPair(READ_ONLY_KEY, READ_ONLY_KEY);
const WRITING_METHODS = new Set(['PUT', 'POST', 'DELETE']);

const xmlError = (code: string, message: string) => `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`;

interface KoaContext {
  method: string;
  headers: Record<string, string | undefined>;
  path: string;
  query: Record<string, unknown>;
  status: number;
  type: string;
  body: unknown;
}

export interface TestS3 {
  endpoint: string;
  /** Where s3rver keeps the buckets' files (objects, and multipart uploads under <bucket>/._S3rver_uploads). */
  directory: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /**
   * A second key of the same account that may list and read but not write or delete: s3rver
   * has no permissions, so the server here answers its PUT, POST and DELETE requests 403
   * AccessDenied, as S3 answers a key without the permission.
   */
  readOnlyAccessKeyId: string;
  readOnlySecretAccessKey: string;
  /** Runs before the server handles each request: a test's moment to change it (e.g. delete the bucket mid-job). */
  beforeRequest: ((r: { method: string; path: string; query: URLSearchParams; headers: Record<string, string | undefined> }) => Promise<void> | void) | null;
  /** Creates another bucket (as s3rver does: a folder). */
  createBucket(name: string): Promise<void>;
  /** Deletes a bucket and everything in it (s3rver's own bucket deletion, without its not-empty rule). */
  deleteBucket(name?: string): Promise<void>;
  close(): Promise<void>;
}

/** The parts of s3rver's filesystem store (lib/stores/filesystem.js) that putObject and putPart use. */
interface S3rverStore {
  getResourcePath(bucket: string, key: string | undefined, resource: string): string;
  putMetadata(bucket: string, key: string, metadata: unknown, md5: string): Promise<void>;
  putObject(object: { bucket: string; key: string; content: Buffer | Readable; metadata: unknown }): Promise<{ size: number; md5: string }>;
  putPart(bucket: string, uploadId: string, partNumber: number, content: Readable): Promise<{ size: number; md5: string }>;
}

/** Writes content to file, counting and hashing it on the way; resolves once the file is written. */
async function writeCounted(content: Buffer | Readable, file: string): Promise<{ size: number; md5: string }> {
  const md5 = createHash('md5');
  let size = 0;
  const counted = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      md5.update(chunk);
      size += chunk.length;
      done(null, chunk);
    },
  });
  await pipeline(Buffer.isBuffer(content) ? Readable.from([content]) : content, counted, createWriteStream(file));
  return { size, md5: md5.digest('hex') };
}

/**
 * s3rver 3.7.1's putObject and putPart answer before their file is written: they resolve on
 * their hashing Transform's 'finish' (or at once for a Buffer), while the file's write stream
 * is still writing. A GET right after the PUT's answer then reads a prefix of the object, with
 * a Content-Length to match (the file's size then): a 7 MB upload parsed at once was read as
 * 4–6 MiB; and a CompleteMultipartUpload right after its last part's answer concatenates a
 * part file still being written (a 9 MiB object of two parts was stored as its last 1 MiB).
 * S3 serves a read after a write's answer the whole object, so here both answer once the
 * file is written, and an object is written beside its place and renamed into it (a read
 * meanwhile sees the previous object, as on S3, never half of the new one).
 */
function answerWhenWritten(store: S3rverStore): void {
  store.putObject = async (object) => {
    const objectPath = store.getResourcePath(object.bucket, object.key, 'object');
    const partial = store.getResourcePath(object.bucket, object.key, `partial-${randomBytes(6).toString('hex')}`);
    await fs.mkdir(path.dirname(objectPath), { recursive: true });
    let written: { size: number; md5: string };
    try {
      written = await writeCounted(object.content, partial);
      await fs.rename(partial, objectPath);
    } catch (err) {
      await fs.rm(partial, { force: true });
      throw err;
    }
    await store.putMetadata(object.bucket, object.key, object.metadata, written.md5);
    return written;
  };
  store.putPart = async (bucket, uploadId, partNumber, content) => {
    const partPath = path.join(store.getResourcePath(bucket, undefined, 'uploads'), uploadId, String(partNumber));
    await fs.mkdir(path.dirname(partPath), { recursive: true });
    const written = await writeCounted(content, partPath);
    await fs.writeFile(`${partPath}.md5`, written.md5);
    return written;
  };
}

/** With tls, over HTTPS with that key and certificate (clients must trust it). */
export async function startS3(bucket = 'docparse-test', opts: { tls?: { key: Buffer; cert: Buffer } } = {}): Promise<TestS3> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dp-s3-'));
  const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: dir, configureBuckets: [{ name: bucket }], ...opts.tls });
  answerWhenWritten((server as { store: S3rverStore }).store);
  const middleware = (server as { middleware: unknown[] }).middleware;
  // S3 refuses a body that differs from the SHA-256 its request was signed with
  // (x-amz-content-sha256) or from its CRC32 (x-amz-checksum-crc32); s3rver takes both
  // headers as they are. Checked here first, the body (a part: a few MiB) read whole, then
  // handed on to s3rver as it came.
  middleware.unshift(async (ctx: KoaContext & { req: Readable & { headers: unknown } }, next: () => Promise<void>) => {
    const sha256 = /^[0-9a-f]{64}$/i.test(ctx.headers['x-amz-content-sha256'] ?? '') ? ctx.headers['x-amz-content-sha256']!.toLowerCase() : null;
    const crc32 = ctx.headers['x-amz-checksum-crc32'] ?? null;
    if (ctx.method !== 'PUT' || (sha256 === null && crc32 === null)) return next();
    const chunks: Buffer[] = [];
    for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const refuse = (code: string, message: string) => {
      ctx.status = 400;
      ctx.type = 'application/xml';
      ctx.body = xmlError(code, message);
    };
    if (sha256 !== null && createHash('sha256').update(body).digest('hex') !== sha256) {
      return refuse('XAmzContentSHA256Mismatch', 'The provided x-amz-content-sha256 header does not match what was computed.');
    }
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(body));
    if (crc32 !== null && crc.toString('base64') !== crc32) return refuse('BadDigest', 'The CRC32 you specified did not match the calculated checksum.');
    ctx.req = Object.assign(Readable.from([body]), { headers: ctx.req.headers });
    return next();
  });
  // s3rver has no AbortMultipartUpload (it answers 405): done here as S3 does it, the
  // upload's parts removed, ahead of s3rver's own routes.
  middleware.unshift(async (ctx: KoaContext, next: () => Promise<void>) => {
    if (ctx.method !== 'DELETE' || typeof ctx.query.uploadId !== 'string') return next();
    const uploads = path.join(dir, ctx.path.split('/')[1], '._S3rver_uploads', path.basename(ctx.query.uploadId));
    try {
      await fs.access(uploads);
    } catch {
      ctx.status = 404;
      ctx.type = 'application/xml';
      ctx.body = xmlError('NoSuchUpload', 'The specified upload does not exist.');
      return;
    }
    await fs.rm(uploads, { recursive: true, force: true });
    ctx.status = 204;
  });
  // Ahead of everything: the test's hook, then the read-only key's refusals.
  const s3: Pick<TestS3, 'beforeRequest'> = { beforeRequest: null };
  middleware.unshift(async (ctx: KoaContext, next: () => Promise<void>) => {
    await s3.beforeRequest?.({ method: ctx.method, path: ctx.path, query: new URLSearchParams(ctx.querystring), headers: ctx.headers });
    const credential = ctx.headers.authorization?.match(/Credential=([^/]+)\//)?.[1] ?? String(ctx.query['X-Amz-Credential'] ?? '').split('/')[0];
    if (credential === READ_ONLY_KEY && WRITING_METHODS.has(ctx.method)) {
      ctx.status = 403;
      ctx.type = 'application/xml';
      ctx.body = xmlError('AccessDenied', 'Access Denied');
      return;
    }
    return next();
  });
  const { port } = (await server.run()) as { port: number };
  return Object.assign(s3, {
    endpoint: `${opts.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    directory: dir,
    bucket,
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    readOnlyAccessKeyId: READ_ONLY_KEY,
    readOnlySecretAccessKey: READ_ONLY_KEY,
    createBucket: async (name: string) => {
      await fs.mkdir(path.join(dir, name), { recursive: true });
    },
    deleteBucket: async (name = bucket) => {
      await fs.rm(path.join(dir, name), { recursive: true, force: true });
    },
    close: async () => {
      await server.close();
      await fs.rm(dir, { recursive: true, force: true });
    },
  });
}

/** The S3 store on this server's bucket, under prefix (the node's own bucket: no outbound policy). */
export function storeOn(s3: TestS3, opts: { prefix: string; partsInFlight?: number }): S3BlobStore {
  return new S3BlobStore({
    endpoint: s3.endpoint,
    region: 'us-east-1',
    bucket: s3.bucket,
    accessKeyId: s3.accessKeyId,
    secretAccessKey: s3.secretAccessKey,
    forcePathStyle: true,
    ...opts,
  });
}
