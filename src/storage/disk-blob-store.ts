import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { BlobTooLargeError, StagedOffsetError, type AppendOptions, type AppendResult, type BlobStore, type WriteResult } from './blob-store.js';
import { slabs } from '../http/slab-pool.js';

// Blobs are tenants' documents and results: readable by the service's own user only.
const FILE_MODE = 0o600;
const DIR_MODE = 0o700;
/** A staged upload is a file beside its final key, renamed to it when finished. */
const STAGING_SUFFIX = '.staging';
const WRITE_BATCH = 1024 * 1024;
const SYNC_EVERY = 4 * 1024 * 1024;

/** Folders remembered as made; past this many the memory starts again (a miss costs one mkdir). */
const KNOWN_FOLDERS_MAX = 10_000;

export class DiskBlobStore implements BlobStore {
  private rootReady: Promise<void> | null = null;
  /**
   * Folders this store made or found, so a job's second blob (its artifact) and a new job's
   * folder under a known parent cost one mkdir, not a walk up the tree. Forgotten when
   * anything under the root is deleted.
   */
  private readonly knownFolders = new Set<string>();
  /** BatchedWrites copies lent chunks into its own slabs. */
  readonly takesLentChunks = true;

  constructor(private readonly root: string) {}

  /** Creates the root folder once, or tightens one an earlier version made with the default mode. */
  private ensureRoot(): Promise<void> {
    this.rootReady ??= (async () => {
      await fs.mkdir(this.root, { recursive: true, mode: DIR_MODE });
      await fs.chmod(this.root, DIR_MODE);
    })().catch((err) => {
      this.rootReady = null;
      throw err;
    });
    return this.rootReady;
  }

  private resolve(key: string): string {
    const full = path.resolve(this.root, key);
    if (!full.startsWith(path.resolve(this.root) + path.sep)) throw new Error(`blob key escapes the store: ${key}`);
    return full;
  }

  /**
   * Makes `dir` (and missing parents) unless it is known to exist. True when this call made
   * `dir` itself: nothing is in it but what this call's caller puts there.
   */
  private async ensureFolder(dir: string): Promise<boolean> {
    if (this.knownFolders.has(dir)) return false;
    await this.ensureRoot();
    // The levels below the deepest folder known to exist, made top-down: a new job under a
    // known tenant costs two calls, where a recursive mkdir first fails on the deepest level.
    const root = path.resolve(this.root);
    const levels: string[] = [];
    for (let d = dir; d.startsWith(root + path.sep) && !this.knownFolders.has(d); d = path.dirname(d)) levels.push(d);
    if (this.knownFolders.size + levels.length > KNOWN_FOLDERS_MAX) this.knownFolders.clear();
    let made = false;
    for (const level of levels.reverse()) {
      try {
        await fs.mkdir(level, { mode: DIR_MODE });
        made = level === dir;
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') {
          // A parent removed behind the memory's back: made again, whole (not counted as made
          // here: a rare path, and the partial-and-rename write is right in any folder).
          this.knownFolders.clear();
          await fs.mkdir(dir, { recursive: true, mode: DIR_MODE });
          break;
        }
        if (code !== 'EEXIST') throw err;
      }
      this.knownFolders.add(level);
    }
    this.knownFolders.add(dir);
    return made;
  }

  /** Runs `op` in `dir`; if the folder was removed behind the memory's back, makes it and tries once more. */
  private async inFolder<T>(dir: string, op: () => Promise<T>): Promise<T> {
    try {
      return await op();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || !this.knownFolders.delete(dir)) throw err;
      await this.ensureFolder(dir);
      return op();
    }
  }

  async write(key: string, source: AsyncIterable<Buffer>, opts: { maxBytes?: number; lent?: boolean } = {}): Promise<WriteResult> {
    const final = this.resolve(key);
    const dir = path.dirname(final);
    // In a folder this call just made (a new job's), the key is known to no one but the caller
    // until it records it: written there directly, and removed if the write fails. Elsewhere
    // (a folder that holds other blobs) beside the key and renamed to it when whole, so a
    // reader of the key never sees it partial.
    const fresh = await this.ensureFolder(dir);
    const target = fresh ? final : `${final}.partial-${randomBytes(6).toString('hex')}`;
    const hash = createHash('sha256');
    let bytes = 0;
    // Open before reading so a failure can never race the file's creation; 'wx': never over a
    // file that is there.
    const handle = await this.inFolder(dir, () => fs.open(target, 'wx', FILE_MODE));
    try {
      // Counted, hashed and held to the limit on the way to disk, written in batches straight
      // to the handle: a stream pipeline cost a small upload more than its bytes (an abort
      // signal, a write stream and the errors it makes on close).
      const out = new BatchedWrites(handle, 0, opts.lent);
      try {
        for await (const chunk of source) {
          bytes += chunk.length;
          if (opts.maxBytes !== undefined && bytes > opts.maxBytes) throw new BlobTooLargeError(opts.maxBytes);
          hash.update(chunk);
          await out.add(chunk);
        }
        await out.flush();
      } finally {
        await out.idle();
        await handle.close();
      }
      if (target !== final) await fs.rename(target, final);
      return { bytes, sha256: hash.digest('hex') };
    } catch (err) {
      await fs.rm(target, { force: true });
      throw err;
    }
  }

  async putFile(key: string, localPath: string, opts: { writtenPrivate?: number } = {}): Promise<number> {
    const final = this.resolve(key);
    await this.ensureFolder(path.dirname(final));
    try {
      await this.inFolder(path.dirname(final), () => fs.rename(localPath, final));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
      // Another filesystem: copied beside the key, then renamed, so a copy cut short is never under it.
      const partial = `${final}.partial-${randomBytes(6).toString('hex')}`;
      try {
        await fs.copyFile(localPath, partial);
        await fs.rename(partial, final);
      } catch (copyErr) {
        await fs.rm(partial, { force: true });
        throw copyErr;
      }
      await fs.rm(localPath, { force: true });
    }
    if (opts.writtenPrivate !== undefined) return opts.writtenPrivate;
    // The file was made elsewhere (a worker's scratch folder), with that writer's mode.
    await fs.chmod(final, FILE_MODE);
    return (await fs.stat(final)).size;
  }

  async read(key: string) {
    const file = this.resolve(key);
    try {
      const st = await fs.stat(file);
      return { stream: createReadStream(file, { highWaterMark: 256 * 1024 }), size: st.size };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  /**
   * The blob's own file, not checked for: its reader opens it anyway, and fails there when it
   * is missing (the parse task says so: thread.ts).
   */
  async localPath(key: string) {
    return { path: this.resolve(key), release: async () => {} };
  }

  /** The file of `key`, which a writer on this machine makes in place (see BlobStore.fileFor). */
  fileFor(key: string): string {
    return this.resolve(key);
  }

  async delete(key: string): Promise<void> {
    await fs.rm(this.resolve(key), { force: true });
  }

  async deletePrefix(prefix: string): Promise<void> {
    this.knownFolders.clear(); // the prefix and emptied parents are gone
    await fs.rm(this.resolve(prefix), { recursive: true, force: true });
    // Remove now-empty parent folders up to the root so the tree does not grow forever.
    let dir = path.dirname(this.resolve(prefix));
    const root = path.resolve(this.root);
    while (dir.startsWith(root + path.sep)) {
      try {
        await fs.rmdir(dir);
      } catch {
        break;
      }
      dir = path.dirname(dir);
    }
  }

  async ping(): Promise<void> {
    await this.ensureRoot();
    await fs.access(this.root, fs.constants.W_OK);
  }

  async stagedSize(key: string): Promise<number> {
    try {
      return (await fs.stat(this.resolve(key) + STAGING_SUFFIX)).size;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw err;
    }
  }

  /**
   * Writes what source gives at the end of the staging file, so what was taken from it is on
   * disk when it fails; synced before the new offset is answered. A dropped append is cut
   * back to where it started.
   */
  async appendStaged(key: string, offset: number, source: AsyncIterable<Buffer>, opts: AppendOptions): Promise<AppendResult> {
    const file = this.resolve(key) + STAGING_SUFFIX;
    await this.ensureRoot();
    await fs.mkdir(path.dirname(file), { recursive: true, mode: DIR_MODE });
    const handle = await fs.open(file, fs.constants.O_RDWR | fs.constants.O_CREAT, FILE_MODE);
    try {
      const staged = (await handle.stat()).size;
      if (staged !== offset) throw new StagedOffsetError(staged);
      // The disk writes while the body still arrives: a sync in the background every
      // SYNC_EVERY bytes, so the one before answering has little left to flush.
      let unsynced = 0;
      let syncing: Promise<void> | null = null;
      const out = new BatchedWrites(handle, offset, opts.lent, (written) => {
        unsynced += written;
        if (unsynced >= SYNC_EVERY && !syncing) {
          unsynced = 0;
          syncing = handle.datasync().finally(() => (syncing = null));
          syncing.catch(() => {}); // its error comes back from the last datasync below
        }
      });
      let position = offset;
      let failure: unknown = null;
      try {
        for await (const chunk of source) await out.add(chunk);
        opts.beforeCommit?.();
        await out.flush();
        position = out.position;
      } catch (err) {
        failure = err;
        await out.idle();
        // What was taken from source is kept, or nothing of this append.
        if (opts.keepOnFailure(err)) {
          await out.flush();
          position = out.position;
        }
      }
      await (syncing as Promise<void> | null)?.catch(() => {});
      if (position !== (await handle.stat()).size) await handle.truncate(position);
      await handle.datasync();
      return { offset: position, failure };
    } finally {
      await handle.close();
    }
  }

  async finishStaged(key: string): Promise<void> {
    await fs.rename(this.resolve(key) + STAGING_SUFFIX, this.resolve(key));
  }

  async discardStaged(key: string): Promise<void> {
    await fs.rm(this.resolve(key) + STAGING_SUFFIX, { force: true });
  }
}

/**
 * Chunks written to a file from a position in batches of WRITE_BATCH: one write per network
 * chunk (often 64 KiB) would cost a thread-pool round trip each. One batch is written while
 * the next fills, so the body keeps arriving (and being hashed) while the disk writes.
 * Chunks the writer may keep go out as they are (writev), never copied into one buffer
 * first. Lent chunks (valid only until the caller's next add) are copied, before add
 * returns, into a slab this writer takes from the pool; the slab goes back to the pool once
 * the write of it has finished, and never while a write of it may be in flight.
 */
class BatchedWrites {
  private batch: Buffer[] = [];
  private batchBytes = 0;
  /** The slab lent chunks are being copied into, and the one being written (lent only). */
  private slab: Buffer | null = null;
  private slabUsed = 0;
  /** The batch being written, if any; its error comes back from the next add or flush. */
  private inflight: Promise<void> | null = null;
  /** A write that failed: nothing more is written after it, so no later bytes land at its place. */
  private failed: unknown = null;

  constructor(
    private readonly handle: fs.FileHandle,
    /** Where the next batch goes: the end of what is written (and, once flushed, of what was added). */
    public position: number,
    /** Chunks are lent: copied into slabs, not kept. */
    private readonly lent = false,
    private readonly written?: (bytes: number) => void,
  ) {}

  async add(chunk: Buffer): Promise<void> {
    if (this.lent) return this.addLent(chunk);
    this.batch.push(chunk);
    this.batchBytes += chunk.length;
    if (this.batchBytes < WRITE_BATCH) return;
    await this.settle();
    this.send(null);
  }

  /** Copies chunk into slabs; each slab that fills is written while the next one fills. */
  private async addLent(chunk: Buffer): Promise<void> {
    let from = 0;
    while (from < chunk.length) {
      this.slab ??= slabs.take();
      const n = chunk.copy(this.slab, this.slabUsed, from);
      this.slabUsed += n;
      from += n;
      if (this.slabUsed < this.slab.length) continue;
      // The slab in flight must be written (and given back) before this one goes out.
      await this.settle();
      this.takeSlab();
      this.send(this.slab);
      this.slab = null;
      this.slabUsed = 0;
    }
  }

  /** The filled part of the slab becomes the batch to write (the slab itself stays set). */
  private takeSlab(): void {
    if (!this.slab || !this.slabUsed) return;
    this.batch = [this.slab.subarray(0, this.slabUsed)];
    this.batchBytes = this.slabUsed;
  }

  /** Starts writing the batch; `slab`, the batch's memory, goes back to the pool once written. */
  private send(slab: Buffer | null): void {
    this.inflight = this.writeBatch().then(() => {
      if (slab) slabs.give(slab);
    });
    this.inflight.catch(() => {}); // awaited by settle(); not an unhandled rejection meanwhile
  }

  /** Writes what waits, and waits for it (nothing to do when nothing does). */
  async flush(): Promise<void> {
    await this.settle();
    if (this.lent && this.slab) {
      this.takeSlab();
      const slab = this.slab;
      this.slab = null;
      this.slabUsed = 0;
      await this.writeBatch();
      slabs.give(slab);
      return;
    }
    await this.writeBatch();
  }

  /** Waits for the batch being written, whatever its outcome: before the file is closed or cut back. */
  async idle(): Promise<void> {
    await this.inflight?.catch(() => {});
  }

  private async settle(): Promise<void> {
    const p = this.inflight;
    this.inflight = null;
    await p;
  }

  private async writeBatch(): Promise<void> {
    if (this.failed) throw this.failed;
    if (!this.batchBytes) return;
    let chunks = this.batch;
    const bytes = this.batchBytes;
    this.batch = [];
    this.batchBytes = 0;
    let done = 0;
    try {
      while (done < bytes) {
        const n = (await this.handle.writev(chunks, this.position + done)).bytesWritten;
        done += n;
        if (done < bytes) chunks = rest(chunks, n);
      }
    } catch (err) {
      this.failed = err;
      throw err;
    }
    this.position += bytes;
    this.written?.(bytes);
  }
}

/** The chunks past the first n bytes of them (after a short write). */
function rest(chunks: Buffer[], n: number): Buffer[] {
  let i = 0;
  while (n >= chunks[i].length) n -= chunks[i++].length;
  return [chunks[i].subarray(n), ...chunks.slice(i + 1)];
}
