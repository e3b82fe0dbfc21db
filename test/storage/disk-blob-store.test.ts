// The disk blob store's putFile: a worker's finished artifact is moved into the store, by a
// rename on the same filesystem and by a copy from another one (EXDEV), ending 0600 either way
// with nothing left at its source. The store remembers the folders it made; one removed
// behind its back (by hand, another process) is made again on the next write.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import { DiskBlobStore } from '../../src/storage/disk-blob-store.js';

const dirs: string[] = [];
async function tempDir(parent = tmpdir()): Promise<string> {
  const d = await mkdtemp(path.join(parent, 'docparse-blobs-'));
  dirs.push(d);
  return d;
}
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

// /dev/shm is a tmpfs: another filesystem than the temp dir's on most Linux machines.
const SHM = '/dev/shm';
const otherFilesystem = existsSync(SHM) && (await stat(SHM)).dev !== (await stat(tmpdir())).dev;

async function moveInto(store: DiskBlobStore, source: string, body: string) {
  await writeFile(source, body, { mode: 0o644 });
  const bytes = await store.putFile('jobs/t/d/g/artifact.json', source);
  return { bytes, source };
}

describe('DiskBlobStore.putFile', () => {
  it('moves a file from the same filesystem into the store', async () => {
    const root = path.join(await tempDir(), 'blobs');
    const store = new DiskBlobStore(root);
    const { bytes, source } = await moveInto(store, path.join(await tempDir(), 'artifact.json'), '{"same":"fs"}');
    expect(bytes).toBe(13);
    expect(existsSync(source)).toBe(false);
    const stored = path.join(root, 'jobs/t/d/g/artifact.json');
    expect(await readFile(stored, 'utf8')).toBe('{"same":"fs"}');
    expect(((await stat(stored)).mode & 0o777).toString(8)).toBe('600');
  });

  it.skipIf(!otherFilesystem)('copies a file from another filesystem (EXDEV) and removes the source', async () => {
    const root = path.join(await tempDir(), 'blobs');
    const store = new DiskBlobStore(root);
    const body = JSON.stringify({ other: 'fs', pad: 'x'.repeat(100_000) });
    const { bytes, source } = await moveInto(store, path.join(await tempDir(SHM), 'artifact.json'), body);
    expect(bytes).toBe(body.length);
    expect(existsSync(source)).toBe(false);
    const stored = path.join(root, 'jobs/t/d/g/artifact.json');
    expect(await readFile(stored, 'utf8')).toBe(body);
    expect(((await stat(stored)).mode & 0o777).toString(8)).toBe('600');
  });
});

describe('DiskBlobStore folders', () => {
  const put = (store: DiskBlobStore, key: string, body: string) => store.write(key, [Buffer.from(body)]);

  it('writes again into a job folder (and a tenant folder) removed behind its back', async () => {
    const root = path.join(await tempDir(), 'blobs');
    const store = new DiskBlobStore(root);
    await put(store, 'jobs/t/d/g1/upload', 'first');
    await rm(path.join(root, 'jobs/t/d'), { recursive: true });
    await put(store, 'jobs/t/d/g1/upload', 'again');
    expect(await readFile(path.join(root, 'jobs/t/d/g1/upload'), 'utf8')).toBe('again');
    await rm(path.join(root, 'jobs/t'), { recursive: true });
    await put(store, 'jobs/t/d/g2/upload', 'new job');
    expect(await readFile(path.join(root, 'jobs/t/d/g2/upload'), 'utf8')).toBe('new job');
    const source = path.join(await tempDir(), 'artifact.json');
    await writeFile(source, '{}', { mode: 0o600 });
    await rm(path.join(root, 'jobs/t/d/g2'), { recursive: true });
    expect(await store.putFile('jobs/t/d/g2/artifact.json', source, { writtenPrivate: 2 })).toBe(2);
    expect(await readdir(path.join(root, 'jobs/t/d/g2'))).toEqual(['artifact.json']);
  });

  it('makes every folder it creates private to the service (0700)', async () => {
    const root = path.join(await tempDir(), 'blobs');
    const store = new DiskBlobStore(root);
    await put(store, 'jobs/tenant/doc/gen/upload', 'x');
    for (const folder of ['', 'jobs', 'jobs/tenant', 'jobs/tenant/doc', 'jobs/tenant/doc/gen']) {
      expect(((await stat(path.join(root, folder))).mode & 0o777).toString(8), folder || 'the root').toBe('700');
    }
  });
});

describe('DiskBlobStore staged appends (one batch written while the next fills)', () => {
  // Chunks of uneven sizes with distinct bytes, several MiB in all: many batches, each written
  // while the next one fills, so bytes out of order or lost show in the file.
  const chunks = Array.from({ length: 40 }, (_, i) => Buffer.alloc(100_000 + i * 7_919, i + 1));
  const whole = Buffer.concat(chunks);
  const failing = async function* (upTo: number) {
    for (const c of chunks.slice(0, upTo)) yield c;
    throw new Error('client gone');
  };
  const staged = (root: string) => readFile(path.join(root, 'jobs/t/d/g/upload-resumable.staging'));

  it('appends in order after what is staged, and a whole blob written the same way is the same bytes', async () => {
    const root = path.join(await tempDir(), 'blobs');
    const store = new DiskBlobStore(root);
    const key = 'jobs/t/d/g/upload-resumable';
    const first = await store.appendStaged(key, 0, chunks.slice(0, 25), { totalBytes: whole.length, keepOnFailure: () => true });
    const second = await store.appendStaged(key, first.offset, chunks.slice(25), { totalBytes: whole.length, keepOnFailure: () => true });
    expect([first.failure, second.failure]).toEqual([null, null]);
    expect(second.offset).toBe(whole.length);
    expect((await staged(root)).equals(whole)).toBe(true);
    const written = await store.write('jobs/t/d/g/upload', chunks);
    expect(written.bytes).toBe(whole.length);
    expect((await readFile(path.join(root, 'jobs/t/d/g/upload'))).equals(whole)).toBe(true);
  });

  it('keeps exactly what a failing source gave when asked to, and nothing of it otherwise', async () => {
    const root = path.join(await tempDir(), 'blobs');
    const store = new DiskBlobStore(root);
    const key = 'jobs/t/d/g/upload-resumable';
    const kept = await store.appendStaged(key, 0, failing(30), { totalBytes: whole.length, keepOnFailure: () => true });
    const taken = Buffer.concat(chunks.slice(0, 30));
    expect((kept.failure as Error).message).toBe('client gone');
    expect(kept.offset).toBe(taken.length);
    expect((await staged(root)).equals(taken)).toBe(true);
    const dropped = await store.appendStaged(key, kept.offset, failing(40), { totalBytes: whole.length, keepOnFailure: () => false });
    expect(dropped.offset).toBe(taken.length);
    const refused = await store.appendStaged(key, kept.offset, chunks.slice(30), {
      totalBytes: whole.length,
      keepOnFailure: () => false,
      beforeCommit: () => {
        throw new Error('checksum mismatch');
      },
    });
    expect(refused.offset).toBe(taken.length);
    expect((await staged(root)).equals(taken)).toBe(true);
  });
});

describe('DiskBlobStore.write: nothing partial under a key', () => {
  // A new job's upload is written at its key in the folder the write makes (no rename); a blob
  // beside others goes through a partial file. Either way a failed write leaves nothing.
  const failing = async function* () {
    yield Buffer.from('half a document');
    throw new Error('client gone');
  };
  const big = [Buffer.alloc(40_000, 'a'), Buffer.alloc(40_000, 'b')];

  it("leaves nothing when the source fails or exceeds maxBytes, in a new job's folder or beside another blob", async () => {
    const root = path.join(await tempDir(), 'blobs');
    const store = new DiskBlobStore(root);
    const folder = path.join(root, 'jobs/t/d.g1');
    await expect(store.write('jobs/t/d.g1/upload', failing())).rejects.toThrow('client gone');
    expect(await store.read('jobs/t/d.g1/upload')).toBeNull();
    expect(await readdir(folder)).toEqual([]);
    await expect(store.write('jobs/t/d.g2/upload', big, { maxBytes: 50_000 })).rejects.toMatchObject({ name: 'BlobTooLargeError' });
    expect(await readdir(path.join(root, 'jobs/t/d.g2'))).toEqual([]);

    await store.write('jobs/t/d.g1/upload', [Buffer.from('kept')]);
    await expect(store.write('jobs/t/d.g1/part', failing())).rejects.toThrow('client gone');
    await expect(store.write('jobs/t/d.g1/part', big, { maxBytes: 50_000 })).rejects.toMatchObject({ name: 'BlobTooLargeError' });
    expect(await readdir(folder)).toEqual(['upload']);
    expect(await readFile(path.join(folder, 'upload'), 'utf8')).toBe('kept');
  });

  it('never shows a key beside other blobs before it is whole; a new upload is whole and 0600 once written', async () => {
    const root = path.join(await tempDir(), 'blobs');
    const store = new DiskBlobStore(root);
    const written = await store.write('jobs/t/d.g/upload', big);
    expect(written.bytes).toBe(80_000);
    const upload = path.join(root, 'jobs/t/d.g/upload');
    expect((await readFile(upload)).equals(Buffer.concat(big))).toBe(true);
    expect(((await stat(upload)).mode & 0o777).toString(8)).toBe('600');

    // Another key's source stops half-way until released: meanwhile the key is not there. Written
    // by the store that made the folder, and by one started since (a restarted node).
    for (const [writer, key] of [
      [store, 'jobs/t/d.g/other'],
      [new DiskBlobStore(root), 'jobs/t/d.g/again'],
    ] as const) {
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      let halfway!: () => void;
      const reached = new Promise<void>((r) => (halfway = r));
      const slow = async function* () {
        yield Buffer.alloc(2 * 1024 * 1024, 'x'); // over one batch: written to disk at once
        halfway();
        await gate;
        yield Buffer.from('end');
      };
      const writing = writer.write(key, slow());
      await reached;
      expect(await store.read(key), key).toBeNull();
      release();
      expect((await writing).bytes).toBe(2 * 1024 * 1024 + 3);
      expect((await stat(path.join(root, key))).size).toBe(2 * 1024 * 1024 + 3);
    }
    expect((await readdir(path.join(root, 'jobs/t/d.g'))).sort()).toEqual(['again', 'other', 'upload']);
  });
});
