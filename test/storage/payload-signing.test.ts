// How a node's uploads to its S3 bucket vouch for their bytes (payloadSigning in
// src/storage/s3-blob-store.ts): over HTTPS they go UNSIGNED-PAYLOAD, TLS checking every byte
// on its way; over plain HTTP each carries its SHA-256 in its signature, which the server
// checks (the tests' s3rver refuses a body that differs from it). Either way what is stored
// is what was sent. A node process of its own, since it must trust the test server's
// certificate as an operator's node would a private CA's (NODE_EXTRA_CA_CERTS).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { payloadSigning } from '../../src/storage/s3-blob-store.js';
import { spawnServe, type ChildNode } from '../helpers/http.js';
import { getToken } from '../helpers/node.js';
import { startS3, type TestS3 } from '../helpers/s3.js';
import { selfSignedCertificate, type TestCertificate } from '../helpers/tls.js';

const MiB = 1024 * 1024;
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('payload signing of uploads to S3', () => {
  it('signs over plain HTTP only: HTTPS endpoints, and AWS itself (no endpoint), go unsigned', () => {
    expect(payloadSigning('http://minio.internal:9000')).toBe('signed');
    expect(payloadSigning('https://minio.internal:9000')).toBe('unsigned');
    expect(payloadSigning('HTTPS://s3.eu-west-1.amazonaws.com')).toBe('unsigned');
    expect(payloadSigning(null)).toBe('unsigned');
  });

  let certificate: TestCertificate;
  beforeAll(async () => {
    certificate = await selfSignedCertificate();
  });
  afterAll(async () => {
    await certificate?.remove();
  });

  for (const scheme of ['https', 'http'] as const) {
    describe(`a node whose bucket is over ${scheme}`, () => {
      let s3: TestS3;
      let node: ChildNode;
      let dataDir: string;
      let token: string;
      /** x-amz-content-sha256 of every request that carried an object's bytes, and whether it was a part. */
      const uploads: { payloadHash: string | undefined; part: boolean }[] = [];

      beforeAll(async () => {
        s3 = await startS3('signing', scheme === 'https' ? { tls: certificate } : {});
        s3.beforeRequest = ({ method, query, headers }) => {
          if (method === 'PUT' && Number(headers['content-length'] ?? 0) > 0)
            uploads.push({ payloadHash: headers['x-amz-content-sha256'], part: query.has('partNumber') });
        };
        dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'dp-signing-'));
        node = await spawnServe({
          LOG_LEVEL: 'silent',
          DOCPARSE_DATA_DIR: dataDir,
          DOCPARSE_WORKER_THREADS: '1',
          DOCPARSE_SEED_DEMO: 'true',
          DOCPARSE_DEMO_CLIENT_ID: 'demo-client',
          DOCPARSE_DEMO_CLIENT_SECRET: 'demo-secret-0123456789',
          DOCPARSE_S3_ENDPOINT: s3.endpoint,
          DOCPARSE_S3_BUCKET: s3.bucket,
          DOCPARSE_S3_ACCESS_KEY_ID: s3.accessKeyId,
          DOCPARSE_S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
          DOCPARSE_S3_FORCE_PATH_STYLE: 'true',
          NODE_EXTRA_CA_CERTS: certificate.certPath,
        });
        token = await getToken(node.url, 'demo-client', 'demo-secret-0123456789');
      }, 120_000);
      afterAll(async () => {
        node?.kill();
        await node?.exited;
        await s3?.close();
        if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
      });

      const openSession = async (file: Buffer): Promise<string> => {
        const r = await fetch(`${node.url}/api/v1/documents/upload-request`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ fileName: 'bytes.bin', sizeBytes: file.length, sha256: sha256(file) }),
        });
        expect(r.status).toBe(201);
        return ((await r.json()) as { uploadUrl: string }).uploadUrl;
      };

      /** SHA-256 of every object in the bucket, read back with the SDK. */
      const storedHashes = async (): Promise<string[]> => {
        const client = new S3Client({
          endpoint: s3.endpoint,
          region: 'us-east-1',
          forcePathStyle: true,
          credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
          ...(scheme === 'https' ? { requestHandler: { httpsAgent: new https.Agent({ ca: certificate.cert }) } } : {}),
        });
        try {
          const page = await client.send(new ListObjectsV2Command({ Bucket: s3.bucket }));
          return await Promise.all(
            (page.Contents ?? []).map(async ({ Key }) => {
              const body = (await client.send(new GetObjectCommand({ Bucket: s3.bucket, Key }))).Body as Readable;
              const hash = createHash('sha256');
              for await (const chunk of body) hash.update(chunk as Buffer);
              return hash.digest('hex');
            }),
          );
        } finally {
          client.destroy();
        }
      };

      it(`stores a tus upload and a single PUT byte for byte, their bytes sent ${scheme === 'https' ? 'unsigned' : 'with their SHA-256 signed'}`, async () => {
        // More than one 8 MiB part each: parts, a tail beside the tus upload, the last part of the PUT.
        const tusFile = randomBytes(11 * MiB + 5);
        const putFile = randomBytes(9 * MiB + 3);

        const tusUrl = await openSession(tusFile);
        let offset = 0;
        for (const size of [6 * MiB, tusFile.length - 6 * MiB]) {
          const r = await fetch(tusUrl, {
            method: 'PATCH',
            headers: { 'tus-resumable': '1.0.0', 'upload-offset': String(offset), 'content-type': 'application/offset+octet-stream' },
            body: tusFile.subarray(offset, offset + size),
          });
          expect(r.status, await r.text()).toBe(204);
          offset += size;
          expect(r.headers.get('upload-offset')).toBe(String(offset));
        }
        const put = await fetch(await openSession(putFile), { method: 'PUT', headers: { 'content-type': 'application/octet-stream' }, body: putFile });
        expect(put.status, await put.text()).toBe(204);

        expect(await storedHashes()).toEqual(expect.arrayContaining([sha256(tusFile), sha256(putFile)]));
        expect(uploads.filter((u) => u.part).length).toBeGreaterThanOrEqual(3);
        const expected = scheme === 'https' ? 'UNSIGNED-PAYLOAD' : expect.stringMatching(/^[0-9a-f]{64}$/);
        for (const u of uploads) expect(u.payloadHash).toEqual(expected);
      });
    });
  }
});
