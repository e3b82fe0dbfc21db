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

/** Records of the sample under a dialect; a record cut by the sample's end is left out. */
export function sampleRecords(text: string, d: Dialect, complete: boolean, limit = MAX_SNIFF_RECORDS): string[][] {
  const tok = new CsvTokenizer({ delimiter: d.delimiter.charCodeAt(0), quote: d.quoteChar.charCodeAt(0), maxFieldChars: 1 << 20 });
  const out: string[][] = [];
  const sink = (f: string[], n: number): void => {
    if (out.length < limit) out.push(f.slice(0, n));
  };
  tok.push(text, sink);
  if (complete) tok.end(sink);
  return out;
}

function quoteScore(text: string, q: string): number {
  // Fields that open and close with q next to delimiters or line ends.
  const re = new RegExp(`(?:^|[,;\\t|\\r\\n])${q}[^${q}\\r\\n]*${q}(?=[,;\\t|\\r\\n]|$)`, 'g');
  const t = text.length > 65536 ? text.slice(0, 65536) : text;
  return t.match(re)?.length ?? 0;
}

export function sniffDialect(text: string, complete: boolean, fileName: string | null): Dialect {
  const quoteChar = quoteScore(text, "'") > quoteScore(text, '"') ? "'" : '"';
  const lower = (fileName ?? '').toLowerCase();
  const tabName = lower.endsWith('.tsv') || lower.endsWith('.tab');
  // The first 256 Ki characters, or the first line whole when it is longer (a wide header).
  const firstLineEnd = text.search(/[\r\n]/) + 1;
  const t = text.slice(0, Math.max(262144, firstLineEnd || text.length));
  const cut = complete && t.length === text.length;
  let best: { delimiter: string; consistency: number; mode: number; rank: number } | null = null;
  CANDIDATES.forEach((delimiter, order) => {
    const recs = sampleRecords(t, { delimiter, quoteChar }, cut);
    if (!recs.length) return;
    const freq = new Map<number, number>();
    for (const r of recs) freq.set(r.length, (freq.get(r.length) ?? 0) + 1);
    let mode = 0;
    let f = 0;
    for (const [len, k] of freq) if (k > f || (k === f && len > mode)) [mode, f] = [len, k];
    if (mode < 2) return;
    const consistency = Math.round((f / recs.length) * 20) / 20;
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
