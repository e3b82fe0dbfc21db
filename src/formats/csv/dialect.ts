// Dialect sniffing on a decoded sample: delimiter (comma, tab, semicolon, pipe), quote
// character, header row presence, and the Eurostat TSV layout.
import { CsvTokenizer } from './tokenizer.js';
import { classify, K_BOOL, K_DATE, K_DATETIME, K_INT, K_NUM } from './values.js';

export interface Dialect {
  delimiter: string;
  quoteChar: string;
}

const CANDIDATES = [',', '\t', ';', '|'];
const MAX_SNIFF_RECORDS = 200;

/**
 * The first `limit` records of the sample under a dialect; a record cut by the sample's end is
 * left out. Tokenizing stops at the limit.
 */
export function sampleRecords(text: string, d: Dialect, complete: boolean, limit = MAX_SNIFF_RECORDS): string[][] {
  const tok = new CsvTokenizer({ delimiter: d.delimiter.charCodeAt(0), quote: d.quoteChar.charCodeAt(0), maxFieldChars: 1 << 20 });
  const out: string[][] = [];
  const sink = (f: string[], n: number): void => {
    out.push(f.slice(0, n));
    if (out.length >= limit) tok.stop();
  };
  if (limit <= 0) return out;
  tok.push(text, sink);
  if (complete && out.length < limit) tok.end(sink);
  return out;
}

const LF = 10;
const CR = 13;
const S_FIELD_START = 0;
const S_UNQUOTED = 1;
const S_QUOTED = 2;
const S_QUOTE_SEEN = 3;

/**
 * The field count of each of the sample's first `limit` records under a delimiter and quote,
 * exactly as CsvTokenizer (one push of `text`, then end() when `complete`) cuts them — blank
 * lines skipped, at most `maxFields` counted, a record cut by the sample's end left out unless
 * `complete` — without making the fields: sniffing needs only the counts, for four delimiters.
 * The states are the tokenizer's (tokenizer.ts); a field's text matters only for telling a
 * blank line, which is a record of one empty, unquoted field.
 */
export function recordLengths(text: string, delimiter: number, quote: number, complete: boolean, limit = MAX_SNIFF_RECORDS, maxFields = 100_000): number[] {
  const out: number[] = [];
  if (limit <= 0) return out;
  const len = text.length;
  const quoteStr = String.fromCharCode(quote);
  const hi = Math.max(delimiter, CR);
  let state = S_FIELD_START;
  let n = 0;
  /** A field of the record was quoted: the record is never a blank line. */
  let quoted = false;
  let i = 0;
  while (i < len) {
    if (state === S_FIELD_START) {
      if (text.charCodeAt(i) === quote) {
        state = S_QUOTED;
        quoted = true;
        i++;
        continue;
      }
      state = S_UNQUOTED;
    }
    let at: number;
    if (state === S_UNQUOTED) {
      let j = i;
      let c = 0;
      while (j < len) {
        c = text.charCodeAt(j);
        if (c > hi) {
          j++;
          continue;
        }
        if (c === delimiter || c === LF || c === CR) break;
        j++;
      }
      if (j === len) break;
      if (n < maxFields) n++;
      state = S_FIELD_START;
      if (c === delimiter) {
        i = j + 1;
        continue;
      }
      // An unquoted field is empty when nothing stood before the line end (after a stray quote, the record is quoted).
      if (!(n === 1 && !quoted && j === i)) out.push(n);
      at = j;
    } else if (state === S_QUOTED) {
      const k = text.indexOf(quoteStr, i);
      if (k === -1) break;
      i = k + 1;
      state = S_QUOTE_SEEN;
      continue;
    } else {
      // S_QUOTE_SEEN: a doubled quote, or the closing one.
      const c = text.charCodeAt(i);
      if (c === quote) {
        i++;
        state = S_QUOTED;
        continue;
      }
      if (c !== delimiter && c !== LF && c !== CR) {
        state = S_UNQUOTED; // text after the closing quote, kept in the field
        continue;
      }
      if (n < maxFields) n++;
      state = S_FIELD_START;
      if (c === delimiter) {
        i++;
        continue;
      }
      out.push(n);
      at = i;
    }
    // A record ended at `at` (LF or CR).
    n = 0;
    quoted = false;
    if (out.length >= limit) return out;
    i = text.charCodeAt(at) === CR && text.charCodeAt(at + 1) === LF ? at + 2 : at + 1;
  }
  // The last record, when the sample is the whole text (it need not end with a newline).
  if (complete && !(state === S_FIELD_START && n === 0)) out.push(n < maxFields ? n + 1 : n);
  return out;
}

/** Fields that open and close with the quote next to delimiters or line ends. */
const quotedFields = (q: string) => new RegExp(`(?:^|[,;\\t|\\r\\n])${q}[^${q}\\r\\n]*${q}(?=[,;\\t|\\r\\n]|$)`, 'g');
const QUOTED_FIELDS: Record<string, RegExp> = { "'": quotedFields("'"), '"': quotedFields('"') };

function quoteScore(text: string, q: '"' | "'"): number {
  const t = text.length > 65536 ? text.slice(0, 65536) : text;
  if (t.indexOf(q) < 0) return 0;
  return t.match(QUOTED_FIELDS[q])?.length ?? 0;
}

export function sniffDialect(text: string, complete: boolean, fileName: string | null): Dialect {
  // Double quotes unless single ones score higher (none at all is the common case: no scan for '"').
  const single = quoteScore(text, "'");
  const quoteChar = single > 0 && single > quoteScore(text, '"') ? "'" : '"';
  const lower = (fileName ?? '').toLowerCase();
  const tabName = lower.endsWith('.tsv') || lower.endsWith('.tab');
  // The first 256 Ki characters, or the first line whole when it is longer (a wide header).
  const firstLineEnd = text.search(/[\r\n]/) + 1;
  const t = text.slice(0, Math.max(262144, firstLineEnd || text.length));
  const cut = complete && t.length === text.length;
  let best: { delimiter: string; consistency: number; mode: number; rank: number } | null = null;
  CANDIDATES.forEach((delimiter, order) => {
    // Absent, it would cut every record into one field, and one field is no delimiter's.
    if (t.indexOf(delimiter) < 0) return;
    const lengths = recordLengths(t, delimiter.charCodeAt(0), quoteChar.charCodeAt(0), cut);
    if (!lengths.length) return;
    const freq = new Map<number, number>();
    for (const n of lengths) freq.set(n, (freq.get(n) ?? 0) + 1);
    let mode = 0;
    let f = 0;
    for (const [len, k] of freq) if (k > f || (k === f && len > mode)) [mode, f] = [len, k];
    if (mode < 2) return;
    const consistency = Math.round((f / lengths.length) * 20) / 20;
    const rank = (delimiter === '\t' && tabName ? 10 : 0) - order;
    const better =
      !best || consistency > best.consistency || (consistency === best.consistency && (mode > best.mode || (mode === best.mode && rank > best.rank)));
    if (better) best = { delimiter, consistency, mode, rank };
  });
  const chosen = best as { delimiter: string } | null;
  return { delimiter: chosen ? chosen.delimiter : tabName ? '\t' : ',', quoteChar };
}

function isTyped(cell: string): boolean {
  const k = classify(cell);
  return k === K_INT || k === K_NUM || k === K_BOOL || k === K_DATE || k === K_DATETIME;
}

/**
 * Header heuristic: the first record is a header when its cells are text (not numbers,
 * booleans or dates) — the types below decide nothing when they are text too, in which case
 * a header is assumed, as most tools do. A first record with any typed cell is data.
 */
export function detectHeader(records: string[][]): boolean {
  const first = records[0];
  if (!first) return false;
  let nonEmpty = 0;
  for (const cell of first) {
    if (cell.trim().length === 0) continue;
    nonEmpty++;
    if (isTyped(cell)) return false;
  }
  if (nonEmpty === 0) return false;
  // Mostly-empty first rows are data rows with gaps rather than headers.
  return nonEmpty * 2 >= first.length;
}

// Eurostat TSV: header "dim1,dim2\time<TAB>2010 <TAB>2011 ", rows "A,B<TAB>1.5 p<TAB>: ".
// Expanded (as GDAL does) into dim columns plus, per period, a value and a flag column.

export interface EurostatLayout {
  dims: number;
}

export function detectEurostat(delimiter: string, header: string[] | undefined): EurostatLayout | null {
  if (delimiter !== '\t' || !header || header.length < 2) return null;
  const m = /^([^\\]+)\\[^\\]*$/.exec(header[0]);
  if (!m) return null;
  return { dims: m[1].split(',').length };
}

export function expandEurostatHeader(header: string[], n: number): string[] {
  const dims = header[0].slice(0, header[0].indexOf('\\')).split(',');
  const out = dims.map((d) => d.trim());
  for (let i = 1; i < n; i++) {
    const p = header[i].trim();
    out.push(p, `${p}_flag`);
  }
  return out;
}

/** Expands one data record into out; returns the new field count. */
export function expandEurostatRecord(layout: EurostatLayout, fields: string[], n: number, out: string[]): number {
  let k = 0;
  const keys = n > 0 ? fields[0].split(',') : [];
  for (let d = 0; d < layout.dims; d++) out[k++] = d < keys.length ? keys[d] : '';
  for (let i = 1; i < n; i++) {
    const cell = fields[i].trim();
    const sp = cell.indexOf(' ');
    const value = sp < 0 ? cell : cell.slice(0, sp);
    out[k++] = value === ':' ? '' : value;
    out[k++] = sp < 0 ? '' : cell.slice(sp + 1).trim();
  }
  return k;
}
