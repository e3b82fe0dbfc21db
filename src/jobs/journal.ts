// An append-only journal of keyed values: one file of JSON lines, `{"k":key,"r":value}` (value
// null: the key was removed); replaying the lines in order gives the current state.
//
// Group commit: lines appended while a write is in flight go out together in the next single
// write, and every write finished while an fsync is in flight shares the next fsync; each
// caller waits only for the durability it asked for. Several changes of one key waiting for
// the same write become one line (the last value), as replay would keep only that one anyway.
//
// Compaction: once the file outgrows its bound, the live state is written to a new file
// (fsynced), renamed over the journal and the directory fsynced, so a crash leaves either
// the old journal or the new one. Loading skips a torn last line (a write cut short) and any
// line that does not parse, and cuts the torn tail off before appending again.

import { constants, writeSync } from 'node:fs';
import { open, readFile, rename, rm, type FileHandle } from 'node:fs/promises';
import path from 'node:path';

import type { JobLogger } from './support.js';

export type Durability =
  /** Resolves once the line is on disk (fsynced): survives a power cut. */
  | 'synced'
  /** Resolves once the line is in the file: survives the process, not a power cut. */
  | 'written'
  /** Resolves at once; the line goes out with the next write, or at close. */
  | 'deferred';

export interface JournalOptions<T> {
  file: string;
  /** File mode of the journal (and of its compacted copy). */
  mode: number;
  /** fsync at all (false: 'synced' means 'written'; for tests that need no power-cut safety). */
  fsync: boolean;
  /** One value as JSON; must not throw. */
  encode(value: T): string;
  /** The live state, for compaction: every key and its current value. */
  snapshot(): Iterable<[string, T]>;
  /** Below this size the journal is never compacted (bytes, default 32 MiB). */
  compactAtBytes?: number;
  /** Flushes a file's data to disk; the seam through which tests count fsyncs. */
  syncFile?: (fh: FileHandle) => Promise<void>;
  log: JobLogger;
}

/** The journal's own reading of its file: lines it had to skip. */
export interface JournalLoad {
  /** Lines skipped: a torn tail, or a line that is not a journal entry. */
  damagedLines: number;
  /** Past the compaction bound already: worth compacting before use. */
  oversized: boolean;
}

const DEFAULT_COMPACT_AT_BYTES = 32 * 1024 * 1024;
/** The journal is compacted when it is this many times larger than its last compacted state. */
const GROWTH_FACTOR = 4;
/** Compaction writes in pieces of about this size, so appends are not held up by one huge string. */
const COMPACTION_CHUNK_CHARS = 1024 * 1024;
/** Batches up to this size are written without the thread pool (see writeAt). */
const SYNC_WRITE_MAX_BYTES = 64 * 1024;
// Written at an explicit offset, never O_APPEND: after a failed write the tail is cut back.
const WRITE_FLAGS = constants.O_WRONLY | constants.O_CREAT;

interface Deferred {
  promise: Promise<void>;
  resolve(): void;
  reject(err: unknown): void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => undefined); // a failure nobody waits for is not an unhandled rejection
  return { promise, resolve, reject };
}

/** The lines waiting for one write, and who waits for it. */
interface Batch<T> {
  lines: Map<string, T | null>;
  /** Someone waits for this batch (a 'deferred' line alone does not start a write). */
  due: boolean;
  written: Deferred | null;
  synced: Deferred | null;
}

const newBatch = <T>(): Batch<T> => ({ lines: new Map(), due: false, written: null, synced: null });

export class Journal<T> {
  private open: Batch<T> = newBatch();
  /** The writer's run: set while it writes or compacts, so there is never a second one. */
  private draining: Promise<void> | null = null;
  /** Written batches waiting for the next fsync. */
  private unsynced: Deferred[] = [];
  private syncing: Promise<void> | null = null;
  private compaction: Deferred | null = null;
  /** Size of the last compacted state: the journal is compacted again at GROWTH_FACTOR times it. */
  private baseSize: number;
  private broken: Error | null = null;
  private closed = false;
  private readonly syncFile: (fh: FileHandle) => Promise<void>;
  private readonly compactAtBytes: number;

  private constructor(
    private readonly opts: JournalOptions<T>,
    private fh: FileHandle,
    /** Bytes of good lines in the file: the next write goes there. */
    private size: number,
  ) {
    this.baseSize = size;
    this.syncFile = opts.syncFile ?? ((h) => h.datasync());
    this.compactAtBytes = opts.compactAtBytes ?? DEFAULT_COMPACT_AT_BYTES;
  }

  /** Reads the journal (creating it if needed), handing each entry to apply in file order. */
  static async open<T>(opts: JournalOptions<T>, apply: (key: string, value: unknown) => void): Promise<{ journal: Journal<T>; load: JournalLoad }> {
    let text: Buffer;
    try {
      text = await readFile(opts.file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      text = Buffer.alloc(0);
    }
    const { goodBytes, damagedLines } = replay(text, apply);
    const fh = await open(opts.file, WRITE_FLAGS, opts.mode);
    try {
      await fh.chmod(opts.mode);
      if (goodBytes < text.length) await fh.truncate(goodBytes); // the torn tail: appends must not follow it
      if (opts.fsync) await syncDir(path.dirname(opts.file)); // the file's own name, when it was just made
    } catch (err) {
      await fh.close();
      throw err;
    }
    return { journal: new Journal(opts, fh, goodBytes), load: { damagedLines, oversized: goodBytes > (opts.compactAtBytes ?? DEFAULT_COMPACT_AT_BYTES) } };
  }

  /** Records key's new value (null: removed), resolving when it is as durable as asked. */
  append(key: string, value: T | null, durability: Durability): Promise<void> {
    if (this.closed) return Promise.reject(new Error('journal is closed'));
    if (this.broken) return Promise.reject(this.broken);
    this.open.lines.set(key, value);
    return durability === 'deferred' ? Promise.resolve() : this.flush(durability);
  }

  /** Rewrites the journal as the live state now (also done by itself when it grows). */
  compact(): Promise<void> {
    if (this.closed) return Promise.reject(new Error('journal is closed'));
    const done = (this.compaction ??= deferred());
    this.startWriter();
    return done.promise;
  }

  /** Writes and fsyncs what is waiting, deferred lines included, and closes the file. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.flush('synced').catch((err) => this.opts.log.error({ file: this.opts.file, err: String(err) }, 'jobs: journal not flushed at close'));
    while (this.draining) await this.draining;
    while (this.syncing) await this.syncing;
    // 'written' lines too are on disk after a clean shutdown.
    if (this.opts.fsync) await this.syncFile(this.fh).catch(() => undefined);
    await this.fh.close();
  }

  /** Makes the waiting batch due: written in the writer's next round, fsynced if asked. */
  private flush(durability: Exclude<Durability, 'deferred'>): Promise<void> {
    const batch = this.open;
    if (batch.lines.size === 0) return Promise.resolve();
    batch.due = true;
    this.startWriter();
    if (durability === 'synced' && this.opts.fsync) return (batch.synced ??= deferred()).promise;
    return (batch.written ??= deferred()).promise;
  }

  private startWriter(): void {
    if (this.draining) return; // the running writer takes up the new batch when its write is done
    this.draining = this.drain();
  }

  private async drain(): Promise<void> {
    try {
      // One turn of the event loop: everything appended meanwhile goes out in the same write.
      await new Promise<void>((resolve) => setImmediate(resolve));
      while (this.open.due || this.compaction) {
        if (this.compaction) {
          const request = this.compaction;
          this.compaction = null;
          await this.rewrite().then(request.resolve, request.reject);
          continue;
        }
        const batch = this.open;
        this.open = newBatch();
        await this.write(batch);
        if (this.size > Math.max(this.compactAtBytes, GROWTH_FACTOR * this.baseSize)) this.compaction = deferred();
      }
    } finally {
      this.draining = null; // in the same tick as the loop's last check: no append can fall in between
    }
  }

  private async write(batch: Batch<T>): Promise<void> {
    let text = '';
    for (const [key, value] of batch.lines) text += this.line(key, value);
    const bytes = Buffer.from(text, 'utf8');
    try {
      await this.writeAt(this.fh, bytes, this.size);
      this.size += bytes.length;
    } catch (err) {
      batch.written?.reject(err);
      batch.synced?.reject(err);
      this.opts.log.error({ file: this.opts.file, err: String(err) }, 'jobs: journal write failed');
      // A partial line must not be followed by the next write's lines: cut it off.
      await this.fh.truncate(this.size).catch((cut: Error) => (this.broken = cut));
      return;
    }
    batch.written?.resolve();
    if (batch.synced) {
      this.unsynced.push(batch.synced);
      this.startSync();
    }
  }

  /** One fsync for every batch written before it starts; batches written meanwhile share the next. */
  private startSync(): void {
    if (this.syncing || this.unsynced.length === 0) return;
    const covered = this.unsynced;
    this.unsynced = [];
    this.syncing = this.syncFile(this.fh)
      .then(
        () => covered.forEach((d) => d.resolve()),
        (err) => covered.forEach((d) => d.reject(err)),
      )
      .finally(() => {
        this.syncing = null;
        this.startSync();
      });
  }

  /** Compaction: the live state into a new file, renamed over the journal. Runs as the writer. */
  private async rewrite(): Promise<void> {
    const entries = [...this.opts.snapshot()];
    const tmp = `${this.opts.file}.tmp`;
    const out = await open(tmp, WRITE_FLAGS | constants.O_TRUNC, this.opts.mode);
    let size = 0;
    try {
      await out.chmod(this.opts.mode);
      let chunk = '';
      for (const [key, value] of entries) {
        chunk += this.line(key, value);
        if (chunk.length < COMPACTION_CHUNK_CHARS) continue;
        size += await this.writeString(out, chunk, size);
        chunk = '';
      }
      size += await this.writeString(out, chunk, size);
      if (this.opts.fsync) await this.syncFile(out);
      await rename(tmp, this.opts.file);
    } catch (err) {
      await out.close().catch(() => undefined);
      await rm(tmp, { force: true });
      this.baseSize = this.size; // not again before the journal has grown as much once more
      this.opts.log.error({ file: this.opts.file, err: String(err) }, 'jobs: journal compaction failed');
      throw err;
    }
    if (this.opts.fsync) await syncDir(path.dirname(this.opts.file));
    const old = this.fh;
    this.fh = out;
    this.size = size;
    this.baseSize = size;
    // Everything written to the old file is in the new one, which is on disk.
    const covered = this.unsynced;
    this.unsynced = [];
    covered.forEach((d) => d.resolve());
    while (this.syncing) await this.syncing; // an fsync in flight on the old file ends before its handle is closed
    await old.close().catch(() => undefined);
  }

  private line(key: string, value: T | null): string {
    return `{"k":${JSON.stringify(key)},"r":${value === null ? 'null' : this.opts.encode(value)}}\n`;
  }

  private async writeString(fh: FileHandle, text: string, at: number): Promise<number> {
    const bytes = Buffer.from(text, 'utf8');
    await this.writeAt(fh, bytes, at);
    return bytes.length;
  }

  private async writeAt(fh: FileHandle, bytes: Buffer, at: number): Promise<void> {
    let done = 0;
    // A batch of a few records goes to the page cache in microseconds: written here rather
    // than through libuv's thread pool, whose round trip (a wake-up each way) cost more than
    // the write. Larger ones (compaction) keep the event loop free.
    if (bytes.length <= SYNC_WRITE_MAX_BYTES) {
      while (done < bytes.length) done += writeSync(fh.fd, bytes, done, bytes.length - done, at + done);
      return;
    }
    while (done < bytes.length) {
      const { bytesWritten } = await fh.write(bytes, done, bytes.length - done, at + done);
      done += bytesWritten;
    }
  }
}

/**
 * Hands every whole entry line to apply. Returns the length of the file up to the end of its
 * last whole line (a last line without its newline was cut short) and how many lines were skipped.
 */
function replay(text: Buffer, apply: (key: string, value: unknown) => void): { goodBytes: number; damagedLines: number } {
  let damagedLines = 0;
  let start = 0;
  for (let end = text.indexOf(10, start); end !== -1; start = end + 1, end = text.indexOf(10, start)) {
    if (end === start) continue;
    const entry = parseEntry(text.toString('utf8', start, end));
    if (entry) apply(entry.k, entry.r);
    else damagedLines++;
  }
  if (start < text.length) damagedLines++;
  return { goodBytes: start, damagedLines };
}

function parseEntry(line: string): { k: string; r: unknown } | null {
  try {
    const entry = JSON.parse(line) as { k?: unknown; r?: unknown } | null;
    if (entry === null || typeof entry !== 'object' || typeof entry.k !== 'string' || !('r' in entry)) return null;
    return { k: entry.k, r: entry.r };
  } catch {
    return null;
  }
}

/** Makes a rename or a new name in dir durable. Not supported on every platform: best effort. */
export async function syncDir(dir: string): Promise<void> {
  try {
    const dh = await open(dir, 'r');
    try {
      await dh.sync();
    } finally {
      await dh.close();
    }
  } catch {
    /* ignore */
  }
}
