// Resumable (tus 1.0) uploads on the presigned upload URL, over real HTTP, with the node's
// storage on its data disk and in an S3-compatible server (s3rver) where the bytes become
// an S3 multipart upload. tus-js-client is the client where a standard client is the point.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import { createReadStream } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { Readable } from 'node:stream';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { Upload } from 'tus-js-client';
import { createApp, createTestEnv, destroyTestEnv, filesUnder, getToken, startTestNode, waitFor, type TestEnv, type TestNode } from '../helpers/node.js';
import { startS3, type TestS3 } from '../helpers/s3.js';

const MiB = 1024 * 1024;
/** s3blob-store's part size: PATCHes of other sizes leave tails, which later PATCHes start from. */
const S3_PART = 8 * MiB;

interface Session {
  uploadId: string;
  documentId: string;
  uploadUrl: string;
  expiresAt: string;
}

/** A CSV of rows of 32 bytes, about `bytes` long, different for each seed. */
function csv(bytes: number, seed = 0): Buffer {
  const header = 'id,value,' + 'label'.padEnd(22, '_') + '\n';
  const rows = Math.floor((bytes - header.length) / 32);
  const buf = Buffer.alloc(header.length + rows * 32);
  buf.write(header);
  for (let i = 0; i < rows; i++)
    buf.write(`${String(i).padStart(10, '0')},${String((i * 7 + seed) % 1e9).padStart(9, '0')},r${String(i % 1e6).padStart(6, '0')}xxx\n`, 32 + i * 32);
  return buf;
}
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const rowsOf = (b: Buffer) => b.length / 32 - 1;

// The distributed mode (sessions in Redis, control plane in PostgreSQL) with the node's bucket, as a cluster runs.
const SETUPS = [
  { storage: 'disk', mode: 'embedded' },
  { storage: 's3', mode: 'embedded' },
  { storage: 's3', mode: 'distributed' },
] as const;

for (const { storage, mode } of SETUPS) {
  describe(`resumable presigned upload (tus) on ${storage} storage (${mode})`, () => {
    let env: TestEnv;
    let n: TestNode;
    let s3: TestS3 | null = null;
    let app: { tenantId: string; clientId: string; clientSecret: string };
    let token: string;

    beforeAll(async () => {
      const over: Record<string, string> = { DOCPARSE_RETENTION_SECONDS: '7200' };
      if (storage === 's3') {
        s3 = await startS3('tus-bucket');
        Object.assign(over, {
          DOCPARSE_S3_BUCKET: s3.bucket,
          DOCPARSE_S3_ENDPOINT: s3.endpoint,
          DOCPARSE_S3_ACCESS_KEY_ID: s3.accessKeyId,
          DOCPARSE_S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
          DOCPARSE_S3_FORCE_PATH_STYLE: 'true',
          DOCPARSE_S3_PREFIX: 'node-a',
        });
      }
      env = await createTestEnv(mode, over);
      n = await startTestNode(env);
      app = await createApp(n.node, {});
      token = await getToken(n.url, app.clientId, app.clientSecret);
    });
    afterAll(async () => {
      await n?.close();
      if (env) await destroyTestEnv(env);
      await s3?.close();
    });

    const postJson = (p: string, body: unknown) =>
      fetch(`${n.url}${p}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const openSession = async (file: Buffer, extra: Record<string, unknown> = {}): Promise<Session> => {
      const r = await postJson('/api/v1/documents/upload-request', { fileName: 'big.csv', sizeBytes: file.length, sha256: sha256(file), ...extra });
      expect(r.status).toBe(201);
      return (await r.json()) as Session;
    };
    /** The session's URL on this node (its host is the configured base URL). */
    const urlOf = (s: Session) => {
      const u = new URL(s.uploadUrl);
      return `${n.url}${u.pathname}${u.search}`;
    };
    const head = async (s: Session) => {
      const r = await fetch(urlOf(s), { method: 'HEAD', headers: { 'Tus-Resumable': '1.0.0' } });
      return { status: r.status, offset: Number(r.headers.get('upload-offset')), length: Number(r.headers.get('upload-length')), headers: r.headers };
    };
    const patch = (s: Session, offset: number, body: Buffer, headers: Record<string, string> = {}) =>
      fetch(urlOf(s), {
        method: 'PATCH',
        headers: { 'Tus-Resumable': '1.0.0', 'Upload-Offset': String(offset), 'Content-Type': 'application/offset+octet-stream', ...headers },
        body,
      });
    const complete = (s: Session) => postJson('/api/v1/documents/upload-complete', { uploadId: s.uploadId, csvRoute: 'Tabular' });
    const settledRows = async (documentId: string) => {
      const auth = { headers: { authorization: `Bearer ${token}` } };
      await waitFor(
        async () => {
          const st = (await (await fetch(`${n.url}/api/v1/documents/${documentId}/status`, auth)).json()) as { statusInt: number };
          return st.statusInt === 8 || st.statusInt === 9 ? st : null;
        },
        'the job to finish',
        120_000,
      );
      const r = await fetch(`${n.url}/api/v1/documents/${documentId}/result`, auth);
      expect(r.status).toBe(200);
      return ((await r.json()) as { content: { rowCount: number } }).content.rowCount;
    };
    /** With tus-js-client, from wherever the server says the upload is (its HEAD). */
    const tusUpload = (s: Session, input: Buffer | Readable, size: number, chunkSize: number) =>
      new Promise<void>((resolve, reject) => {
        const upload = new Upload(input, {
          uploadUrl: urlOf(s),
          uploadSize: size,
          chunkSize,
          retryDelays: [0, 200, 1000],
          onError: reject,
          onSuccess: () => resolve(),
        });
        upload.start();
      });

    /** The tenant's stored blobs: files on disk, objects in the bucket. */
    const storedBlobs = async (): Promise<string[]> => {
      if (!s3) return (await filesUnder(path.join(env.dataDir, 'blobs'))).filter((f) => f.includes(`/${app.tenantId}/`));
      const client = new S3Client({
        endpoint: s3.endpoint,
        region: 'us-east-1',
        forcePathStyle: true,
        credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
      });
      try {
        const page = await client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: `node-a/jobs/${app.tenantId}/` }));
        return (page.Contents ?? []).map((o) => o.Key!);
      } finally {
        client.destroy();
      }
    };
    /** S3 multipart uploads not completed nor aborted (their parts' folders in s3rver). */
    const openMultipartUploads = async (): Promise<string[]> => {
      if (!s3) return [];
      return fs.readdir(path.join(s3.directory, s3.bucket, '._S3rver_uploads')).catch(() => []);
    };
    /** Bytes of this upload the store has certainly taken: the staging file, or the parts S3 has finished. */
    const storedEvidence = async (): Promise<number> => {
      if (!s3) {
        const staging = (await storedBlobs()).find((f) => f.endsWith('.staging'));
        return staging ? (await fs.stat(staging)).size : 0;
      }
      let bytes = 0;
      for (const u of await openMultipartUploads()) {
        const files = await fs.readdir(path.join(s3.directory, s3.bucket, '._S3rver_uploads', u));
        bytes += files.filter((f) => f.endsWith('.md5')).length * S3_PART;
      }
      return bytes;
    };

    it('tus-js-client uploads a file in PATCHes to the session URL; upload-complete parses it', async () => {
      const file = csv(12 * MiB + 4321, 1);
      const s = await openSession(file);
      const opts = await fetch(urlOf(s), { method: 'OPTIONS' });
      expect(opts.status).toBe(204);
      expect(opts.headers.get('tus-version')).toBe('1.0.0');
      expect(opts.headers.get('tus-extension')).toBe('termination,checksum');
      expect(opts.headers.get('tus-checksum-algorithm')?.split(',')).toEqual(expect.arrayContaining(['sha1', 'sha256']));
      expect(Number(opts.headers.get('tus-max-size'))).toBeGreaterThan(file.length);
      expect(opts.headers.get('allow')).toContain('PATCH');
      // A browser's preflight may send the tus headers; its answers expose Upload-Offset.
      const preflight = await fetch(urlOf(s), { method: 'OPTIONS', headers: { origin: 'https://app.example', 'access-control-request-method': 'PATCH' } });
      expect(preflight.headers.get('access-control-allow-headers')).toContain('Upload-Offset');

      const before = await head(s);
      expect(before).toMatchObject({ status: 200, offset: 0, length: file.length });
      expect(before.headers.get('tus-resumable')).toBe('1.0.0');
      expect(before.headers.get('cache-control')).toBe('no-store');
      const fromBrowser = await fetch(urlOf(s), { method: 'HEAD', headers: { origin: 'https://app.example' } });
      expect(fromBrowser.headers.get('access-control-expose-headers')).toContain('Upload-Offset');

      // 3 MiB + 1: every PATCH but the first starts inside an S3 part.
      await tusUpload(s, file, file.length, 3 * MiB + 1);
      expect((await head(s)).offset).toBe(file.length);
      // Nothing left staged: one blob, the upload itself; no multipart upload open.
      expect(await storedBlobs()).toEqual([expect.stringMatching(/\/upload-resumable$/)]);
      expect(await openMultipartUploads()).toEqual([]);
      expect((await complete(s)).status).toBe(202);
      expect(await settledRows(s.documentId)).toBe(rowsOf(file));
    });

    it('continues after a dropped connection from the bytes stored, refuses a part sent again with 409, and finishes with tus-js-client', async () => {
      const file = csv(12 * MiB + 96, 2);
      const s = await openSession(file);
      const first = await patch(s, 0, file.subarray(0, 3 * MiB));
      expect(first.status).toBe(204);
      expect(first.headers.get('upload-offset')).toBe(String(3 * MiB));

      // A PATCH that announces 6 MiB, sends 5.5 MiB and is cut off once the store has taken
      // (disk) 7 MiB or (S3) a whole part.
      const u = new URL(urlOf(s));
      const req = http.request({
        host: u.hostname,
        port: u.port,
        path: `${u.pathname}${u.search}`,
        method: 'PATCH',
        headers: {
          'Tus-Resumable': '1.0.0',
          'Upload-Offset': String(3 * MiB),
          'Content-Type': 'application/offset+octet-stream',
          'Content-Length': String(6 * MiB),
        },
      });
      req.on('error', () => {});
      req.write(file.subarray(3 * MiB, 8.5 * MiB));
      const threshold = s3 ? S3_PART : 7 * MiB;
      await waitFor(async () => (await storedEvidence()) >= threshold, 'the store to take the bytes sent');
      req.destroy();

      const resumed = await head(s);
      expect(resumed.offset).toBeGreaterThanOrEqual(threshold);
      expect(resumed.offset).toBeLessThanOrEqual(8.5 * MiB);
      if (!s3) expect(await storedEvidence()).toBe(resumed.offset);

      // A cut-off PATCH that carries Upload-Checksum keeps nothing: its checksum cannot be checked.
      const withSum = http.request({
        host: u.hostname,
        port: u.port,
        path: `${u.pathname}${u.search}`,
        method: 'PATCH',
        headers: {
          'Tus-Resumable': '1.0.0',
          'Upload-Offset': String(resumed.offset),
          'Upload-Checksum': `sha1 ${createHash('sha1')
            .update(file.subarray(resumed.offset, resumed.offset + 2 * MiB))
            .digest('base64')}`,
          'Content-Type': 'application/offset+octet-stream',
          'Content-Length': String(2 * MiB),
        },
      });
      withSum.on('error', () => {});
      withSum.write(file.subarray(resumed.offset, resumed.offset + MiB));
      // On disk the bytes are seen arriving in the staging file (and cut back); S3 buffers them below a part.
      if (!s3) await waitFor(async () => (await storedEvidence()) > resumed.offset, 'the store to take the checksummed bytes');
      else await new Promise((r) => setTimeout(r, 300));
      withSum.destroy();
      expect((await head(s)).offset).toBe(resumed.offset);
      if (!s3) expect(await storedEvidence()).toBe(resumed.offset);

      // The first part again: refused, naming where the upload is; nothing changes.
      const again = await patch(s, 0, file.subarray(0, 3 * MiB));
      expect(again.status).toBe(409);
      expect(again.headers.get('content-type')).toContain('application/problem+json');
      expect(again.headers.get('upload-offset')).toBe(String(resumed.offset));
      expect(again.headers.get('tus-resumable')).toBe('1.0.0');
      expect(await again.json()).toMatchObject({ code: 'upload_offset_mismatch', offset: resumed.offset });
      expect((await head(s)).offset).toBe(resumed.offset);

      // tus-js-client asks HEAD and sends the rest; the declared SHA-256 is checked at the end.
      await tusUpload(s, file, file.length, 4 * MiB);
      const late = await patch(s, 3 * MiB, file.subarray(3 * MiB, 4 * MiB));
      expect(late.status).toBe(409);
      expect(late.headers.get('upload-offset')).toBe(String(file.length));
      expect((await complete(s)).status).toBe(202);
      expect(await settledRows(s.documentId)).toBe(rowsOf(file));
    });

    it('takes a file through tus-js-client after a restart of the node midway (the SHA-256 computed again from the stored bytes)', async () => {
      const file = csv(10 * MiB + 32 * 7, 3);
      const s = await openSession(file);
      expect((await patch(s, 0, file.subarray(0, 5 * MiB))).status).toBe(204);
      await n.close();
      n = await startTestNode(env);
      token = await getToken(n.url, app.clientId, app.clientSecret);
      expect((await head(s)).offset).toBe(5 * MiB);
      // A file read from disk: tus-js-client reopens it where the server's HEAD says.
      const local = path.join(env.dataDir, 'to-send.csv');
      await fs.writeFile(local, file);
      const stream = createReadStream(local);
      await tusUpload(s, stream, file.length, 2 * MiB);
      await fs.rm(local);
      expect((await complete(s)).status).toBe(202);
      expect(await settledRows(s.documentId)).toBe(rowsOf(file));
    });

    it('checks Upload-Checksum (sha1, sha256) per PATCH, keeping none of a mismatching one, and the declared SHA-256 at the end', async () => {
      const file = csv(2 * MiB, 4);
      const s = await openSession(file);
      const part = file.subarray(0, MiB);
      const digest = (alg: string, b: Buffer) => createHash(alg).update(b).digest('base64');
      const wrong = await patch(s, 0, part, { 'Upload-Checksum': `sha1 ${digest('sha1', file.subarray(1, MiB + 1))}` });
      expect(wrong.status).toBe(460);
      expect(await wrong.json()).toMatchObject({ code: 'checksum_mismatch', offset: 0 });
      expect((await head(s)).offset).toBe(0);
      const unknown = await patch(s, 0, part, { 'Upload-Checksum': `crc99 ${digest('sha1', part)}` });
      expect(unknown.status).toBe(400);
      expect(await unknown.json()).toMatchObject({ code: 'invalid_parameter', parameter: 'Upload-Checksum' });
      expect((await patch(s, 0, part, { 'Upload-Checksum': `sha1 ${digest('sha1', part)}` })).status).toBe(204);
      const last = await patch(s, MiB, file.subarray(MiB), { 'Upload-Checksum': `sha256 ${digest('sha256', file.subarray(MiB))}` });
      expect(last.status).toBe(204);
      expect(last.headers.get('upload-offset')).toBe(String(file.length));

      // Whole bytes whose SHA-256 is not the declared one are dropped: the upload starts again.
      const other = csv(2 * MiB, 5);
      const bad = await openSession(other, { sha256: sha256(file) });
      expect((await patch(bad, 0, other.subarray(0, MiB))).status).toBe(204);
      const end = await patch(bad, MiB, other.subarray(MiB));
      expect(end.status).toBe(400);
      expect(await end.json()).toMatchObject({ code: 'invalid_parameter', parameter: 'sha256' });
      expect((await head(bad)).offset).toBe(0);
      expect((await complete(bad)).status).toBe(409);
    });

    it('refuses what is not the protocol, with problems naming what is wrong', async () => {
      const file = csv(MiB, 6);
      const s = await openSession(file);
      const plain = await patch(s, 0, file, { 'Content-Type': 'application/octet-stream' });
      expect(plain.status).toBe(415);
      const old = await patch(s, 0, file, { 'Tus-Resumable': '0.2.2' });
      expect(old.status).toBe(412);
      expect(old.headers.get('tus-version')).toBe('1.0.0');
      const noOffset = await fetch(urlOf(s), { method: 'PATCH', headers: { 'Content-Type': 'application/offset+octet-stream' }, body: file });
      expect(await noOffset.json()).toMatchObject({ code: 'invalid_parameter', parameter: 'Upload-Offset' });
      const ahead = await patch(s, 10, file.subarray(10));
      expect(ahead.status).toBe(409);
      expect(await ahead.json()).toMatchObject({ code: 'upload_offset_mismatch', offset: 0 });
      const tooMuch = await patch(s, 0, Buffer.concat([file, Buffer.from('x\n')]));
      expect(tooMuch.status).toBe(413);
      const forged = urlOf(s).replace(/signature=[^&]+/, `signature=${'A'.repeat(43)}`);
      expect((await fetch(forged, { method: 'HEAD' })).status).toBe(403);
      expect(
        (await fetch(forged, { method: 'PATCH', headers: { 'Upload-Offset': '0', 'Content-Type': 'application/offset+octet-stream' }, body: file })).status,
      ).toBe(403);
      expect((await head(s)).offset).toBe(0);
      // Not yet complete: upload-complete names what is missing.
      expect((await patch(s, 0, file.subarray(0, 1000))).status).toBe(204);
      const early = await complete(s);
      expect(early.status).toBe(409);
      expect(((await early.json()) as { detail: string }).detail).toContain(`1000 of ${file.length}`);
      // A single PUT of the whole file still works on the same URL.
      expect((await fetch(urlOf(s), { method: 'PUT', body: file })).status).toBe(204);
      expect((await head(s)).offset).toBe(file.length);
      expect((await complete(s)).status).toBe(202);
    });

    it('removes the bytes and S3 parts of a session terminated (DELETE) or expired', async () => {
      const file = csv(10 * MiB, 7);
      const ended = await openSession(file);
      const expired = await openSession(file);
      /** The session's folder (src/storage/blob-store.ts jobPrefix). */
      const folder = (s: Session) => {
        const { g } = JSON.parse(Buffer.from(s.uploadId.split('.')[0], 'base64url').toString()) as { g: string };
        return `jobs/${app.tenantId}/${createHash('sha256').update(s.documentId).digest('hex')}.${g}/`;
      };
      const blobsOf = async (s: Session) => (await storedBlobs()).filter((k) => k.includes(folder(s)));
      for (const s of [ended, expired]) expect((await patch(s, 0, file.subarray(0, 9 * MiB))).status).toBe(204);
      if (s3) expect(await openMultipartUploads()).toHaveLength(2);
      for (const s of [ended, expired]) expect((await blobsOf(s)).length).toBeGreaterThan(0);

      const del = await fetch(urlOf(ended), { method: 'DELETE', headers: { 'Tus-Resumable': '1.0.0' } });
      expect(del.status).toBe(204);
      expect((await head(ended)).status).toBe(410);
      expect(await blobsOf(ended)).toEqual([]);
      if (s3) expect(await openMultipartUploads()).toHaveLength(1);

      await n.node.retention.sweep(new Date(Date.parse(expired.expiresAt) + 60_000));
      expect((await head(expired)).status).toBe(410);
      expect(await blobsOf(expired)).toEqual([]);
      expect(await openMultipartUploads()).toEqual([]);
    });
  });
}
