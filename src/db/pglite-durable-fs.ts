// Durability of the embedded control plane (PGlite on disk) after a power loss or OS crash.
//
// PGlite 0.5 starts PostgreSQL with -F (fsync=off), and even with fsync=on nothing would reach
// the disk: in its Emscripten runtime `fdatasync` is a no-op and NODEFS (the host-file
// filesystem) has no `fsync` stream operation, so `fsync()` is one too (checked with strace: no
// fsync/fdatasync syscalls at all). Without syncs a commit answered (a charge, a tenant, a key)
// can vanish in a power loss, and a checkpoint can recycle WAL whose data pages never reached the
// disk, corrupting the whole control plane.
//
// So PostgreSQL runs with fsync=on (it then asks for every sync it needs, in its own order) and
// this filesystem makes those requests real, keeping the frequent one off the event loop:
// - A commit's WAL flush (wal_sync_method=fdatasync, still a no-op inside WASM) is deferred:
//   the WAL files written are remembered and `syncWal()` fdatasyncs them asynchronously
//   (libuv's thread pool) after the statement, before it is answered (pglite-session.ts).
// - Any other sync PostgreSQL asks for (data files and pg_control at a checkpoint, a new WAL
//   segment, directories after a rename) is a real fsync, synchronous as PostgreSQL expects.
//   These are rare: single-user PostgreSQL has no checkpointer; a checkpoint comes after some
//   hundreds of MB of WAL (max_wal_size), at close and at the end of recovery.
// - Write-ahead: before anything but WAL is written to a file (a data page evicted, a
//   checkpoint's pages, pg_control), the WAL written so far is made durable first
//   (synchronously; normally already done by the previous statement's `syncWal`). So no data
//   page or control file can reach the disk ahead of the WAL that describes it.
// A failed sync is an I/O error to PostgreSQL (as on a real server, it PANICs) or, for the
// deferred one, to the session, which then refuses further statements.
import { closeSync, fdatasyncSync, fsyncSync, openSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import { NodeFS } from '@electric-sql/pglite/nodefs';

/** Start parameters the durable filesystem relies on (after PGlite's defaults, which say -F). */
export const DURABLE_SETTINGS: readonly string[] = ['fsync=on', 'wal_sync_method=fdatasync'];

/** Emscripten's EIO. */
const EIO = 29;

interface EmStream {
  node: object;
  nfd?: number;
}
type StreamOps = Record<string, ((stream: EmStream, ...rest: unknown[]) => unknown) | undefined>;
type NodeOps = Record<string, ((...args: never[]) => unknown) | undefined>;
interface EmModule {
  NODEFS: { stream_ops: StreamOps; node_ops: NodeOps; realPath(node: object): string };
  FS: { ErrnoError: new (errno: number) => Error };
}

/** Marks stream_ops already wrapped: NODEFS's table is one object per runtime. */
const WRAPPED = Symbol('durable');

export class DurableNodeFS extends NodeFS {
  private readonly walDir: string;
  /** Host paths of WAL files written since they were last made durable. */
  private readonly walDirty = new Set<string>();
  /**
   * Host handles of the WAL files last synced (the current segment), kept open: a sync is then
   * one call to the thread pool, not three. Dropped when PostgreSQL renames or removes a file
   * under that name (a segment made or recycled): a handle follows the file, not the name.
   */
  private readonly handles = new Map<string, Promise<FileHandle>>();
  private mod?: EmModule;

  constructor(dataDir: string) {
    super(dataDir);
    this.walDir = join(resolve(dataDir), 'pg_wal') + sep;
  }

  override async init(...args: Parameters<NodeFS['init']>): ReturnType<NodeFS['init']> {
    const { emscriptenOpts } = await super.init(...args);
    const install = (mod: unknown): void => this.install(mod as EmModule);
    return { emscriptenOpts: { ...emscriptenOpts, preRun: [...(emscriptenOpts.preRun ?? []), install] } };
  }

  /** True when WAL was written that is not yet known durable. */
  get walPending(): boolean {
    return this.walDirty.size > 0;
  }

  /** Makes the WAL written so far durable, off the event loop. Call with no statement running. */
  async syncWal(): Promise<void> {
    if (this.walDirty.size === 0) return;
    const files = [...this.walDirty];
    this.walDirty.clear();
    for (const file of this.handles.keys()) if (!files.includes(file)) this.drop(file); // a segment no longer written
    try {
      await Promise.all(
        files.map(async (file) => {
          let fh = this.handles.get(file);
          if (!fh) this.handles.set(file, (fh = open(file, 'r')));
          await (await fh).datasync();
        }),
      );
    } catch (err) {
      for (const f of files) {
        this.walDirty.add(f);
        this.drop(f);
      }
      throw err;
    }
  }

  override async closeFs(): Promise<void> {
    await super.closeFs();
    for (const file of [...this.handles.keys()]) this.drop(file);
  }

  private drop(file: string): void {
    const fh = this.handles.get(file);
    if (!fh) return;
    this.handles.delete(file);
    fh.then((h) => h.close()).catch(() => {}); // a read-only handle: nothing to lose in closing it
  }

  private install(mod: EmModule): void {
    if (
      typeof mod.NODEFS?.realPath !== 'function' ||
      typeof mod.NODEFS.stream_ops?.write !== 'function' ||
      typeof mod.NODEFS.node_ops?.rename !== 'function' ||
      typeof mod.NODEFS.node_ops?.unlink !== 'function'
    ) {
      throw new Error('PGlite runtime without the NODEFS this durability layer wraps: check the @electric-sql/pglite version');
    }
    this.mod = mod;
    const ops = mod.NODEFS.stream_ops as StreamOps & { [WRAPPED]?: DurableNodeFS };
    if (ops[WRAPPED]) throw new Error('NODEFS stream operations wrapped twice');
    ops[WRAPPED] = this;
    const write = ops.write as NonNullable<StreamOps[string]>;
    ops.write = (stream, ...rest) => {
      const file = this.pathOf(stream);
      if (file.startsWith(this.walDir)) {
        const n = write(stream, ...rest);
        this.walDirty.add(file);
        return n;
      }
      this.syncWalNow(); // write-ahead: WAL durable before the data it describes
      return write(stream, ...rest);
    };
    // A name that now means another file: its handle (if any) must not be synced for it, and
    // WAL not yet synced is found under the file's new name (or is gone with it).
    const nodeOps = mod.NODEFS.node_ops as NodeOps & Record<string, (...args: unknown[]) => unknown>;
    const { rename, unlink } = nodeOps;
    nodeOps.rename = (oldNode, newDir, newName) => {
      const from = mod.NODEFS.realPath(oldNode as object);
      const to = join(mod.NODEFS.realPath(newDir as object), newName as string);
      const r = rename(oldNode, newDir, newName);
      this.drop(from);
      this.drop(to);
      if (this.walDirty.delete(from)) this.walDirty.add(to);
      return r;
    };
    nodeOps.unlink = (parent, name) => {
      const file = join(mod.NODEFS.realPath(parent as object), name as string);
      const r = unlink(parent, name);
      this.drop(file);
      this.walDirty.delete(file);
      return r;
    };
    ops.fsync = (stream) => {
      const file = this.pathOf(stream);
      this.guard(() => {
        if (!file.startsWith(this.walDir)) this.syncWalNow();
        if (stream.nfd !== undefined) fsyncSync(stream.nfd);
      });
      this.walDirty.delete(file);
      return 0;
    };
  }

  /** The synchronous form of syncWal, inside PostgreSQL's own calls. */
  private syncWalNow(): void {
    if (this.walDirty.size === 0) return;
    this.guard(() => {
      for (const file of this.walDirty) {
        const fd = openSync(file, 'r');
        try {
          fdatasyncSync(fd);
        } finally {
          closeSync(fd);
        }
      }
    });
    this.walDirty.clear();
  }

  /** Host errors as EIO, which PostgreSQL reports (and PANICs on, for a failed fsync). */
  private guard(fn: () => void): void {
    try {
      fn();
    } catch {
      throw new this.mod!.FS.ErrnoError(EIO);
    }
  }

  /** The host path, computed each time: a renamed file (a WAL segment made or recycled) keeps its node. */
  private pathOf(stream: EmStream): string {
    return this.mod!.NODEFS.realPath(stream.node);
  }
}

/** fsyncs every file and directory under dir (and dir's own entry): a tree written without syncs, made durable. */
export async function syncTree(dir: string): Promise<void> {
  const { readdir } = await import('node:fs/promises');
  const sync = async (p: string): Promise<void> => {
    const fh = await open(p, 'r');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
  };
  const walk = async (d: string): Promise<void> => {
    const entries = await readdir(d, { withFileTypes: true });
    await Promise.all(entries.map((e) => (e.isDirectory() ? walk(join(d, e.name)) : e.isFile() ? sync(join(d, e.name)) : null)));
    await sync(d);
  };
  await walk(dir);
  await sync(resolve(dir, '..'));
}
