// The S3 store's local copy of an object for a parse is the object stored, whole, or nothing:
// a read answered short (a prefix with a length to match, or a body cut off) leaves no
// truncated file behind for a parser to take as a damaged document.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { S3BlobStore } from '../../src/storage/s3-blob-store.js';
import { IncompleteCopyError } from '../../src/storage/blob-store.js';

const STORED = 4 * 1024 * 1024;

/** How the server answers a GetObject of the STORED bytes. */
let answer: (res: http.ServerResponse) => void;

describe('S3 store: the local copy of an object', () => {
  let server: http.Server;
  let store: S3BlobStore;
  let tmp: string;
  const previousTmp = process.env.TMPDIR;

  beforeAll(async () => {
    server = http.createServer((_req, res) => answer(res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    store = new S3BlobStore({ endpoint, region: 'us-east-1', bucket: 'b', prefix: '', accessKeyId: 'k', secretAccessKey: 's', forcePathStyle: true });
  });
  afterAll(async () => {
    store?.close();
    await new Promise((resolve) => server?.close(resolve));
  });
  // The copies' folders are made under os.tmpdir(): a folder of this test's own, to see what is left.
  beforeEach(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'dp-s3-copy-'));
    process.env.TMPDIR = tmp;
  });
  afterEach(async () => {
    process.env.TMPDIR = previousTmp;
    if (previousTmp === undefined) delete process.env.TMPDIR;
    await fs.rm(tmp, { recursive: true, force: true });
  });

  it('a read answering a prefix of the object, with a Content-Length to match, fails and leaves no copy', async () => {
    answer = (res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(STORED - 1024 * 1024) });
      res.end(Buffer.alloc(STORED - 1024 * 1024, 7));
    };
    const copy = store.localPath('jobs/x/upload', { bytes: STORED });
    await expect(copy).rejects.toBeInstanceOf(IncompleteCopyError);
    await expect(copy).rejects.toThrow(`has ${STORED - 1024 * 1024} bytes, not the ${STORED} stored`);
    expect(await fs.readdir(tmp)).toEqual([]);
  });

  it('a body cut off before its Content-Length fails and leaves no copy', async () => {
    answer = (res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(STORED) });
      res.write(Buffer.alloc(1024 * 1024, 7), () => res.socket?.destroy());
    };
    await expect(store.localPath('jobs/x/upload', { bytes: STORED })).rejects.toThrow();
    expect(await fs.readdir(tmp)).toEqual([]);
  });

  it('the whole object is copied, and its copy removed on release', async () => {
    answer = (res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(STORED) });
      res.end(Buffer.alloc(STORED, 7));
    };
    const copy = await store.localPath('jobs/x/upload', { bytes: STORED });
    expect((await fs.stat(copy.path)).size).toBe(STORED);
    await copy.release();
    expect(await fs.readdir(tmp)).toEqual([]);
  });
});
