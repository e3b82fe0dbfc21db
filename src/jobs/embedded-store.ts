// In-process JobStore for the embedded deployment. Records live in a Map; every change is
// appended to one journal, `${dataDir}/jobs/journal.jsonl` (journal.ts: group commit,
// compaction), which is replayed on open, so a restart loses no accepted job. A data dir
// written by an earlier version (one file per job) is moved into the journal on open.
//
// Durability per change: a put, a job becoming queued and a finished job are fsynced before
// the call resolves (an upload answered 202, a result served); the steps between are written
// to the file without waiting for an fsync (a power cut may rewind a job to an earlier step,
// which recovery takes up again); materializing is not waited for at all: the next state
// follows within the same job run, and recovery treats 3 and 4 alike.

import { chmod, mkdir, type FileHandle } from 'node:fs/promises';
import path from 'node:path';

import { Journal, syncDir, type Durability } from './journal.js';
import { readLegacyJobFiles, removeLegacyJobFiles } from './legacy-job-files.js';
import { IllegalTransitionError, assertTransition, isTerminal, isUnfinished } from './transitions.js';
import { JobState, type JobRecord, type JobRef, type JobStateInt, type JobStore } from './types.js';
import { checkedPatch, cloneRecord, consoleLogger, deepFreeze, expiresAtMs, isExpired, recordFlaw, recordKey, type JobLogger } from './support.js';

export interface EmbeddedJobStoreOptions {
  dataDir: string;
  /** fsync the journal where a change must survive a power cut (default true). */
  fsync?: boolean;
  log?: JobLogger;
  /** Clock, for tests. */
  now?: () => number;
  /** Journal size below which it is never compacted (bytes; default journal.ts's). */
  compactAtBytes?: number;
  /** How the journal is flushed to disk (default fdatasync): the seam tests count fsyncs through. */
  syncFile?: (fh: FileHandle) => Promise<void>;
  /** Told of every record put or moved, in order (the job event feed: jobs/events.ts). */
  onChange?: (job: JobRecord) => void;
}

type TransitionPatch = Parameters<JobStore['transition']>[2];

// Records hold tenants' file names and custom metadata: the service's own user only.
const FILE_MODE = 0o600;
const DIR_MODE = 0o700;
/** The journal's name in `${dataDir}/jobs`. */
export const JOURNAL_FILE = 'journal.jsonl';

/** How durable a transition to `to` must be before it resolves (see the header). */
function durabilityOf(to: JobStateInt): Durability {
  if (to === JobState.Queued || isTerminal(to)) return 'synced';
  if (to === JobState.Materializing) return 'deferred';
  return 'written';
}

export class EmbeddedJobStore implements JobStore {
  private readonly records = new Map<string, JobRecord>();
  /** appId → record keys of unfinished jobs. */
  private readonly unfinishedByApp = new Map<string, Set<string>>();
  private readonly dir: string;
  private readonly log: JobLogger;
  private readonly now: () => number;
  private journal!: Journal<JobRecord>;
  private closed = false;

  private constructor(private readonly opts: EmbeddedJobStoreOptions) {
    this.dir = path.join(opts.dataDir, 'jobs');
    this.log = opts.log ?? consoleLogger;
    this.now = opts.now ?? Date.now;
  }

  /** Opens (creating if needed) `${dataDir}/jobs` and loads every stored record. */
  static async open(opts: EmbeddedJobStoreOptions): Promise<EmbeddedJobStore> {
    const store = new EmbeddedJobStore(opts);
    await store.load();
    return store;
  }

  private async load(): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: DIR_MODE });
    await chmod(this.dir, DIR_MODE); // also a folder made by an earlier version
    const fsync = this.opts.fsync ?? true;
    const { journal, load } = await Journal.open<JobRecord>(
      {
        file: path.join(this.dir, JOURNAL_FILE),
        mode: FILE_MODE,
        fsync,
        encode: (job) => this.encode(job),
        snapshot: () => this.records.entries(),
        compactAtBytes: this.opts.compactAtBytes,
        syncFile: this.opts.syncFile,
        log: this.log,
      },
      (key, value) => this.replay(key, value),
    );
    this.journal = journal;
    if (load.damagedLines > 0) this.log.warn({ dir: this.dir, lines: load.damagedLines }, 'jobs: journal lines skipped (a write cut short)');
    // Records in the earlier one-file-per-job format: into the journal, then the files go.
    const legacy = await readLegacyJobFiles(this.dir, this.log);
    for (const { key, job } of legacy) this.setInMemory(key, job);
    if (legacy.length > 0 || load.damagedLines > 0 || load.oversized) await this.journal.compact();
    if (legacy.length > 0) {
      await removeLegacyJobFiles(legacy.map((r) => r.file));
      if (fsync) await syncDir(this.dir);
    }
  }

  /** One journal entry read back: a record, or null for a removal. */
  private replay(key: string, value: unknown): void {
    if (value === null) return this.deleteInMemory(key);
    const job = value as JobRecord;
    const flaw = recordFlaw(job) ?? (recordKey(job.tenantId, job.documentId) === key ? null : 'entry key does not match record');
    if (flaw) {
      this.log.error({ dir: this.dir, key, err: flaw }, 'jobs: skipping unreadable journal entry');
      return;
    }
    this.setInMemory(key, job);
  }

  /**
   * A record as a journal line. One whose custom metadata is nested deeper than JSON can
   * write (stored before uploads bounded it) is kept without that metadata: its identity,
   * state and blob keys are what recovery and the retention sweep need.
   */
  private encode(job: JobRecord): string {
    try {
      return JSON.stringify(job);
    } catch (err) {
      this.log.warn({ tenantId: job.tenantId, documentId: job.documentId, err: String(err) }, 'jobs: record journaled without its custom metadata');
      return JSON.stringify({ ...job, customMetadata: null });
    }
  }

  /** Holds `job` (the store's own copy, frozen here): readers get it as it is, never a copy. */
  private setInMemory(key: string, job: JobRecord): void {
    const prev = this.records.get(key);
    if (prev) this.unfinishedByApp.get(prev.appId)?.delete(key);
    this.records.set(key, deepFreeze(job));
    if (isUnfinished(job.statusInt)) {
      let set = this.unfinishedByApp.get(job.appId);
      if (!set) this.unfinishedByApp.set(job.appId, (set = new Set()));
      set.add(key);
    }
  }

  private deleteInMemory(key: string): void {
    const prev = this.records.get(key);
    if (!prev) return;
    this.unfinishedByApp.get(prev.appId)?.delete(key);
    this.records.delete(key);
  }

  private visible(key: string): JobRecord | null {
    const job = this.records.get(key);
    if (!job || isExpired(job, this.now())) return null;
    return job;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('job store is closed');
  }

  async put(job: JobRecord): Promise<JobRecord | null> {
    this.assertOpen();
    expiresAtMs(job); // validates
    const key = recordKey(job.tenantId, job.documentId);
    const prev = this.records.get(key) ?? null;
    const copy = cloneRecord(job);
    this.setInMemory(key, copy);
    this.opts.onChange?.(copy);
    await this.journal.append(key, copy, 'synced');
    return prev;
  }

  async putSession(job: JobRecord): Promise<{ previous: JobRecord | null } | null> {
    this.assertOpen();
    // Checked and written in the same tick: nothing can come in between in this process.
    const active = this.visible(recordKey(job.tenantId, job.documentId));
    if (active && active.statusInt !== JobState.NotQueued) return null;
    return { previous: await this.put(job) };
  }

  async putUnlessLive(job: JobRecord): Promise<{ stored: true; previous: JobRecord | null } | { stored: false; live: JobRecord }> {
    this.assertOpen();
    // Checked and written in the same tick, like putSession.
    const live = this.visible(recordKey(job.tenantId, job.documentId));
    if (live && live.generation !== job.generation && live.statusInt !== JobState.NotQueued && live.statusInt !== JobState.Failed)
      return { stored: false, live };
    return { stored: true, previous: await this.put(job) };
  }

  async startLight(
    ref: Pick<JobRef, 'tenantId' | 'documentId' | 'generation'>,
    attempt: number,
    maxAttempts: number,
  ): Promise<{ job: JobRecord | null; started: boolean }> {
    this.assertOpen();
    const cur = this.visible(recordKey(ref.tenantId, ref.documentId));
    const waiting = cur?.generation === ref.generation && (cur.statusInt === JobState.Queued || cur.statusInt === JobState.Retrying);
    const next = cur ? Math.max(attempt, cur.attempts + 1) : attempt;
    if (!cur || !waiting || next > maxAttempts) return { job: cur, started: false };
    // transition() reads the same record again in this tick: nothing comes in between.
    const started = await this.transition(ref, JobState.Processing, { startedAt: cur.startedAt ?? new Date(this.now()).toISOString(), attempts: next });
    return { job: started, started: started !== null };
  }

  async get(tenantId: string, documentId: string): Promise<JobRecord | null> {
    return this.visible(recordKey(tenantId, documentId));
  }

  async getMany(tenantId: string, documentIds: string[]): Promise<(JobRecord | null)[]> {
    return documentIds.map((id) => this.visible(recordKey(tenantId, id)));
  }

  async transition(
    ref: Pick<JobRef, 'tenantId' | 'documentId' | 'generation'>,
    to: JobStateInt,
    patch?: TransitionPatch,
    opts?: { from?: readonly JobStateInt[] },
  ): Promise<JobRecord | null> {
    this.assertOpen();
    const key = recordKey(ref.tenantId, ref.documentId);
    const cur = this.visible(key);
    if (!cur || cur.generation !== ref.generation) return null;
    if (opts?.from && !opts.from.includes(cur.statusInt)) throw new IllegalTransitionError(cur.statusInt, to);
    assertTransition(cur.statusInt, to);
    const next: JobRecord = {
      ...cur,
      ...checkedPatch(patch),
      statusInt: to,
      updatedAt: new Date(this.now()).toISOString(),
    };
    this.setInMemory(key, next);
    this.opts.onChange?.(next);
    await this.journal.append(key, next, durabilityOf(to));
    return next;
  }

  async delete(tenantId: string, documentId: string, generation?: string): Promise<void> {
    this.assertOpen();
    const key = recordKey(tenantId, documentId);
    const cur = this.records.get(key);
    if (!cur) return;
    if (generation !== undefined && cur.generation !== generation) return;
    this.deleteInMemory(key);
    // A removal lost in a power cut brings back an expired record, which the next sweep removes.
    await this.journal.append(key, null, 'written');
  }

  async listExpired(now: Date, limit: number): Promise<JobRecord[]> {
    const t = now.getTime();
    const expired: { at: number; job: JobRecord }[] = [];
    for (const job of this.records.values()) {
      const at = expiresAtMs(job);
      if (at < t) expired.push({ at, job });
    }
    expired.sort((a, b) => a.at - b.at);
    return expired.slice(0, Math.max(0, limit)).map((e) => this.sweepCopy(e.job));
  }

  /**
   * A copy for the retention sweep. A record whose custom metadata is nested deeper than a
   * structured clone can copy (stored before uploads bounded it) is handed over without
   * that metadata: the sweep only needs its identity and blob keys, and must not fail on it.
   */
  private sweepCopy(job: JobRecord): JobRecord {
    try {
      return cloneRecord(job);
    } catch (err) {
      this.log.warn({ tenantId: job.tenantId, documentId: job.documentId, err: String(err) }, 'jobs: expired record copied without its custom metadata');
      return cloneRecord({ ...job, customMetadata: null });
    }
  }

  async countUnfinished(appId: string): Promise<number> {
    const keys = this.unfinishedByApp.get(appId);
    if (!keys) return 0;
    let n = 0;
    for (const key of keys) if (this.visible(key)) n++;
    return n;
  }

  async listUnfinished(): Promise<JobRecord[]> {
    const out: JobRecord[] = [];
    for (const keys of this.unfinishedByApp.values()) {
      for (const key of keys) {
        const job = this.visible(key);
        if (job) out.push(job);
      }
    }
    return out.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  async ping(): Promise<void> {
    this.assertOpen();
  }

  /** Writes what is pending to disk; further changes are refused. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.journal.close();
  }
}
