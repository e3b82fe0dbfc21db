// Statements of an SQL file as a stream: the file is decoded in pieces cut at line breaks,
// split as far as the text read so far allows (the splitters say where to resume), and each
// statement is handed on with its absolute offsets and line/column positions. Memory holds
// the piece being split and the statement in flight, not the file; a statement longer than
// a piece makes the next read as large as what is pending, so rescans stay linear overall.
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import chardet from 'chardet';
import iconv from 'iconv-lite';
import { ExtractionError } from '../kit/types.js';
import { innerStatements } from './blocks.js';
import { copyDataEnd, copyDataWarning, splitPostgresPart } from './postgres.js';
import { INITIAL_STATE, splitGenericPart, type GenericState } from './split.js';
import type { Dialect, RawStatement } from './statements.js';

/** Decoded text split per pass, at least (chars). (PostgreSQL's scanner, which returns its
 *  tokens as JSON, is given at most ~256 K chars of it at a time: postgres.ts.) */
const PIECE_CHARS = 4 * 1024 * 1024;
const READ_BYTES = 1024 * 1024;
const NON_ASCII = /[^\x00-\x7f]/;

export interface Position {
  offset: number;
  line: number;
  column: number;
}

export interface StreamedInner {
  text: string;
  start: Position;
  end: Position;
  depth: number;
}

export interface StreamedStatement {
  raw: RawStatement;
  text: string;
  start: Position;
  end: Position;
  inner: StreamedInner[];
  /** Byte offsets in the upload (BOM included) of its first byte and just after its last. */
  bytes: { start: number; end: number };
}

export interface Directive {
  kind: string;
  line: number;
  text: string;
}

export interface Encoding {
  encoding: string;
  /** Bytes of byte-order mark to skip. */
  skip: number;
}

/** BOM first, then UTF-16 without a BOM (NULs in every other byte), strict UTF-8 (whole file), a charset detector. */
export async function detectEncoding(filePath: string, size: number): Promise<Encoding> {
  const fh = await open(filePath, 'r');
  let head: Buffer;
  try {
    head = Buffer.alloc(Math.min(size, READ_BYTES));
    await fh.read(head, 0, head.length, 0);
  } finally {
    await fh.close();
  }
  if (head.length >= 3 && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return { encoding: 'utf-8', skip: 3 };
  if (head.length >= 2 && head[0] === 0xff && head[1] === 0xfe) return { encoding: 'utf-16le', skip: 2 };
  if (head.length >= 2 && head[0] === 0xfe && head[1] === 0xff) return { encoding: 'utf-16be', skip: 2 };
  const sample = head.subarray(0, 64 * 1024);
  if (sample.includes(0)) {
    let even = 0;
    let odd = 0;
    for (let i = 0; i < sample.length; i++) if (sample[i] === 0) i & 1 ? odd++ : even++;
    const half = sample.length / 2;
    if (odd > half * 0.3 && even < half * 0.05) return { encoding: 'utf-16le', skip: 0 };
    if (even > half * 0.3 && odd < half * 0.05) return { encoding: 'utf-16be', skip: 0 };
    throw new ExtractionError('the file contains binary data (NUL bytes), not SQL text');
  }
  if (await isUtf8File(filePath)) return { encoding: 'utf-8', skip: 0 };
  const guess = chardet.detect(head) ?? 'windows-1252';
  const enc = iconv.encodingExists(guess) && !/^utf-?8$/i.test(guess) ? guess : 'windows-1252';
  return { encoding: enc.toLowerCase(), skip: 0 };
}

/**
 * Bytes a piece of decoded text took in the file: native for UTF-8, two per code unit for
 * UTF-16, re-encoded for the rest (legacy files; exact for single-byte encodings, where a
 * byte that decodes to U+FFFD re-encodes to one byte too).
 */
export function byteLength(encoding: string): (text: string) => number {
  if (encoding === 'utf-8') return (t) => Buffer.byteLength(t, 'utf8');
  if (encoding === 'utf-16le' || encoding === 'utf-16be') return (t) => 2 * t.length;
  return (t) => iconv.encode(t, encoding).length;
}

async function isUtf8File(filePath: string): Promise<boolean> {
  const dec = new TextDecoder('utf-8', { fatal: true });
  try {
    for await (const chunk of createReadStream(filePath, { highWaterMark: READ_BYTES })) {
      if ((chunk as Buffer).includes(0)) throw new ExtractionError('the file contains binary data (NUL bytes), not SQL text');
      dec.decode(chunk as Buffer, { stream: true });
    }
    dec.decode();
    return true;
  } catch (e) {
    if (e instanceof ExtractionError) throw e;
    return false;
  }
}

/** Line/column of offsets in a piece of text whose first char is at `base` (line, column). */
class PieceLines {
  private starts: number[] | null = null;

  constructor(
    private readonly text: string,
    private readonly base: Position,
  ) {}

  at(local: number): Position {
    if (!this.starts) {
      this.starts = [0];
      const t = this.text;
      for (let i = 0; i < t.length; i++) {
        const c = t.charCodeAt(i);
        if (c === 10 || (c === 13 && t.charCodeAt(i + 1) !== 10)) this.starts.push(i + 1);
      }
    }
    const s = this.starts;
    let lo = 0;
    let hi = s.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (s[mid] <= local) lo = mid;
      else hi = mid - 1;
    }
    const offset = this.base.offset + local;
    return lo === 0 ? { offset, line: this.base.line, column: this.base.column + local } : { offset, line: this.base.line + lo, column: local - s[lo] + 1 };
  }
}

export interface StreamOptions {
  /** Decoded chars per pass, at least (default 4 Mi); bytes per read (default 1 MiB). Small in tests. */
  pieceChars?: number;
  readBytes?: number;
  onDirective(d: Directive): void;
  onWarning(w: string): void;
  onProgress(bytesRead: number): void;
}

/** Top-level statements of the file, in order, as they are split. */
export async function* streamStatements(filePath: string, enc: Encoding, dialect: Dialect, opts: StreamOptions): AsyncGenerator<StreamedStatement> {
  const decoder = enc.encoding === 'utf-8' ? new TextDecoder('utf-8') : null;
  const iconvDecoder = decoder ? null : iconv.getDecoder(enc.encoding);
  const decode = (b: Buffer): string => (decoder ? decoder.decode(b, { stream: true }) : iconvDecoder!.write(b));
  let pending = '';
  let carry = '';
  let base: Position = { offset: 0, line: 1, column: 1 };
  // The byte offset of `base` in the upload: statements' byte offsets are counted from it,
  // over the text between them only, so each char is measured once.
  let baseByte = enc.skip;
  const bytesOf = byteLength(enc.encoding);
  let state: GenericState = { ...INITIAL_STATE };
  const pieceChars = opts.pieceChars ?? PIECE_CHARS;
  let nextScanAt = pieceChars;
  let bytes = 0;
  const warnings = new Set<string>();
  let inCopyData = false; // PostgreSQL: inside a large COPY … FROM STDIN data block
  let copyDataBlocks = 0; // PostgreSQL: COPY … FROM STDIN data blocks passed over, for one warning at the end

  /** Drops `n` chars of pending text (moving the base position past them). */
  const drop = (n: number): void => {
    base = new PieceLines(pending, base).at(n);
    baseByte += bytesOf(pending.slice(0, n));
    pending = pending.slice(n);
  };

  function* pass(final: boolean): Generator<StreamedStatement> {
    if (inCopyData) {
      const end = copyDataEnd(pending);
      if (end === null) {
        // All of it is data: skipped without being held.
        drop(final ? pending.length : pending.lastIndexOf('\n') + 1);
        nextScanAt = pieceChars;
        return;
      }
      drop(end);
      inCopyData = false;
    }
    const r =
      dialect === 'PostgreSql'
        ? (() => {
            const p = splitPostgresPart(pending, final);
            inCopyData = p.inCopyData;
            copyDataBlocks += p.copyDataBlocks;
            const meta = (p.extras.psqlMetaCommands as { offset: number; text: string }[] | undefined) ?? [];
            return { statements: p.statements, warnings: p.warnings, resume: p.resume, state, directives: meta.map((d) => ({ ...d, kind: 'psql' })) };
          })()
        : splitGenericPart(pending, dialect, final, state);
    const lines = new PieceLines(pending, base);
    for (const d of r.directives) opts.onDirective({ kind: d.kind, line: lines.at(d.offset).line, text: d.text });
    for (const said of r.warnings) {
      // The splitters name offsets in the text they were given, a piece of the file: say where in the file.
      const w = said.replace(/\boffset (\d+)/g, (_m, n: string) => {
        const at = lines.at(Number(n));
        return `line ${at.line}, column ${at.column}`;
      });
      if (!warnings.has(w)) {
        warnings.add(w);
        opts.onWarning(w);
      }
    }
    // Most scripts are ASCII: one scan of the piece spares a byteLength call per statement.
    const ascii = enc.encoding === 'utf-8' && !NON_ASCII.test(pending);
    const measure = (from: number, to: number): number => (ascii ? to - from : bytesOf(pending.slice(from, to)));
    let at = 0; // chars of `pending` measured so far, ending at byte `atByte`
    let atByte = baseByte;
    for (const raw of r.statements) {
      const startByte = atByte + measure(at, raw.start);
      at = raw.end;
      atByte = startByte + measure(raw.start, raw.end);
      const inner = raw.inner ?? (dialect === 'MsSql' ? [] : innerStatements(pending, raw.start, raw.end, dialect === 'PostgreSql' ? 'PgFallback' : dialect));
      yield {
        raw: { ...raw, start: base.offset + raw.start, end: base.offset + raw.end, termEnd: base.offset + raw.termEnd, inner: undefined },
        text: pending.slice(raw.start, raw.end),
        start: lines.at(raw.start),
        end: lines.at(raw.end),
        inner: inner.map((x) => ({ text: pending.slice(x.start, x.end), start: lines.at(x.start), end: lines.at(x.end), depth: x.depth })),
        bytes: { start: startByte, end: atByte },
      };
    }
    const resume = r.resume;
    base = lines.at(resume);
    baseByte = atByte + measure(at, resume);
    pending = pending.slice(resume);
    state = r.state;
    // A statement longer than a piece: read as much again before the next pass.
    nextScanAt = Math.max(pieceChars, pending.length * 2);
    // Data that follows in this text is skipped at once.
    if (inCopyData && pending.length) yield* pass(final);
  }

  for await (const chunk of createReadStream(filePath, { start: enc.skip, highWaterMark: opts.readBytes ?? READ_BYTES })) {
    bytes += (chunk as Buffer).length;
    opts.onProgress(bytes);
    // Only the new text is searched for a line break: a dump's one-line INSERT of many MB
    // would otherwise be flattened and rescanned at every read.
    const text = decode(chunk as Buffer);
    const cut = text.lastIndexOf('\n') + 1;
    if (cut === 0) {
      carry += text;
      continue;
    }
    pending += carry + text.slice(0, cut);
    carry = text.slice(cut);
    if (pending.length >= nextScanAt) yield* pass(false);
  }
  pending += carry + (decoder ? decoder.decode() : (iconvDecoder!.end() ?? ''));
  yield* pass(true);
  if (copyDataBlocks) opts.onWarning(copyDataWarning(copyDataBlocks));
}
