// The one guard for every ZIP the service opens: Office/OpenDocument packages, GIS archives
// (ShpZip, MapInfo, FileGdb, KMZ) and the archives inside them, Office attachments of e-mails.
//
// A ZIP's headers can say anything, so declared sizes only ever refuse early; the bound is the
// bytes actually inflated, counted chunk by chunk as they leave zlib. A member stops the moment
// it inflates past its declared size, and every archive of one upload (nested ones and those
// an e-mail's attachments hold included) draws from one ArchiveBudget, so a ZIP of ZIPs cannot
// multiply the limit. Entry counts, compression ratios and unsafe names are checked here too,
// with one set of limits (DOCPARSE_ARCHIVE_*, read by config.ts: ParserSettings.archive).
import { AsyncLocalStorage } from 'node:async_hooks';
import { stat } from 'node:fs/promises';
import { Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createInflateRaw } from 'node:zlib';
import yauzl from 'yauzl';
import { printable } from './kit/reasons.js';
import { ExtractionError } from './kit/types.js';
import { DEFAULT_ARCHIVE_LIMITS, type ArchiveLimits } from './settings.js';

export type { ArchiveLimits } from './settings.js';

/** What one upload's archives have used so far. */
export class ArchiveBudget {
  /** Bytes inflated so far; a member, or a whole file opened again, is counted once. */
  inflatedBytes = 0;
  entries = 0;
  /** Size of the outermost archives opened: what archives inside them may expand relative to. */
  archiveBytes = 0;
  /** Files (by identity and version) whose every member was inflated and charged here. */
  readonly proven = new Set<string>();
  /** `limits`: the configured ones (ParserSettings.archive); the defaults for a parser run without a node. */
  constructor(readonly limits: ArchiveLimits = DEFAULT_ARCHIVE_LIMITS) {}
}

const uploadBudget = new AsyncLocalStorage<ArchiveBudget>();

/** Runs `work` so that every archive it opens (in nested parsers too) draws from `budget`. */
export function withArchiveBudget<T>(budget: ArchiveBudget, work: () => Promise<T>): Promise<T> {
  return uploadBudget.run(budget, work);
}

/** The budget of the upload being parsed, or a fresh one when no caller set one. */
export function activeArchiveBudget(): ArchiveBudget {
  return uploadBudget.getStore() ?? new ArchiveBudget();
}

// ---- failure sentences --------------------------------------------------------------------

function size(n: number): string {
  if (n >= 1024 ** 3 && n % 1024 ** 3 === 0) return `${n / 1024 ** 3} GiB`;
  if (n >= 1024 ** 2 && n % 1024 ** 2 === 0) return `${n / 1024 ** 2} MiB`;
  return `${n} bytes`;
}

/** A member's name as a reason shows it: a short excerpt, control bytes never quoted. */
const quoted = (name: string) => printable(name, 60);

/**
 * What yauzl's or zlib's error says, as a clause of a sentence (their own words go to the log):
 * the central directory, a member's local header or its compressed data.
 */
function zipTrouble(err: unknown): string {
  const e = err as (Error & { code?: unknown }) | undefined;
  const text = String(e?.message ?? '');
  if (/end of central directory record signature not found/i.test(text)) return 'its end-of-archive record is missing';
  if (/comment length/i.test(text)) return 'its end-of-archive record is damaged or followed by extra bytes';
  if (/multi-disk/i.test(text)) return 'it is one part of a split (multi-disk) archive';
  if (/zip64/i.test(text)) return 'its ZIP64 records are damaged';
  if (/central directory file header signature/i.test(text)) return 'its list of members (the central directory) is damaged';
  if (/local file header signature/i.test(text)) return "a member's local header is damaged";
  if (/overflows file bounds|unexpected EOF/i.test(text)) return 'the data runs past the end of the file (it is truncated)';
  if (/size mismatch|too many bytes in the stream|not enough bytes in the stream/i.test(text)) return 'its data does not match the size its header declares';
  if (e?.code === 'Z_BUF_ERROR' || /unexpected end of file/i.test(text)) return 'its compressed data ends early (the archive is truncated)';
  if (typeof e?.code === 'string' && e.code.startsWith('Z_')) return 'its compressed data is damaged';
  return 'its structure is damaged';
}

const refuse = {
  overBudget: (limits: ArchiveLimits, why: string) =>
    new ExtractionError(
      `The archive expands to more than ${size(limits.maxBytes)}, the limit for one upload (archives inside it included): ${why}; refused as a possible zip bomb.`,
    ),
  lyingMember: (m: ArchiveMember) =>
    new ExtractionError(
      `The archive's member ${quoted(m.name)} inflates to more than the ${m.declaredBytes} bytes its header declares; refused as a possible zip bomb.`,
    ),
  ratio: (m: ArchiveMember, limits: ArchiveLimits) =>
    new ExtractionError(
      `The archive's member ${quoted(m.name)} has a compression ratio of ${Math.round(m.declaredBytes / m.compressedBytes)}:1, above the ${limits.maxRatio}:1 limit; refused as a possible zip bomb.`,
    ),
  nestedRatio: (budget: ArchiveBudget) =>
    new ExtractionError(
      `The archives inside the archive expand to more than ${budget.limits.maxRatio} times the upload's ${budget.archiveBytes} bytes (compression multiplies across levels); refused as a possible zip bomb.`,
    ),
  entries: (limits: ArchiveLimits) =>
    new ExtractionError(`The archive holds more than ${limits.maxEntries} members (archives inside it included), the limit for one upload; refused.`),
  depth: (limits: ArchiveLimits) => new ExtractionError(`The archive nests archives more than ${limits.maxDepth} levels deep; refused.`),
  unsafeName: (name: string, why: string) => new ExtractionError(`The archive holds a member with an unsafe path (${quoted(name)} ${why}); refused.`),
  unreadable: (cause: unknown) =>
    new ExtractionError(`The file is not a readable ZIP archive (${zipTrouble(cause)}); it is truncated or not this format.`, 'extraction_failed', false, {
      cause,
    }),
  corrupt: (cause: unknown) => new ExtractionError(`The ZIP archive is corrupt: ${zipTrouble(cause)}.`, 'extraction_failed', false, { cause }),
  strongEncryption: (cause: unknown) =>
    new ExtractionError('The archive holds a member with strong encryption; password-protected archives cannot be read.', 'encrypted_document', false, {
      cause,
    }),
  damagedMember: (m: ArchiveMember, why: string, cause?: unknown) =>
    new ExtractionError(`The archive's member ${quoted(m.name)} is damaged: ${why}.`, 'extraction_failed', false, { cause }),
  encrypted: (m: ArchiveMember) =>
    new ExtractionError(`The archive's member ${quoted(m.name)} is encrypted; password-protected archives cannot be read.`, 'encrypted_document'),
  method: (m: ArchiveMember, method: number) =>
    new ExtractionError(`The archive's member ${quoted(m.name)} uses compression method ${method}, which cannot be read (only stored and deflated members).`),
};

/** Why a member name may not be used as a path ('..', absolute, drive letter, NUL), or null. */
function unsafeMemberName(name: string): string | null {
  if (name.includes('\0')) return 'contains a NUL character';
  if (name.startsWith('/') || name.startsWith('\\') || /^[A-Za-z]:/.test(name)) return 'is an absolute path';
  if (name.split(/[\\/]+/).includes('..')) return "contains '..'";
  return null;
}

/** yauzl's own name checks fire before the entry is seen: same refusal, same sentence. */
function yauzlNameRefusal(err: Error): ExtractionError | null {
  const m = /^(invalid relative path|absolute path|invalid characters in fileName): (.*)$/s.exec(err.message);
  if (!m) return null;
  const why = m[1] === 'invalid relative path' ? "contains '..'" : m[1] === 'absolute path' ? 'is an absolute path' : 'has invalid characters';
  return refuse.unsafeName(m[2], why);
}

// ---- archives -------------------------------------------------------------------------------

export interface ArchiveMember {
  /** As stored, '/'-separated (yauzl turns backslashes into slashes). */
  name: string;
  /** Uncompressed size the central directory declares: an early refusal, never the bound. */
  declaredBytes: number;
  compressedBytes: number;
  isDirectory: boolean;
  isSymlink: boolean;
  encrypted: boolean;
  entry: yauzl.Entry;
}

/** Members under this size are not held to the compression ratio (small XML parts compress well). */
const RATIO_FLOOR = 1024 * 1024;
/** Largest inflate chunk: few chunks through the meter for big members, small ones for small. */
const MAX_CHUNK = 1024 * 1024;
const MIN_CHUNK = 16 * 1024;

export class GuardedZip {
  private failure: Error | null = null;
  private closed = false;
  /** Members inflated to the end once: their size is proven and already charged to the budget. */
  private readonly charged = new Set<ArchiveMember>();

  private constructor(
    private readonly zip: yauzl.ZipFile,
    readonly budget: ArchiveBudget,
    /** 0 for the upload itself, 1 for an archive inside it, … */
    readonly depth: number,
    /** Identity and version of the file, for ArchiveBudget.proven. */
    private readonly fileKey: string,
  ) {
    // yauzl reports some failures as 'error' events; without a listener they would crash the thread.
    zip.on('error', (err: Error) => (this.failure ??= err));
  }

  /** Opens `file` as an archive at nesting `depth` drawing from `budget`. */
  static async open(file: string, budget: ArchiveBudget, depth = 0): Promise<GuardedZip> {
    if (depth > budget.limits.maxDepth) throw refuse.depth(budget.limits);
    const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
      yauzl.open(file, { lazyEntries: true, autoClose: false, decodeStrings: true, validateEntrySizes: true, strictFileNames: false }, (err, z) =>
        err || !z ? reject(err ?? new Error('no archive')) : resolve(z),
      ),
    ).catch((err: unknown) => {
      throw refuse.unreadable(err);
    });
    const st = await stat(file);
    const fileKey = `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`;
    if (depth === 0 && !budget.proven.has(fileKey)) budget.archiveBytes += st.size;
    return new GuardedZip(zip, budget, depth, fileKey);
  }

  /**
   * Whether this upload already opened this same file and inflated all of it (a package read
   * twice, as spreadsheets are): its members are then neither counted nor charged again.
   */
  get proven(): boolean {
    return this.budget.proven.has(this.fileKey);
  }

  /**
   * Every member of the central directory, after the checks that need no inflating: member
   * count (shared by the upload), unsafe names, declared total against what is left of the
   * budget, and compression ratios.
   */
  async members(): Promise<ArchiveMember[]> {
    const { limits } = this.budget;
    const charge = !this.proven;
    if (charge && this.budget.entries + this.zip.entryCount > limits.maxEntries) throw refuse.entries(limits);
    const out: ArchiveMember[] = [];
    let declared = 0;
    for (let entry = await this.nextEntry(); entry; entry = await this.nextEntry()) {
      if (charge) this.budget.entries++;
      const name = entry.fileName;
      const bad = unsafeMemberName(name);
      if (bad) throw refuse.unsafeName(name, bad);
      const m: ArchiveMember = {
        name,
        declaredBytes: entry.uncompressedSize,
        compressedBytes: entry.compressedSize,
        isDirectory: name.endsWith('/'),
        isSymlink: ((entry.externalFileAttributes >>> 16) & 0o170000) === 0o120000,
        encrypted: (entry.generalPurposeBitFlag & 1) !== 0,
        entry,
      };
      if (charge) declared += m.declaredBytes;
      if (this.budget.inflatedBytes + declared > limits.maxBytes) {
        const before = this.budget.inflatedBytes ? ` on top of the ${this.budget.inflatedBytes} already inflated` : '';
        throw refuse.overBudget(limits, `its headers declare ${declared} bytes${before}`);
      }
      if (this.nestedPastRatio(declared)) throw refuse.nestedRatio(this.budget);
      if (m.declaredBytes > RATIO_FLOOR && m.compressedBytes > 0 && m.declaredBytes / m.compressedBytes > limits.maxRatio) throw refuse.ratio(m, limits);
      out.push(m);
    }
    return out;
  }

  private nextEntry(): Promise<yauzl.Entry | null> {
    return new Promise((resolve, reject) => {
      const settle = (fn: () => void) => {
        this.zip.off('entry', onEntry).off('end', onEnd).off('error', onError);
        fn();
      };
      const onEntry = (e: yauzl.Entry) => settle(() => resolve(e));
      const onEnd = () => settle(() => resolve(null));
      const onError = (err: Error) =>
        settle(() => reject(yauzlNameRefusal(err) ?? (/strong encryption/.test(err.message) ? refuse.strongEncryption(err) : refuse.corrupt(err))));
      if (this.failure) return onError(this.failure);
      this.zip.on('entry', onEntry).on('end', onEnd).on('error', onError);
      this.zip.readEntry();
    });
  }

  /**
   * Inflates one member into `sink`, counting every chunk: it stops the moment the member
   * passes its declared size or the upload passes its byte limit, before the chunk that
   * crossed either reaches the sink. The sink is made only once the member can be read;
   * its own errors (a full disk) pass through.
   */
  async inflate(m: ArchiveMember, openSink: () => Writable): Promise<void> {
    if (m.encrypted) throw refuse.encrypted(m);
    const method = m.entry.compressionMethod;
    if (method !== 0 && method !== 8) throw refuse.method(m, method);
    // Deflated members are inflated here, not by yauzl, so the chunk size is ours and the
    // count happens as the bytes come out of zlib.
    const raw = await new Promise<NodeJS.ReadableStream>((resolve, reject) =>
      this.zip.openReadStream(m.entry, method === 8 ? { decodeFileData: false } : {}, (err, s) =>
        err || !s ? reject(err ?? new Error('no stream')) : resolve(s),
      ),
    ).catch((err: unknown) => {
      throw refuse.damagedMember(m, zipTrouble(err), err);
    });
    const meter = this.meter(m, !this.proven && !this.charged.has(m));
    const sink = openSink();
    try {
      if (method === 8) {
        const chunkSize = Math.min(MAX_CHUNK, Math.max(MIN_CHUNK, m.declaredBytes));
        await pipeline(raw, createInflateRaw({ chunkSize }), meter, sink);
      } else {
        await pipeline(raw, meter, sink);
      }
    } catch (err) {
      if (err instanceof ExtractionError) throw err;
      if ((err as NodeJS.ErrnoException).syscall) throw err; // the sink's file system
      throw refuse.damagedMember(m, zipTrouble(err), err);
    }
    this.charged.add(m);
  }

  /**
   * Inflates and discards every member (once per file and upload): afterwards each one is
   * known to hold at most what it declares, whoever reads the file next.
   */
  async verify(members: ArchiveMember[]): Promise<void> {
    if (this.proven) return;
    for (const m of members) {
      if (m.isDirectory || m.isSymlink || m.encrypted) continue;
      await this.inflate(m, () => new Writable({ write: (_chunk, _enc, done) => done() }));
    }
    this.budget.proven.add(this.fileKey);
  }

  /** Whether inflating `more` bytes here would take a nested upload past its overall ratio. */
  private nestedPastRatio(more: number): boolean {
    const { budget } = this;
    return this.depth > 0 && budget.archiveBytes > 0 && budget.inflatedBytes + more > budget.limits.maxRatio * budget.archiveBytes;
  }

  /** Counts a member's bytes as they come out; `charge`: whether they draw from the budget. */
  private meter(m: ArchiveMember, charge: boolean): Transform {
    const budget = this.budget;
    const nestedPastRatio = (more: number) => this.nestedPastRatio(more);
    let seen = 0;
    return new Transform({
      transform(chunk: Buffer, _enc, done) {
        seen += chunk.length;
        if (seen > m.declaredBytes) return done(refuse.lyingMember(m));
        if (!charge) return done(null, chunk);
        if (budget.inflatedBytes + chunk.length > budget.limits.maxBytes) {
          return done(refuse.overBudget(budget.limits, `inflating its member ${quoted(m.name)} went past it`));
        }
        if (nestedPastRatio(chunk.length)) return done(refuse.nestedRatio(budget));
        budget.inflatedBytes += chunk.length;
        done(null, chunk);
      },
      flush(done) {
        done(seen < m.declaredBytes ? refuse.damagedMember(m, `it inflates to ${seen} bytes, not the ${m.declaredBytes} its header declares`) : null);
      },
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.zip.close();
  }
}
