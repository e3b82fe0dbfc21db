// Page layout from fragments: reading-order regions (one per page in SingleColumn; columns
// found by whitespace gutters in MultiColumn, with full-width bands between column areas),
// lines within a region (fragments on one baseline, left to right), and text blocks
// (paragraph-like runs of lines split on vertical gaps, font changes and list markers).
import { hasRtlChar, isRtl, type Fragment } from './fragment.js';
import type { Word } from './word.js';

export interface Line {
  text: string;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  size: number;
  bold: boolean;
  italic: boolean;
  font: string;
  chars: number;
  /** Marked-content ID of the line's main fragment (tagged PDFs), -1 when none. */
  mcid?: number;
}

export interface Region {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  /** 0-based column index within its band group, or null when full width. */
  column: number | null;
  columns: number;
  frags: Fragment[];
}

export interface RawBlock {
  /** The block's lines; absent on blocks laid out in WASM (SingleColumn keeps no lines). */
  lines?: Line[];
  lineCount: number;
  text: string;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  size: number;
  bold: boolean;
  italic: boolean;
  font: string;
  chars: number;
  listMarker: string | null;
  column: number | null;
  /** Mean OCR word confidence (OCR blocks only). */
  confidence?: number;
  /** Structure tree element type (tagged PDFs, Advanced). */
  structType?: string;
  /** The block's words with their boxes (Advanced, text layer). */
  words?: Word[];
}

const LIST_MARKER = /^(?:[•◦▪▫●○■□►▸‣⁃∙·\-–—*]|\(?\d{1,3}[.)]|\(?[a-zA-Z][.)]|\(?(?:i|ii|iii|iv|v|vi|vii|viii|ix|x)[.)])\s+/;

/** Could LIST_MARKER match? Most lines start with a word, which this tells from its first two characters. */
function mayStartWithMarker(text: string): boolean {
  const c = text.charCodeAt(0);
  const letter = (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
  if (!letter) return true;
  // A letter opens a marker only as "a." / "a)" or as a lower-case roman numeral (i, v, x …).
  const d = text.charCodeAt(1);
  return d === 0x2e || d === 0x29 || c === 0x69 || c === 0x76 || c === 0x78;
}

function listMarkerOf(text: string): string | null {
  if (!mayStartWithMarker(text)) return null;
  const m = LIST_MARKER.exec(text);
  return m ? m[0].trim() : null;
}

const MARKER_ONLY = /^(?:[•◦▪▫●○■□►▸‣⁃∙·\-–—*]|\(?\d{1,2}[.)]|\(?[a-zA-Z][.)]|\(?(?:i|ii|iii|iv|v|vi|vii|viii|ix|x)[.)])$/;

const CJK = /[\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef\ufe30-\ufe4f]/;

/**
 * Vertical writing (CJK): turns the page a quarter so that vertical columns, read right to
 * left, become horizontal lines read top to bottom; `back` maps a box to page coordinates.
 */
export function toVertical(frags: Fragment[], pageWidth: number): Fragment[] {
  return frags.map((f) => ({ ...f, x0: f.y0, x1: f.y1, y0: pageWidth - f.x1, y1: pageWidth - f.x0 }));
}
export function fromVertical(b: { x0: number; y0: number; x1: number; y1: number }, pageWidth: number): void {
  const { x0, y0, x1, y1 } = b;
  b.x0 = pageWidth - y1;
  b.x1 = pageWidth - y0;
  b.y0 = x0;
  b.y1 = x1;
}

/**
 * Array.prototype.sort(cmp), skipped when `a` is already in order (fragments and lines mostly
 * come top to bottom, left to right): the check is the sort's own first run detection, so
 * the result is the same array the (stable) sort would leave, without its setup per call.
 */
function sortInPlace<T>(a: T[], cmp: (x: T, y: T) => number): T[] {
  for (let i = 1; i < a.length; i++) if (cmp(a[i], a[i - 1]) < 0) return a.sort(cmp);
  return a;
}

function median(xs: number[]): number {
  if (!xs.length) return 0;
  // A typed array sorts numerically without calling back into JavaScript per comparison.
  const s = Float64Array.from(xs).sort();
  return s[s.length >> 1];
}

function extent(frags: Fragment[]): { x0: number; y0: number; x1: number; y1: number } {
  let x0 = Infinity,
    y0 = Infinity,
    x1 = -Infinity,
    y1 = -Infinity;
  for (const f of frags) {
    if (f.x0 < x0) x0 = f.x0;
    if (f.y0 < y0) y0 = f.y0;
    if (f.x1 > x1) x1 = f.x1;
    if (f.y1 > y1) y1 = f.y1;
  }
  return { x0, y0, x1, y1 };
}

/** SingleColumn: the whole page is one region, read top to bottom. */
export function singleRegion(frags: Fragment[]): Region[] {
  if (!frags.length) return [];
  return [{ ...extent(frags), column: null, columns: 1, frags }];
}

/** Horizontal bands: fragments whose vertical cores overlap, chained, top to bottom. */
function bands(frags: Fragment[]): Fragment[][] {
  const sorted = [...frags].sort((a, b) => a.y0 - b.y0);
  const out: Fragment[][] = [];
  let cur: Fragment[] = [];
  let bottom = -Infinity;
  for (const f of sorted) {
    const h = f.y1 - f.y0;
    const top = f.y0 + h * 0.25;
    const bot = f.y1 - h * 0.25;
    if (cur.length && top > bottom) {
      out.push(cur);
      cur = [];
      bottom = -Infinity;
    }
    cur.push(f);
    if (bot > bottom) bottom = bot;
  }
  if (cur.length) out.push(cur);
  return out;
}

/** Merged x-coverage: sorted, disjoint intervals as a flat list start0, end0, start1, end1, … */
type Cov = number[];

const byX0 = (a: Fragment, b: Fragment) => a.x0 - b.x0;

/** Sorted, merged x-coverage of fragments (optionally merged into an existing coverage). */
function coverage(frags: Fragment[], base: Cov = []): Cov {
  // `base` is already sorted: sort only the new intervals, then merge the two runs (the union
  // does not depend on the order of intervals with equal starts).
  const add = frags.slice().sort(byX0);
  const out: Cov = [];
  let i = 0,
    j = 0;
  while (i < base.length || j < add.length) {
    let a: number, b: number;
    if (j >= add.length || (i < base.length && !(add[j].x0 < base[i]))) {
      a = base[i];
      b = base[i + 1];
      i += 2;
    } else {
      a = add[j].x0;
      b = add[j].x1;
      j++;
    }
    const n = out.length;
    if (n && a <= out[n - 1]) {
      if (b > out[n - 1]) out[n - 1] = b;
    } else out.push(a, b);
  }
  return out;
}

/** True when a merged coverage leaves an interior gap of at least minGap inside [lo, hi]. */
function hasGutter(cov: Cov, lo: number, hi: number, minGap: number): boolean {
  for (let k = 2; k < cov.length; k += 2) if (cov[k] - cov[k - 1] >= minGap && cov[k - 1] > lo && cov[k] < hi) return true;
  return false;
}

/** Interior empty x-intervals (gutters) of at least minGap inside [lo, hi]. */
function gutters(frags: Fragment[], lo: number, hi: number, minGap: number): [number, number][] {
  const iv = frags.map((f) => [f.x0, f.x1] as [number, number]).sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  let reach = lo;
  let started = false;
  for (const [a, b] of iv) {
    if (started && a - reach >= minGap && reach > lo && a < hi) out.push([reach, a]);
    if (b > reach) reach = b;
    started = true;
  }
  return out;
}

/** MultiColumn: regions in reading order (bands top to bottom, columns left to right). */
export function columnRegions(frags: Fragment[], depth = 0): Region[] {
  if (!frags.length) return [];
  const ext = extent(frags);
  const sizes = frags.map((f) => f.size).filter((s) => s > 0);
  const body = median(sizes) || 10;
  const minGap = Math.max(body * 0.9, 5);
  const bs = bands(frags);
  // cov: merged coverage of a gutter group's bands (not kept for full-width groups: unused).
  type Group = { frags: Fragment[]; gut: boolean; bands: number; cov: Cov; bottom: number };
  let groups: Group[] = [];
  let cur: Group | null = null;
  for (const b of bs) {
    const bcov = coverage(b);
    const bg = hasGutter(bcov, ext.x0, ext.x1, minGap);
    let bTop = Infinity,
      bBottom = -Infinity;
    for (const f of b) {
      if (f.y0 < bTop) bTop = f.y0;
      if (f.y1 > bBottom) bBottom = f.y1;
    }
    if (!cur) {
      cur = { frags: [...b], gut: bg, bands: 1, cov: bcov, bottom: bBottom };
      continue;
    }
    if (cur.gut) {
      const ucov = bTop - cur.bottom < body * 3 ? coverage(b, cur.cov) : null;
      if (ucov && hasGutter(ucov, ext.x0, ext.x1, minGap)) {
        cur.frags.push(...b);
        cur.cov = ucov;
        cur.bands++;
        cur.bottom = Math.max(cur.bottom, bBottom);
        continue;
      }
      groups.push(cur);
      cur = { frags: [...b], gut: bg, bands: 1, cov: bcov, bottom: bBottom };
      continue;
    }
    if (bg) {
      groups.push(cur);
      cur = { frags: [...b], gut: true, bands: 1, cov: bcov, bottom: bBottom };
      continue;
    }
    cur.frags.push(...b);
    cur.bands++;
    cur.bottom = Math.max(cur.bottom, bBottom);
  }
  if (cur) groups.push(cur);
  // A gutter seen on one or two lines only is a wide word gap or a tab stop, not columns:
  // fold such groups into their full-width neighbours.
  const merged: Group[] = [];
  for (const g of groups) {
    if (g.gut && g.bands < 3) g.gut = false;
    const last = merged[merged.length - 1];
    if (last && !last.gut && !g.gut) {
      last.frags.push(...g.frags);
      last.bands += g.bands;
    } else merged.push(g);
  }
  groups = merged;

  const out: Region[] = [];
  for (const g of groups) {
    const gext = extent(g.frags);
    let gs = g.gut ? gutters(g.frags, gext.x0, gext.x1, minGap) : [];
    // List markers ("•", "1.", "a)") set off by a tab are not a column of their own.
    if (gs.length) {
      const leftOf = g.frags.filter((f) => f.x1 <= gs[0][0] + 0.5);
      if (leftOf.length && gs[0][0] - gext.x0 < body * 3 && leftOf.every((f) => MARKER_ONLY.test(f.text))) gs = gs.slice(1);
    }
    if (!gs.length) {
      out.push({ ...gext, column: null, columns: 1, frags: g.frags });
      continue;
    }
    const cols: Fragment[][] = gs.map(() => []);
    cols.push([]);
    for (const f of g.frags) {
      const cx = (f.x0 + f.x1) / 2;
      let k = 0;
      while (k < gs.length && cx > gs[k][1] - (gs[k][1] - gs[k][0]) / 2) k++;
      cols[k].push(f);
    }
    const nonEmpty = cols.filter((c) => c.length);
    nonEmpty.forEach((c, i) => {
      // A column may itself hold a full-width band over sub-columns: recurse once.
      const sub = depth < 1 ? columnRegions(c, depth + 1) : [{ ...extent(c), column: null, columns: 1, frags: c }];
      for (const r of sub) out.push({ ...r, column: r.column === null ? i : r.column, columns: Math.max(nonEmpty.length, r.columns) });
    });
  }
  return out;
}

/** Lines of a region: fragments clustered by baseline, each line left to right. */
export function regionLines(frags: Fragment[]): Line[] {
  const sorted = sortInPlace([...frags], (a, b) => (a.y0 + a.y1) / 2 - (b.y0 + b.y1) / 2);
  const rows: Fragment[][] = [];
  let row: Fragment[] = [];
  let ry0 = 0,
    ry1 = 0;
  for (const f of sorted) {
    if (row.length) {
      const h = Math.min(ry1 - ry0, f.y1 - f.y0);
      const ov = Math.min(ry1, f.y1) - Math.max(ry0, f.y0);
      const cy = (f.y0 + f.y1) / 2;
      if (ov >= h * 0.5 || (cy > ry0 && cy < ry1 && ov > h * 0.3)) {
        row.push(f);
        // Keep the row's band anchored on its first (largest) fragment to avoid drift.
        continue;
      }
      rows.push(row);
    }
    row = [f];
    ry0 = f.y0;
    ry1 = f.y1;
  }
  if (row.length) rows.push(row);
  const lines: Line[] = [];
  for (const r of rows) {
    sortInPlace(r, (a, b) => a.x0 - b.x0);
    // (isRtl needs a Hebrew/Arabic letter: rows without one skip building the joined text.)
    if (r.some((f) => hasRtlChar(f.text)) && isRtl(r.map((f) => f.text).join(''))) r.reverse();
    let text = '';
    let x0 = Infinity,
      y0 = Infinity,
      x1 = -Infinity,
      y1 = -Infinity;
    let chars = 0;
    let dom = r[0];
    let px1 = -Infinity;
    for (const f of r) {
      const tight = Math.abs(f.x0 - px1) < f.size * 0.15 && (CJK.test(text.slice(-1)) || CJK.test(f.text[0] ?? ''));
      if (text && !text.endsWith(' ') && !tight) text += ' ';
      px1 = f.x1;
      text += f.text;
      x0 = Math.min(x0, f.x0);
      y0 = Math.min(y0, f.y0);
      x1 = Math.max(x1, f.x1);
      y1 = Math.max(y1, f.y1);
      chars += f.chars;
      if (f.chars > dom.chars) dom = f;
    }
    lines.push({ text, x0, y0, x1, y1, size: dom.size, bold: dom.bold, italic: dom.italic, font: dom.font, chars, mcid: dom.mcid });
  }
  sortInPlace(lines, (a, b) => a.y0 - b.y0 || a.x0 - b.x0);
  return lines;
}

/** Joins block lines, removing end-of-line hyphenation ("con-" + "tinued"). */
function joinLines(lines: string[]): string {
  let out = '';
  for (const l of lines) {
    const t = l.trim();
    if (!t) continue;
    if (!out) {
      out = t;
      continue;
    }
    if (/\p{L}[-\u00ad]$/u.test(out) && /^\p{Ll}/u.test(t)) out = out.slice(0, -1) + t;
    else out += ' ' + t;
  }
  return out;
}

/** Blocks of a region: lines grouped into paragraphs. */
export function regionBlocks(lines: Line[], column: number | null, split?: (prev: Line, next: Line) => boolean): RawBlock[] {
  const blocks: RawBlock[] = [];
  if (!lines.length) return blocks;
  // Typical baseline pitch of this region, for the paragraph gap threshold.
  const pitches: number[] = [];
  for (let i = 1; i < lines.length; i++) {
    const a = lines[i - 1],
      b = lines[i];
    if (Math.abs(a.size - b.size) < 0.5) pitches.push(b.y1 - a.y1);
  }
  const pitch = median(pitches.filter((p) => p > 0));
  // Text edges of the region: paragraphs start indented or follow a short last line.
  const x0s = Float64Array.from(lines, (l) => l.x0).sort();
  const x1s = Float64Array.from(lines, (l) => l.x1).sort();
  const left = x0s[Math.floor(x0s.length * 0.2)];
  const right = x1s[Math.floor(x1s.length * 0.8)];
  const justified = lines.length >= 4;
  // Each line's list marker, read once (a line is tested as itself and as the next one's prev).
  const markers = lines.map((l) => listMarkerOf(l.text));
  let cur: Line[] = [];
  const flush = () => {
    if (cur.length) blocks.push(makeBlock(cur, column));
    cur = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    const prev = cur[cur.length - 1];
    if (prev) {
      const size = Math.min(prev.size, l.size) || 10;
      const gap = l.y0 - prev.y1;
      const step = l.y1 - prev.y1;
      const sizeChange = Math.abs(l.size - prev.size) > Math.max(prev.size, l.size) * 0.12;
      const boldChange = prev.bold !== l.bold && (cur.length === 1 || l.chars < 60 || prev.chars < 60) && (prev.bold ? prev.chars : l.chars) < 120;
      const bigGap = pitch > 0 ? step > pitch * 1.45 && gap > size * 0.35 : gap > size * 0.8;
      // prev is lines[i - 1]: cur holds consecutive lines ending with the previous one.
      const list = markers[i] !== null && (markers[i - 1] !== null || gap > size * 0.2 || l.x0 < prev.x0 - size);
      const overlapX = Math.min(prev.x1, l.x1) - Math.max(prev.x0, l.x0) > -size;
      const indented = justified && l.x0 > left + size * 0.8 && l.x0 < left + size * 5 && prev.x0 < left + size * 0.5 && l.x1 > right - size * 2;
      const shortPrev = justified && prev.x1 < right - size * 3 && /[.!?:;]["')\]]?$/.test(prev.text) && Math.abs(l.x0 - left) < size * 5;
      if (
        (split && split(prev, l)) ||
        bigGap ||
        sizeChange ||
        boldChange ||
        list ||
        !overlapX ||
        (l.y0 + l.y1) / 2 < (prev.y0 + prev.y1) / 2 ||
        indented ||
        shortPrev
      )
        flush();
    }
    cur.push(l);
  }
  flush();
  return blocks;
}

/** The key carrying the most weight; a tie goes to the key added first. `w` is not empty. */
function heaviest<K>(w: Map<K, number>): K {
  let best: K | undefined,
    most = -Infinity;
  for (const [k, n] of w) {
    if (n > most) {
      best = k;
      most = n;
    }
  }
  return best as K;
}

function makeBlock(lines: Line[], column: number | null): RawBlock {
  let x0 = Infinity,
    y0 = Infinity,
    x1 = -Infinity,
    y1 = -Infinity,
    chars = 0,
    boldChars = 0,
    italicChars = 0;
  const sizeW = new Map<number, number>();
  const fontW = new Map<string, number>();
  for (const l of lines) {
    x0 = Math.min(x0, l.x0);
    y0 = Math.min(y0, l.y0);
    x1 = Math.max(x1, l.x1);
    y1 = Math.max(y1, l.y1);
    chars += l.chars;
    if (l.bold) boldChars += l.chars;
    if (l.italic) italicChars += l.chars;
    const s = Math.round(l.size * 2) / 2;
    sizeW.set(s, (sizeW.get(s) ?? 0) + l.chars);
    fontW.set(l.font, (fontW.get(l.font) ?? 0) + l.chars);
  }
  const size = heaviest(sizeW);
  const font = heaviest(fontW);
  const text = joinLines(lines.map((l) => l.text));
  return {
    lines,
    lineCount: lines.length,
    text,
    x0,
    y0,
    x1,
    y1,
    size,
    bold: boldChars * 2 > chars,
    italic: italicChars * 2 > chars,
    font,
    chars,
    listMarker: listMarkerOf(text),
    column,
  };
}
