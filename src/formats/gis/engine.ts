// gdal3.js (GDAL 3.8.4 compiled to WASM) inside a worker thread: loaded once per thread,
// used by one job at a time (GDAL and the Emscripten file system hold global state).
//
// - Start-up (~1 s) is paid once per thread: `engine()` caches a module-level promise.
// - `withGdal(fn)` is a module-level mutex: jobs in the same thread queue behind it.
// - The package's own `open()`/`ogrinfo()`/`ogr2ogr()` helpers are bypassed: they mount one
//   global /input folder, run gdalinfo+ogrinfo on every open, and treat any warning number ≥ 3
//   as a failure. We call the exported C functions through `Module.ccall` instead and mount
//   the job's private scratch folder at /dp.
// - GDAL's own messages (with CPL_LOG_ERRORS=ON) arrive through `errorHandler`; they are kept
//   per job so failures carry GDAL's words, not an empty string.
// Nothing is downloaded at run time: the .wasm and .data files come from the installed
// gdal3.js package (gdalAssetDir).
import { createRequire } from 'node:module';
import { existsSync, fstatSync, readSync, writeSync } from 'node:fs';
import path from 'node:path';
import { ExtractionError } from '../kit/types.js';
import { registerBrokenCheck } from '../kit/engine-handles.js';

/** Emscripten module surface we use (the package ships no types for it). */
interface EmModule {
  ccall(name: string, ret: 'number' | 'string' | null, argTypes: string[], args: unknown[]): any;
  _malloc(n: number): number;
  _free(p: number): void;
  lengthBytesUTF8(s: string): number;
  stringToUTF8(s: string, p: number, max: number): void;
  HEAPU32: Uint32Array;
  FS: {
    mkdir(p: string): void;
    mount(type: unknown, opts: { root: string }, mountpoint: string): void;
    unmount(mountpoint: string): void;
    analyzePath(p: string): { exists: boolean };
  };
  NODEFS: unknown;
}

interface GdalJs {
  Module: EmModule;
  drivers: { vector: Record<string, unknown> };
}

export const GDAL_VERSION = 'GDAL 3.8.4 (gdal3.js 2.8.1, WASM)';
const MOUNT = '/dp';
const GDAL_OF_VECTOR = 0x04;
const GDAL_OF_VERBOSE_ERROR = 0x40;
const MAX_LOG_LINES = 500;

/** Directory holding gdal3WebAssembly.wasm and .data inside node_modules. */
export function gdalAssetDir(): string {
  const require = createRequire(import.meta.url);
  const entry = require.resolve('gdal3.js/node.js');
  const dir = path.join(path.dirname(entry), 'dist', 'package');
  for (const f of ['gdal3WebAssembly.wasm', 'gdal3WebAssembly.data']) {
    if (!existsSync(path.join(dir, f))) throw new Error(`gdal3.js asset missing: ${path.join(dir, f)} (reinstall the gdal3.js package)`);
  }
  return dir;
}

/** NODEFS internals we wrap (see bufferNodeFs). */
interface NodeFsStream {
  node: unknown;
  flags: number;
  nfd: number;
  wbuf?: { buf: Buffer; len: number; pos: number } | null;
  rbuf?: { buf: Buffer; len: number; pos: number; end: number } | null;
}
type StreamOps = Record<string, (...a: any[]) => any>;

const WRITE_BUFFER = 1024 * 1024;
const READ_BUFFER = 256 * 1024;
/** Files below this size are read as GDAL asks (no read-ahead buffer). */
const READ_BUFFER_MIN_FILE = 2 * 1024 * 1024;
/** First write error of a buffered flush since the last check (a failed export must not look complete). */
let pendingIoError: Error | null = null;

function takeIoError(): Error | null {
  const e = pendingIoError;
  pendingIoError = null;
  return e;
}

/**
 * Emscripten's NODEFS makes one host system call per C-level read or write: GDAL writes its
 * GeoJSONSeq output in pieces of under 1 KiB (50,000 `writeSync` calls for a 33 MB layer)
 * and reads shapefiles in ~16 KiB pieces (2,100 `readSync` calls for 35 MB). This wraps the NODEFS of this GDAL
 * instance so that write-only streams are buffered (1 MiB) and read-only streams of large
 * files read ahead (256 KiB) while they are read sequentially. Consistency: any read, stat,
 * truncate or seek on a file first flushes the write buffers held for it, and any write
 * drops the read-ahead of that file.
 */
function bufferNodeFs(M: EmModule & { NODEFS: any; FS: any }): void {
  const N = M.NODEFS;
  const so: StreamOps = N.stream_ops;
  const no: StreamOps = N.node_ops;
  if ((so as any).__dpBuffered) return;
  const orig = { read: so.read, write: so.write, close: so.close, llseek: so.llseek, fsync: so.fsync, getattr: no.getattr, setattr: no.setattr };
  const open = new Set<NodeFsStream>();
  const errno = (e: unknown): Error => {
    const code = (e as NodeJS.ErrnoException)?.code;
    return code ? new M.FS.ErrnoError(N.convertNodeCode(e)) : (e as Error);
  };
  const flush = (st: NodeFsStream) => {
    const b = st.wbuf;
    if (!b || !b.len) return;
    try {
      let off = 0;
      while (off < b.len) off += writeSync(st.nfd, b.buf, off, b.len - off, b.pos + off);
    } catch (e) {
      pendingIoError ??= e as Error;
      throw errno(e);
    } finally {
      b.pos += b.len;
      b.len = 0;
    }
  };
  const flushNode = (node: unknown) => {
    for (const st of open) if (st.node === node) flush(st);
  };
  const dropReadAhead = (node: unknown) => {
    for (const st of open) if (st.node === node && st.rbuf) st.rbuf.len = 0;
  };
  so.write = function (st: NodeFsStream, buffer: Uint8Array, offset: number, length: number, position: number) {
    dropReadAhead(st.node);
    if ((st.flags & 3) !== 1 /* O_WRONLY */) {
      flushNode(st.node);
      return orig.write.call(this, st, buffer, offset, length, position);
    }
    let b = st.wbuf;
    if (!b) {
      b = st.wbuf = { buf: Buffer.allocUnsafe(WRITE_BUFFER), len: 0, pos: position };
      open.add(st);
    }
    if (position !== b.pos + b.len || b.len + length > WRITE_BUFFER) {
      flush(st);
      b.pos = position;
    }
    if (length >= WRITE_BUFFER) {
      const n = orig.write.call(this, st, buffer, offset, length, position) as number;
      b.pos = position + n;
      return n;
    }
    b.buf.set(buffer.subarray(offset, offset + length), b.len);
    b.len += length;
    return length;
  };
  so.read = function (st: NodeFsStream, buffer: Uint8Array, offset: number, length: number, position: number) {
    flushNode(st.node);
    let c = st.rbuf;
    if (c === undefined) {
      // Decided once per stream: read-only and large enough to be worth a buffer.
      c = st.rbuf = null;
      if ((st.flags & 3) === 0 /* O_RDONLY */) {
        try {
          if (fstatSync(st.nfd).size >= READ_BUFFER_MIN_FILE) {
            c = st.rbuf = { buf: Buffer.allocUnsafe(READ_BUFFER), len: 0, pos: 0, end: 0 };
            open.add(st);
          }
        } catch {
          /* read unbuffered */
        }
      }
    }
    if (!c || length >= READ_BUFFER / 2 || length === 0) return orig.read.call(this, st, buffer, offset, length, position);
    const sequential = position === c.end;
    c.end = position + length;
    if (position < c.pos || position + length > c.pos + c.len) {
      // Read ahead only for sequential reading; random access (e.g. SQLite pages) reads as asked.
      if (!sequential) return orig.read.call(this, st, buffer, offset, length, position);
      c.pos = position;
      c.len = 0;
      try {
        for (let n = 1; c.len < READ_BUFFER && n > 0; c.len += n) n = readSync(st.nfd, c.buf, c.len, READ_BUFFER - c.len, position + c.len);
      } catch (e) {
        c.len = 0;
        throw errno(e);
      }
    }
    const n = Math.max(0, Math.min(length, c.pos + c.len - position));
    buffer.set(c.buf.subarray(position - c.pos, position - c.pos + n), offset);
    return n;
  };
  so.close = function (st: NodeFsStream) {
    try {
      flush(st);
    } finally {
      open.delete(st);
      st.wbuf = null;
      st.rbuf = null;
      orig.close.call(this, st);
    }
  };
  so.llseek = function (st: NodeFsStream, ...rest: unknown[]) {
    flush(st);
    return orig.llseek.call(this, st, ...rest);
  };
  if (orig.fsync) {
    so.fsync = function (st: NodeFsStream, ...rest: unknown[]) {
      flush(st);
      return orig.fsync.call(this, st, ...rest);
    };
  }
  no.getattr = function (node: unknown, ...rest: unknown[]) {
    flushNode(node);
    return orig.getattr.call(this, node, ...rest);
  };
  no.setattr = function (node: unknown, ...rest: unknown[]) {
    flushNode(node);
    dropReadAhead(node);
    return orig.setattr.call(this, node, ...rest);
  };
  (so as any).__dpBuffered = true;
}

let log: string[] = [];
let enginePromise: Promise<GdalJs> | null = null;
let queue: Promise<unknown> = Promise.resolve();

function engine(): Promise<GdalJs> {
  if (!enginePromise) {
    enginePromise = (async () => {
      const require = createRequire(import.meta.url);
      const init = require('gdal3.js/node.js') as (cfg: Record<string, unknown>) => Promise<GdalJs>;
      // gdal3.js reads the .data file as `./${path}`: the path must be relative to the cwd.
      const rel = path.relative(process.cwd(), gdalAssetDir()) || '.';
      const push = (m: string) => {
        if (log.length < MAX_LOG_LINES) log.push(String(m));
      };
      const g = await init({
        path: rel,
        logHandler: () => {},
        errorHandler: push,
        env: { OGR_GEOJSON_MAX_OBJ_SIZE: '0', CPL_LOG_ERRORS: 'ON', VSI_CACHE: 'TRUE' },
      });
      g.Module.FS.mkdir(MOUNT);
      bufferNodeFs(g.Module as EmModule & { NODEFS: any; FS: any });
      return g;
    })();
    enginePromise.catch(() => {
      enginePromise = null;
    });
  }
  return enginePromise;
}

/** A GDAL failure with the messages GDAL printed while it happened. */
export class GdalError extends Error {
  constructor(
    message: string,
    public readonly gdalMessages: string[],
  ) {
    super(message);
    this.name = 'GdalError';
  }
}

/** Handle over one job's use of GDAL; valid only inside `withGdal`. */
export class GdalSession {
  private mounted = false;
  constructor(private readonly g: GdalJs) {}

  private get M(): EmModule {
    return this.g.Module;
  }

  /** Messages GDAL printed since the last call (then cleared). */
  drainLog(): string[] {
    const out = log;
    log = [];
    return out.map((l) => l.trim()).filter(Boolean);
  }

  /** Mounts a host folder (the job's scratch dir) at /dp; returns the virtual path of a host path. */
  mount(hostDir: string): void {
    this.M.FS.mount(this.M.NODEFS, { root: path.resolve(hostDir) }, MOUNT);
    this.mounted = true;
  }

  virtualPath(relative: string): string {
    return `${MOUNT}/${relative.split(path.sep).join('/')}`;
  }

  unmount(): void {
    if (this.mounted) {
      try {
        this.M.FS.unmount(MOUNT);
      } catch {
        /* already gone */
      }
      this.mounted = false;
    }
  }

  setConfig(key: string, value: string | null): void {
    this.M.ccall('CPLSetConfigOption', null, ['string', 'string'], [key, value]);
  }

  private lastError(): { type: number; message: string } {
    const type = this.M.ccall('CPLGetLastErrorType', 'number', [], []) as number;
    const message = this.M.ccall('CPLGetLastErrorMsg', 'string', [], []) as string;
    return { type, message };
  }

  private resetError(): void {
    this.M.ccall('CPLErrorReset', null, [], []);
  }

  private argv(args: string[]): { ptr: number; free: () => void } {
    const M = this.M;
    const ptrs = args.map((s) => {
      const n = M.lengthBytesUTF8(s) + 1;
      const p = M._malloc(n);
      M.stringToUTF8(s, p, n);
      return p;
    });
    const arr = M._malloc((ptrs.length + 1) * 4);
    M.HEAPU32.set([...ptrs, 0], arr / 4);
    return {
      ptr: arr,
      free: () => {
        for (const p of ptrs) M._free(p);
        M._free(arr);
      },
    };
  }

  private fail(what: string): never {
    const { message } = this.lastError();
    const msgs = this.drainLog();
    this.resetError();
    const detail =
      message ||
      msgs
        .filter((m) => /^ERROR/i.test(m))
        .map((m) => m.replace(/^ERROR \d+:\s*/i, ''))
        .join('; ') ||
      'no message from GDAL';
    throw new GdalError(`${what}: ${detail}`, msgs);
  }

  /** Opens a vector dataset (virtual path); returns its handle. */
  openVector(vpath: string, openOptions: string[] = []): number {
    this.resetError();
    const opts = openOptions.length ? this.argv(openOptions) : null;
    try {
      const ds = this.M.ccall(
        'GDALOpenEx',
        'number',
        ['string', 'number', 'number', 'number', 'number'],
        [vpath, GDAL_OF_VECTOR | GDAL_OF_VERBOSE_ERROR, 0, opts ? opts.ptr : 0, 0],
      ) as number;
      if (!ds) this.fail('GDAL could not open it as a vector dataset');
      return ds;
    } finally {
      opts?.free();
    }
  }

  close(ds: number): void {
    if (ds) this.M.ccall('GDALClose', 'number', ['number'], [ds]);
  }

  /** `ogrinfo <args>` on an open dataset: its text, or null when GDAL returned none. */
  private ogrinfo(ds: number, args: string[]): string | null {
    this.resetError();
    const a = this.argv(args);
    const opts = this.M.ccall('GDALVectorInfoOptionsNew', 'number', ['number', 'number'], [a.ptr, 0]) as number;
    a.free();
    if (!opts) this.fail('ogrinfo options rejected');
    try {
      return this.M.ccall('GDALVectorInfo', 'string', ['number', 'number'], [ds, opts]) as string | null;
    } finally {
      this.M.ccall('GDALVectorInfoOptionsFree', null, ['number'], [opts]);
    }
  }

  /** `ogrinfo -json` on an open dataset, parsed. Warnings do not fail it. */
  vectorInfo(ds: number, args: string[] = []): any {
    const text = this.ogrinfo(ds, ['-json', ...args]);
    if (!text) this.fail('reading the layer summary failed');
    return JSON.parse(text);
  }

  /** Plain-text `ogrinfo` (e.g. `-so -al`): some drivers (MIF) expose the layer CRS only there. */
  vectorInfoText(ds: number, args: string[]): string {
    return this.ogrinfo(ds, args) ?? '';
  }

  /** `ogr2ogr` from an open dataset into a new file (virtual path). */
  vectorTranslate(destVPath: string, ds: number, args: string[]): void {
    this.resetError();
    takeIoError();
    const a = this.argv(args);
    const opts = this.M.ccall('GDALVectorTranslateOptionsNew', 'number', ['number', 'number'], [a.ptr, 0]) as number;
    a.free();
    if (!opts) this.fail('ogr2ogr options rejected');
    const list = this.M._malloc(4);
    this.M.HEAPU32[list / 4] = ds;
    try {
      const out = this.M.ccall(
        'GDALVectorTranslate',
        'number',
        ['string', 'number', 'number', 'number', 'number', 'number'],
        [destVPath, 0, 1, list, opts, 0],
      ) as number;
      if (!out) this.fail('export to GeoJSON failed');
      this.close(out);
      const err = this.lastError();
      if (err.type >= 3) this.fail('export to GeoJSON failed');
      const io = takeIoError();
      if (io)
        throw new GdalError(
          `export to GeoJSON failed: the converted copy could not be written (${(io as NodeJS.ErrnoException).code ?? 'I/O error'})`,
          this.drainLog(),
        );
    } finally {
      this.M._free(list);
      this.M.ccall('GDALVectorTranslateOptionsFree', null, ['number'], [opts]);
    }
  }
}

/** Set when the WASM instance aborted (e.g. out of memory): it cannot be used again in this thread. */
let brokenReason: string | null = null;

/** The abort as a sentence; its own text ('Aborted(…)', 'memory access out of bounds') goes to the log. */
function engineBroken(reason: string): ExtractionError {
  const what = /out of memory|OOM/i.test(reason) ? 'it ran out of memory' : 'it crashed';
  return new ExtractionError(
    `The GIS engine stopped on this document (${what}); the worker thread must be replaced before GIS documents can be read again.`,
    'extraction_failed',
    true,
    { cause: reason },
  );
}

/**
 * Runs `fn` with exclusive use of this thread's GDAL. Start-up happens on first use.
 * The job's log is cleared before and the mount removed after, whatever happens.
 */
export function withGdal<T>(fn: (s: GdalSession) => Promise<T>): Promise<T> {
  const run = queue.then(async () => {
    if (brokenReason) throw engineBroken(brokenReason);
    const g = await engine();
    const s = new GdalSession(g);
    s.drainLog();
    try {
      return await fn(s);
    } catch (err) {
      const msg = (err as Error)?.message ?? String(err);
      if (err instanceof WebAssembly.RuntimeError || /\bAborted\(|out of memory|memory access out of bounds/i.test(msg)) {
        brokenReason = msg.slice(0, 200);
        throw engineBroken(brokenReason);
      }
      throw err;
    } finally {
      s.unmount();
      s.drainLog();
    }
  });
  queue = run.catch(() => undefined);
  return run;
}

/** True once the WASM instance of this thread aborted; the thread should be recycled. */
export function gdalBroken(): boolean {
  return brokenReason !== null;
}

// An aborted GDAL instance cannot be reset: the thread retires after this task.
registerBrokenCheck(() => brokenReason);

/** Starts GDAL without running a job (e.g. to warm a thread). */
export async function warmGdal(): Promise<void> {
  await engine();
}
