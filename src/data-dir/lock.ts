// The data dir's single-writer lock. PGlite and the embedded job store must never be opened
// by two processes, and Node has no flock: the lock is a file created with O_EXCL ('wx')
// naming its holder — pid, where that pid is valid (process-liveness.ts), role, start time
// and, for a node once it listens, where it serves and its local management URL. A holder
// that is gone is taken over; one in another scope (host, container, boot), whose pid
// cannot be checked from here, counts as gone once it stops touching the file.
import { readFileSync, unlinkSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { ownStartedAtMs, processScope, processStillRuns } from './process-liveness.js';

export const LOCK_FILE_NAME = 'docparse.lock';

/** The holder touches its lock this often, so that other scopes can tell it is alive. */
const HEARTBEAT_MS = 5_000;
/** A lock from another scope untouched this long belongs to a process that is gone. */
const FOREIGN_STALE_MS = 30_000;

export type LockRole = 'node' | 'admin';

/** The lock file's content (JSON). */
export interface LockRecord {
  pid: number;
  role: LockRole;
  /** For people: the host name the holder ran on. */
  hostname: string;
  /** Where `pid` is meaningful (processScope()). */
  scope: string;
  /** When the holding process started (ISO 8601). */
  startedAt: string;
  /** The node's API address; null until it listens, and for `docparse admin`. */
  host: string | null;
  port: number | null;
  /** The node's local management endpoint (loopback); null until it listens. */
  manageUrl: string | null;
}

export interface LockHolder extends LockRecord {
  /** Its pid cannot be checked from here: another host, container or boot. */
  foreign: boolean;
}

export function lockFilePath(dataDir: string): string {
  return path.join(path.resolve(dataDir), LOCK_FILE_NAME);
}

/** Lock files held by this process, by path: a second holder in this process is refused too. */
const heldHere = new Map<string, DataDirLock>();
let exitHookInstalled = false;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const isCode = (err: unknown, code: string) => (err as NodeJS.ErrnoException)?.code === code;
const ignoreMissing = (err: unknown) => {
  if (!isCode(err, 'ENOENT')) throw err;
};

function parseRecord(raw: string): LockRecord | null {
  try {
    const r = JSON.parse(raw) as Partial<LockRecord>;
    const ok =
      Number.isSafeInteger(r.pid) &&
      (r.pid as number) > 0 &&
      (r.role === 'node' || r.role === 'admin') &&
      typeof r.scope === 'string' &&
      typeof r.hostname === 'string' &&
      typeof r.startedAt === 'string' &&
      Number.isFinite(Date.parse(r.startedAt));
    return ok ? { ...(r as LockRecord), host: r.host ?? null, port: r.port ?? null, manageUrl: r.manageUrl ?? null } : null;
  } catch {
    return null;
  }
}

const serialize = (r: LockRecord) => JSON.stringify(r) + '\n';

interface LockFileState {
  raw: string;
  record: LockRecord | null;
  mtimeMs: number;
}

/** The lock file as it stands, or null when there is none. */
async function readLockFile(file: string): Promise<LockFileState | null> {
  for (let attempt = 0; ; attempt++) {
    let raw: string;
    let mtimeMs: number;
    try {
      [raw, { mtimeMs }] = await Promise.all([fs.readFile(file, 'utf8'), fs.stat(file)]);
    } catch (err) {
      if (isCode(err, 'ENOENT')) return null;
      throw err;
    }
    const record = parseRecord(raw);
    // Creating ('wx') and writing are two steps: an empty or partial file that is young is
    // being written. One that stays unreadable is debris (e.g. a full disk) and counts as stale.
    if (record || attempt >= 20 || Date.now() - mtimeMs > 2_000) return { raw, record, mtimeMs };
    await sleep(50);
  }
}

/** The live holder a lock file names, or null when its holder is gone. */
function liveHolder(file: string, state: LockFileState): LockHolder | null {
  const r = state.record;
  if (!r) return null;
  if (r.scope !== processScope()) {
    return Date.now() - state.mtimeMs < FOREIGN_STALE_MS ? { ...r, foreign: true } : null;
  }
  // Our own pid: held by this process, or written by an earlier life of it (a container
  // restarted with the same pid).
  if (r.pid === process.pid) return heldHere.has(file) ? { ...r, foreign: false } : null;
  return processStillRuns(r.pid, Date.parse(r.startedAt)) ? { ...r, foreign: false } : null;
}

/** The live holder of a data dir's lock, or null when nobody holds it. */
export async function readDataDirLock(dataDir: string): Promise<LockHolder | null> {
  const file = lockFilePath(dataDir);
  const state = await readLockFile(file);
  return state ? liveHolder(file, state) : null;
}

/**
 * Deletes a stale lock file if it is still the one judged stale. The guard file makes the
 * check and the delete one step between processes taking over at once; without it, one could
 * delete the lock another has just created.
 */
async function removeStaleLock(file: string, staleRaw: string): Promise<void> {
  const guard = `${file}.takeover`;
  const deadline = Date.now() + 5_000;
  const me = serialize(ownRecord('admin'));
  for (;;) {
    try {
      await fs.writeFile(guard, me, { flag: 'wx', mode: 0o600 });
      break;
    } catch (err) {
      if (!isCode(err, 'EEXIST')) throw err;
    }
    // A guard lives for two file operations; one left by a process that died there is removed
    // (one naming this process is an earlier life's: this process takes locks one at a time).
    const state = await readLockFile(guard);
    if (state && !liveHolder(guard, state)) await fs.unlink(guard).catch(ignoreMissing);
    else if (Date.now() > deadline) throw new Error(`cannot take over the stale lock ${file}: ${guard} stays held`);
    else await sleep(20);
  }
  try {
    const now = await fs.readFile(file, 'utf8').catch((err) => (isCode(err, 'ENOENT') ? null : Promise.reject(err)));
    if (now === staleRaw) await fs.unlink(file).catch(ignoreMissing);
  } finally {
    await fs.unlink(guard).catch(ignoreMissing);
  }
}

function ownRecord(role: LockRole): LockRecord {
  return {
    pid: process.pid,
    role,
    hostname: os.hostname(),
    scope: processScope(),
    startedAt: new Date(ownStartedAtMs()).toISOString(),
    host: null,
    port: null,
    manageUrl: null,
  };
}

/** Creates the lock file with O_EXCL; false when it exists. */
async function createLockFile(file: string, record: LockRecord): Promise<boolean> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, 'wx', 0o600);
  } catch (err) {
    if (isCode(err, 'EEXIST')) return false;
    throw err;
  }
  try {
    await handle.writeFile(serialize(record));
  } catch (err) {
    await handle.close().catch(() => {});
    await fs.unlink(file).catch(() => {});
    throw err;
  }
  await handle.close();
  return true;
}

/**
 * Acquisitions of one lock file within this process, one at a time: between creating the
 * file and recording it as held here, another attempt of this process would otherwise take
 * its own pid for an earlier life's and delete the new lock.
 */
const acquiring = new Map<string, Promise<unknown>>();

function inTurn<T>(file: string, fn: () => Promise<T>): Promise<T> {
  const run = (acquiring.get(file) ?? Promise.resolve()).then(fn);
  const settled = run.catch(() => {});
  acquiring.set(file, settled);
  void settled.then(() => {
    if (acquiring.get(file) === settled) acquiring.delete(file);
  });
  return run;
}

/** Takes the lock if nobody alive holds it (taking over a stale one); else names the holder. */
export function tryAcquireDataDirLock(dataDir: string, role: LockRole): Promise<{ lock: DataDirLock } | { holder: LockHolder }> {
  const file = lockFilePath(dataDir);
  return inTurn(file, () => acquireOnce(dataDir, file, role));
}

async function acquireOnce(dataDir: string, file: string, role: LockRole): Promise<{ lock: DataDirLock } | { holder: LockHolder }> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const record = ownRecord(role);
    if (!heldHere.has(file) && (await createLockFile(file, record))) {
      const lock = new DataDirLock(path.resolve(dataDir), file, record);
      heldHere.set(file, lock);
      installExitHook();
      return { lock };
    }
    const state = await readLockFile(file);
    if (!state) continue; // released meanwhile
    const holder = liveHolder(file, state);
    if (holder) return { holder };
    await removeStaleLock(file, state.raw);
  }
  throw new Error(`cannot take the lock ${file}: it keeps changing hands`);
}

export interface AcquireOptions {
  /** Longest wait for a holder for which `waitFor` says waiting is worth it (default 0). */
  waitMs?: number;
  waitFor?: (holder: LockHolder) => boolean;
  /** Called once when the wait starts. */
  onWait?: (holder: LockHolder) => void;
}

/** Takes the lock or throws DataDirLockedError naming the holder. */
export async function acquireDataDirLock(dataDir: string, role: LockRole, opts: AcquireOptions = {}): Promise<DataDirLock> {
  const deadline = Date.now() + (opts.waitMs ?? 0);
  let waiting = false;
  for (;;) {
    const got = await tryAcquireDataDirLock(dataDir, role);
    if ('lock' in got) return got.lock;
    if (!opts.waitFor?.(got.holder) || Date.now() >= deadline) throw new DataDirLockedError(path.resolve(dataDir), got.holder);
    if (!waiting) opts.onWait?.(got.holder);
    waiting = true;
    await sleep(200);
  }
}

/** Who holds the lock, in words. */
export function describeHolder(h: LockHolder): string {
  const who =
    h.role === 'node'
      ? `docparse serve (pid ${h.pid}, started ${h.startedAt}${h.port !== null ? `, serving on ${h.host}:${h.port}` : ', starting'})`
      : `docparse admin (pid ${h.pid}, started ${h.startedAt})`;
  return h.foreign ? `${who} on ${h.hostname}, in another host, container or boot whose processes cannot be checked from here` : who;
}

export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: LockHolder,
  ) {
    super(
      `data dir ${dataDir} is in use by ${describeHolder(holder)}. Two processes must never open one data dir: ` +
        `stop that process first, or give this one another DOCPARSE_DATA_DIR. ` +
        `(Lock file ${path.join(dataDir, LOCK_FILE_NAME)}: delete it only if that process no longer runs.)`,
    );
    this.name = 'DataDirLockedError';
  }
}

/** A held lock: the holder updates what it publishes, and releases it when it stops. */
export class DataDirLock {
  private readonly heartbeat: NodeJS.Timeout;
  private released = false;

  constructor(
    readonly dataDir: string,
    readonly file: string,
    private record: LockRecord,
  ) {
    this.heartbeat = setInterval(() => {
      const now = new Date();
      fs.utimes(this.file, now, now).catch(() => {});
    }, HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  get holder(): LockRecord {
    return { ...this.record };
  }

  /** Publishes where the node serves (written once it listens), replacing the file atomically. */
  async update(patch: Partial<Pick<LockRecord, 'host' | 'port' | 'manageUrl'>>): Promise<void> {
    if (this.released) throw new Error(`the lock ${this.file} was released`);
    const next = { ...this.record, ...patch };
    const tmp = `${this.file}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      await fs.writeFile(tmp, serialize(next), { flag: 'wx', mode: 0o600 });
      await fs.rename(tmp, this.file);
    } catch (err) {
      await fs.unlink(tmp).catch(() => {});
      throw err;
    }
    this.record = next;
  }

  /** Deletes the lock file if it is still ours. Idempotent. */
  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    clearInterval(this.heartbeat);
    heldHere.delete(this.file);
    const raw = await fs.readFile(this.file, 'utf8').catch(() => null);
    if (raw === serialize(this.record)) await fs.unlink(this.file).catch(ignoreMissing);
  }

  /** For process exit: the same, synchronously. */
  releaseSync(): void {
    if (this.released) return;
    this.released = true;
    clearInterval(this.heartbeat);
    heldHere.delete(this.file);
    try {
      if (readFileSync(this.file, 'utf8') === serialize(this.record)) unlinkSync(this.file);
    } catch {
      // gone already, or unreadable: nothing of ours to remove
    }
  }
}

/** A process that exits without stopping (process.exit, a second signal) frees its locks. */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const lock of [...heldHere.values()]) lock.releaseSync();
  });
}
