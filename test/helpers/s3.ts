// A real S3-compatible server over HTTP for tests (s3rver), on 127.0.0.1 and a free port.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
// @ts-expect-error s3rver ships no types
import S3rver from 's3rver';

interface KoaContext {
  method: string;
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
  close(): Promise<void>;
}

export async function startS3(bucket = 'docparse-test'): Promise<TestS3> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dp-s3-'));
  const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: dir, configureBuckets: [{ name: bucket }] });
  // s3rver has no AbortMultipartUpload (it answers 405): done here as S3 does it, the
  // upload's parts removed, ahead of s3rver's own routes.
  (server as { middleware: unknown[] }).middleware.unshift(async (ctx: KoaContext, next: () => Promise<void>) => {
    if (ctx.method !== 'DELETE' || typeof ctx.query.uploadId !== 'string') return next();
    const uploads = path.join(dir, ctx.path.split('/')[1], '._S3rver_uploads', path.basename(ctx.query.uploadId));
    try {
      await fs.access(uploads);
    } catch {
      ctx.status = 404;
      ctx.type = 'application/xml';
      ctx.body = '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>NoSuchUpload</Code><Message>The specified upload does not exist.</Message></Error>';
      return;
    }
    await fs.rm(uploads, { recursive: true, force: true });
    ctx.status = 204;
  });
  const { port } = (await server.run()) as { port: number };
  return {
    endpoint: `http://127.0.0.1:${port}`,
    directory: dir,
    bucket,
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    close: async () => {
      await server.close();
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}
