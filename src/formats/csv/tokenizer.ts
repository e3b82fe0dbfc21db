// Resumable CSV tokenizer over decoded text chunks. It keeps its state between chunks (no
// re-scanning of a record cut by a chunk boundary), accepts \n, \r\n and lone \r as record
// ends outside quotes, and is lenient the way real files need: a quote inside an unquoted
// field is literal, text after a closing quote is appended, an unterminated quoted field runs
// to end of file. Fields are cut with charCode loops and indexOf, never per-cell regexes.

const LF = 10;
const CR = 13;

const S_FIELD_START = 0;
const S_UNQUOTED = 1;
const S_QUOTED = 2;
const S_QUOTE_SEEN = 3;

/** Called once per record with a reused array: only fields[0..count) belong to the record. */
export type RecordSink = (fields: string[], count: number) => void;

export interface TokenizerOptions {
  /** Delimiter character code. */
  delimiter: number;
  /** Quote character code, or -1 for none. */
  quote: number;
  /** A field longer than this (in UTF-16 code units) is truncated (bounds memory). */
  maxFieldChars?: number;
  /** Fields beyond this count in one record are dropped. */
  maxFields?: number;
}

export class CsvTokenizer {
  readonly fields: string[] = [];
  private n = 0;
  private state = S_FIELD_START;
  private partial = '';
  private pendingCR = false;
  private recordQuoted = false;
  /** Set by stop(): push() returns after the record it is in the middle of handing over. */
  private stopped = false;
  private readonly delim: number;
  private readonly quote: number;
  private readonly quoteStr: string;
  private readonly maxFieldChars: number;
  private readonly maxFields: number;
  /** Largest special char code (delimiter, LF, CR): anything above is plain field text. */
  private readonly maxSpecial: number;

  lf = 0;
  crlf = 0;
  cr = 0;
  /** Text found after a closing quote (e.g. `"ab"c`), kept literally. */
  strayQuoteText = 0;
  /** A quoted field was still open at end of input. */
  unterminatedQuote = false;
  truncatedFields = 0;
  droppedFields = 0;

  constructor(opts: TokenizerOptions) {
    this.delim = opts.delimiter;
    this.quote = opts.quote;
    this.quoteStr = opts.quote >= 0 ? String.fromCharCode(opts.quote) : '';
    this.maxFieldChars = opts.maxFieldChars ?? 32 * 1024 * 1024;
    this.maxFields = opts.maxFields ?? 100_000;
    this.maxSpecial = Math.max(opts.delimiter, CR);
  }

  private append(s: string): void {
    if (this.partial.length < this.maxFieldChars) this.partial += s;
    else if (s.length) this.truncatedFields++;
  }

  private addField(v: string): void {
    if (this.n < this.maxFields) this.fields[this.n++] = v;
    else this.droppedFields++;
  }

  /**
   * Called from a sink: the rest of the text pushed is not read (a sampler that has the
   * records it needs). The tokenizer is left mid-text and is not to be used again.
   */
  stop(): void {
    this.stopped = true;
  }

  private endRecord(sink: RecordSink): void {
    const n = this.n;
    this.n = 0;
    // A blank line (one empty, unquoted field) is not a record.
    if (n === 1 && this.fields[0].length === 0 && !this.recordQuoted) return;
    this.recordQuoted = false;
    sink(this.fields, n);
  }

  push(s: string, sink: RecordSink): void {
    const len = s.length;
    if (len === 0) return;
    const D = this.delim;
    const Q = this.quote;
    let i = 0;
    let state = this.state;
    if (this.pendingCR) {
      this.pendingCR = false;
      if (s.charCodeAt(0) === LF) {
        this.crlf++;
        i = 1;
      } else this.cr++;
    }
    while (i < len) {
      if (state === S_FIELD_START) {
        if (s.charCodeAt(i) === Q) {
          state = S_QUOTED;
          this.recordQuoted = true;
          i++;
          continue;
        }
        state = S_UNQUOTED;
      }
      if (state === S_UNQUOTED) {
        let j = i;
        let c = 0;
        const hi = this.maxSpecial;
        while (j < len) {
          c = s.charCodeAt(j);
          if (c > hi) {
            j++;
            continue;
          }
          if (c === D || c === LF || c === CR) break;
          j++;
        }
        if (j === len) {
          this.append(s.slice(i, j));
          break;
        }
        const v = this.partial.length ? this.partial + s.slice(i, j) : s.slice(i, j);
        this.partial = '';
        this.addField(v);
        state = S_FIELD_START;
        if (c === D) {
          i = j + 1;
          continue;
        }
        i = this.newline(s, j, c, sink);
        if (this.stopped) break;
        continue;
      }
      if (state === S_QUOTED) {
        const k = s.indexOf(this.quoteStr, i);
        if (k === -1) {
          this.append(s.slice(i));
          break;
        }
        if (k > i) this.append(s.slice(i, k));
        i = k + 1;
        state = S_QUOTE_SEEN;
        continue;
      }
      // S_QUOTE_SEEN: a quote inside a quoted field, either doubled or closing.
      const c = s.charCodeAt(i);
      if (c === Q) {
        this.append(this.quoteStr);
        i++;
        state = S_QUOTED;
        continue;
      }
      if (c === D) {
        this.addField(this.partial);
        this.partial = '';
        state = S_FIELD_START;
        i++;
        continue;
      }
      if (c === LF || c === CR) {
        this.addField(this.partial);
        this.partial = '';
        state = S_FIELD_START;
        i = this.newline(s, i, c, sink);
        if (this.stopped) break;
        continue;
      }
      // Text after the closing quote: keep it literally as part of the field.
      this.strayQuoteText++;
      state = S_UNQUOTED;
    }
    this.state = state;
  }

  /** Handles the record end at s[j] (c is LF or CR); returns the next index. */
  private newline(s: string, j: number, c: number, sink: RecordSink): number {
    this.endRecord(sink);
    if (c === LF) {
      this.lf++;
      return j + 1;
    }
    if (j + 1 < s.length) {
      if (s.charCodeAt(j + 1) === LF) {
        this.crlf++;
        return j + 2;
      }
      this.cr++;
      return j + 1;
    }
    this.pendingCR = true;
    return j + 1;
  }

  /** Flushes the last record (a file need not end with a newline). */
  end(sink: RecordSink): void {
    if (this.pendingCR) {
      this.pendingCR = false;
      this.cr++;
    }
    const state = this.state;
    if (state === S_QUOTED) this.unterminatedQuote = true;
    if (state === S_FIELD_START && this.n === 0) return;
    this.addField(this.partial);
    this.partial = '';
    this.state = S_FIELD_START;
    this.endRecord(sink);
  }
}
