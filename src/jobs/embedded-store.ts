// In-process JobStore for the embedded deployment. Records live in a Map; every change is
// written durably to `${dataDir}/jobs/<sha256(key)>.json` (temp file + fsync + atomic
// rename) before the call resolves, and the directory is loaded on open, so a restart
// loses no accepted job.

import { createHash } from 'node:crypto';
import { chmod, mkdir, open as openFile, readdir, readFile, rename, unlink } from 'node:fs/promises';
import path from 'node:path';

import { assertTransition, isJobState, isTerminal, isUnfinished } from './transitions.js';
import { JobState, type JobRecord, type JobRef, type JobStateInt, type JobStore } from './types.js';
import { checkedPatch, cloneRecord, consoleLogger, expiresAtMs, isExpired, recordKey, type JobLogger } from './support.js';

export interface EmbeddedJobStoreOptions {
  dataDir: string;
  /** fsync files and the directory on each write (default true). */
  fsync?: boolean;
  log?: JobLogger;
  /** Clock, for tests. */
  now?: () => number;
}

type TransitionPatch = Parameters<JobStore['transition']>[2];

// Records hold tenants' file names and custom metadata: the service's own user only.
const FILE_MODE = 0o600;
const DIR_MODE = 0o700;

export class EmbeddedJobStore implements JobStore {
  private readonly records = new Map<string, JobRecord>();
  /** appId → record keys of unfinished jobs. */
  private readonly unfinishedByApp = new Map<string, Set<string>>();
  /** Per-key write chain: file writes for one key land in call order. */
  private readonly writes = new Map<string, Promise<void>>();
  private readonly dir: string;
  private readonly fsync: boolean;
  private readonly log: JobLogger;
  private readonly now: () => number;
  private tmpCounter = 0;
  private closed = false;

  private constructor(opts: EmbeddedJobStoreOptions) {
    this.dir = path.join(opts.dataDir, 'jobs');
    this.fsync = opts.fsync ?? true;
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
    for (const name of await readdir(this.dir)) {
      const file = path.join(this.dir, name);
      if (name.endsWith('.tmp')) {
        // A write interrupted before its rename: the previous file (if any) is intact.
        await unlink(file).catch(() => undefined);
        continue;
      }
      if (!name.endsWith('.json')) continue;
      try {
        const job = JSON.parse(await readFile(file, 'utf8')) as JobRecord;
        const flaw = recordFlaw(job);
        if (flaw) throw new Error(flaw);
        const key = recordKey(job.tenantId, job.documentId);
        if (this.fileName(key) !== name) throw new Error('file name does not match record');
        this.setInMemory(key, job);
      } catch (err) {
        this.log.error({ file, err: String(err) }, 'jobs: skipping unreadable job file');
      }
    }
  }

  private fileName(key: string): string {
    return createHash('sha256').update(key).digest('hex') + '.json';
  }

  private setInMemory(key: string, job: JobRecord): void {
    const prev = this.records.get(key);
    if (prev) this.unfinishedByApp.get(prev.appId)?.delete(key);
    this.records.set(key, job);
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

  /**
   * Queues a write (job) or removal (null) of one key's file, in call order. `durable`
   * writes are fsynced; the others are still atomic (rename) but may be lost in a power cut,
   * which only rewinds a job to an earlier state that recovery takes up again.
   */
  private persist(key: string, job: JobRecord | null, durable = true): Promise<void> {
    const body = job ? JSON.stringify(job) : null;
    const prev = this.writes.get(key) ?? Promise.resolve();
    const next = prev.then(() => this.writeFile(key, body, durable));
    const tracked = next.catch(() => undefined);
    this.writes.set(key, tracked);
    void tracked.then(() => {
      if (this.writes.get(key) === tracked) this.writes.delete(key);
    });
    return next;
  }

  private async writeFile(key: string, body: string | null, durable: boolean): Promise<void> {
    const file = path.join(this.dir, this.fileName(key));
    if (body === null) {
      await unlink(file).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
      });
      return;
    }
    const tmp = `${file}.${process.pid}.${++this.tmpCounter}.tmp`;
    const fh = await openFile(tmp, 'w', FILE_MODE);
    try {
      await fh.writeFile(body, 'utf8');
      if (this.fsync && durable) await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, file);
    if (this.fsync && durable) await this.syncDir();
  }

  private async syncDir(): Promise<void> {
    // Makes the rename itself durable. Not supported on every platform: best effort.
    try {
      const dh = await openFile(this.dir, 'r');
      try {
        await dh.sync();
      } finally {
        await dh.close();
      }
    } catch {
      /* ignore */
    }
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
    await this.persist(key, copy);
    return prev ? cloneRecord(prev) : null;
  }

  async putSession(job: JobRecord): Promise<{ previous: JobRecord | null } | null> {
    this.assertOpen();
    // Checked and written in the same tick: nothing can come in between in this process.
    const active = this.visible(recordKey(job.tenantId, job.documentId));
    if (active && active.statusInt !== JobState.NotQueued) return null;
    return { previous: await this.put(job) };
  }

  async get(tenantId: string, documentId: string): Promise<JobRecord | null> {
    const job = this.visible(recordKey(tenantId, documentId));
    return job ? cloneRecord(job) : null;
  }

  async getMany(tenantId: string, documentIds: string[]): Promise<(JobRecord | null)[]> {
    return documentIds.map((id) => {
      const job = this.visible(recordKey(tenantId, id));
      return job ? cloneRecord(job) : null;
    });
  }

  async transition(ref: Pick<JobRef, 'tenantId' | 'documentId' | 'generation'>, to: JobStateInt, patch?: TransitionPatch): Promise<JobRecord | null> {
    this.assertOpen();
    const key = recordKey(ref.tenantId, ref.documentId);
    const cur = this.visible(key);
    if (!cur || cur.generation !== ref.generation) return null;
    assertTransition(cur.statusInt, to);
    const next: JobRecord = {
      ...cur,
      ...checkedPatch(patch),
      statusInt: to,
      updatedAt: new Date(this.now()).toISOString(),
    };
    this.setInMemory(key, next);
    // Accepted (put) and finished states are fsynced; the steps between need not be.
    await this.persist(key, next, isTerminal(to) || to === JobState.Queued);
    return cloneRecord(next);
  }

  async delete(tenantId: string, documentId: string, generation?: string): Promise<void> {
    this.assertOpen();
    const key = recordKey(tenantId, documentId);
    const cur = this.records.get(key);
    if (!cur) return;
    if (generation !== undefined && cur.generation !== generation) return;
    this.deleteInMemory(key);
    await this.persist(key, null);
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
        if (job) out.push(cloneRecord(job));
      }
    }
    return out.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  async ping(): Promise<void> {
    this.assertOpen();
  }

  /** Waits for pending file writes; further changes are refused. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.writes.values()]);
  }
}

/** Why a record read from disk cannot be used (a field every lookup relies on is missing or malformed), or null. */
function recordFlaw(job: Partial<JobRecord> | null): string | null {
  if (job === null || typeof job !== 'object') return 'not a job record';
  for (const field of ['tenantId', 'appId', 'documentId', 'generation', 'uploadKey'] as const) {
    if (typeof job[field] !== 'string') return `${field} is not a string`;
  }
  if (!isJobState(job.statusInt)) return `statusInt ${JSON.stringify(job.statusInt)} is not a job state`;
  if (typeof job.expiresAt !== 'string' || Number.isNaN(Date.parse(job.expiresAt))) return `expiresAt ${JSON.stringify(job.expiresAt)} is not a timestamp`;
  return null;
}
