// AssemblyScript: SingleColumn layout — src/formats/pdf/layout.ts's regionLines + regionBlocks
// over one full-page region — run on the character pass's fragment records where they lie, so
// a SingleColumn page makes no Fragment or Line objects in JavaScript (building them cost more
// than the rest of the layout). The JavaScript functions stay the reference and the path for
// every other mode: this port must give the same blocks, bit for bit; test/formats/pdf/
// textlayer.test.ts compares the two on every page of the corpus.
//
// Where deciding like JavaScript would need Unicode tables it does not have (a right-to-left
// character anywhere on the page; a line-end hyphen after, or a continuation starting with, a
// non-ASCII character; more than MAX_KEYS sizes or fonts in one block), it returns -1 and the
// caller lays the page out in JavaScript.
//
// layoutSingleColumn(frags, count, text, textUnits, work) reads `count` fragment records and
// their text (readChars' output) and writes at `work`, which holds layoutBytes(count,
// textUnits) bytes: the block count and text length (i32, i32), the block records (BLOCK_BYTES
// each: x0, y0, x1, y1, size as f64; font, bold, italic, chars, lineCount, markerLength,
// textStart, textEnd as i32) and the blocks' text (UTF-16).
import { FRAG_BYTES, FRAG_X0, FRAG_Y0, FRAG_X1, FRAG_Y1, FRAG_SIZE, FRAG_FONT, FRAG_CHARS, FRAG_BOLD, FRAG_ITALIC, FRAG_FLAGS, FRAG_TEXT_START, FRAG_TEXT_END, FLAG_ROTATED, isBullet, isJsSpace, isRtlCode, jsRound, trimmedEnd, trimmedStart, unitAt } from './shared';

export const BLOCK_BYTES: i32 = 72;
const HEADER_BYTES: i32 = 16;
/** Line record: x0, y0, x1, y1, size (f64); font, bold, italic, chars, textStart, textEnd, markerLength (i32). */
const LINE_BYTES: i32 = 72;
/** Distinct sizes / fonts one block may weigh before the page goes to JavaScript. */
const MAX_KEYS: i32 = 64;

// Regions of the work memory (set by plan()).
let gFrags: usize = 0, gText: usize = 0;
let gBlocks: usize = 0, gBText: usize = 0, gLines: usize = 0, gLText: usize = 0;
let gIdx: usize = 0, gTmp: usize = 0, gFa: usize = 0, gFb: usize = 0, gFc: usize = 0, gFd: usize = 0;
let gSizeKey: usize = 0, gSizeW: usize = 0, gFontKey: usize = 0, gFontW: usize = 0;
let lineCount: i32 = 0, lineTextLen: i32 = 0, blockCount: i32 = 0, blockTextLen: i32 = 0;
let bail: bool = false;

function align8(p: usize): usize {
  return (p + 7) & ~(<usize>7);
}

function plan(base: usize, n: i32, units: i32): usize {
  let p = base + HEADER_BYTES;
  gBlocks = p;
  p += <usize>n * BLOCK_BYTES;
  gBText = p;
  p = align8(p + (<usize>(units + 2 * n + 8) << 1));
  gLines = p;
  p += <usize>n * LINE_BYTES;
  gLText = p;
  p = align8(p + (<usize>(units + n + 8) << 1));
  gIdx = p;
  p = align8(p + (<usize>n << 2));
  gTmp = p;
  p = align8(p + (<usize>n << 2));
  gFa = p;
  p += <usize>n << 3;
  gFb = p;
  p += <usize>n << 3;
  gFc = p;
  p += <usize>n << 3;
  gFd = p;
  p += <usize>n << 3;
  gSizeKey = p;
  p += <usize>MAX_KEYS << 3;
  gSizeW = p;
  p += <usize>MAX_KEYS << 2;
  gFontKey = p;
  p += <usize>MAX_KEYS << 2;
  gFontW = p;
  p += <usize>MAX_KEYS << 2;
  return p;
}

/** Bytes layoutSingleColumn needs at `work` for `count` fragments holding `textUnits` UTF-16 units. */
export function layoutBytes(count: i32, textUnits: i32): i32 {
  return <i32>plan(0, count, textUnits);
}

// ---- records ------------------------------------------------------------------------------

@inline function frag(k: i32): usize {
  return gFrags + <usize>k * FRAG_BYTES;
}
@inline function line(k: i32): usize {
  return gLines + <usize>k * LINE_BYTES;
}
@inline function idx(i: i32): i32 {
  return load<i32>(gIdx + (<usize>i << 2));
}
/** The i-th line in reading order. */
@inline function ordered(i: i32): usize {
  return line(idx(i));
}
@inline function textUnit(k: i32): i32 {
  return unitAt(gText, k);
}
@inline function lineUnit(k: i32): i32 {
  return unitAt(gLText, k);
}
@inline function blockUnit(k: i32): i32 {
  return unitAt(gBText, k);
}
function putLine(c: i32): void {
  store<u16>(gLText + (<usize>lineTextLen << 1), <u16>c);
  lineTextLen++;
}
function putBlock(c: i32): void {
  store<u16>(gBText + (<usize>blockTextLen << 1), <u16>c);
  blockTextLen++;
}

// ---- stable sorts (Array.prototype.sort and TypedArray.prototype.sort are stable) -----------

/** An element's sort key: an f64 element is its own; an i32 element is an index into `keys` (f64). */
@inline function keyOf<T>(x: T, keys: usize): f64 {
  if (isFloat<T>()) return <f64>x;
  return load<f64>(keys + (<usize>x << 3));
}

/**
 * Sorts the n elements (i32 indices or f64 values) at `a` by keyOf, stably; `t` is n elements
 * of scratch. Bottom-up merge sort, skipped when `a` is already in order (the common case).
 */
function mergeSort<T>(a: usize, t: usize, n: i32, keys: usize): void {
  const size = <usize>sizeof<T>();
  let sorted = true;
  for (let i = 1; i < n && sorted; i++) {
    if (keyOf<T>(load<T>(a + <usize>i * size), keys) < keyOf<T>(load<T>(a + <usize>(i - 1) * size), keys)) sorted = false;
  }
  if (sorted) return;
  let src = a, dst = t;
  for (let w = 1; w < n; w <<= 1) {
    for (let lo = 0; lo < n; lo += w << 1) {
      const mid = min(lo + w, n), hi = min(lo + (w << 1), n);
      let i = lo, j = mid, o = lo;
      while (i < mid && j < hi) {
        const x = load<T>(src + <usize>i * size), y = load<T>(src + <usize>j * size);
        // Take from the right run only when strictly smaller: equal keys keep their order.
        if (keyOf<T>(y, keys) < keyOf<T>(x, keys)) {
          store<T>(dst + <usize>o * size, y);
          j++;
        } else {
          store<T>(dst + <usize>o * size, x);
          i++;
        }
        o++;
      }
      for (; i < mid; i++, o++) store<T>(dst + <usize>o * size, load<T>(src + <usize>i * size));
      for (; j < hi; j++, o++) store<T>(dst + <usize>o * size, load<T>(src + <usize>j * size));
    }
    const s = src;
    src = dst;
    dst = s;
  }
  if (src != a) memory.copy(a, src, <usize>n * size);
}

// ---- text tests (layout.ts's regular expressions) ---------------------------------------------

function isCjk(c: i32): bool {
  return (c >= 0x3000 && c <= 0x30ff) || (c >= 0x3400 && c <= 0x4dbf) || (c >= 0x4e00 && c <= 0x9fff) || (c >= 0xf900 && c <= 0xfaff) || (c >= 0xff00 && c <= 0xffef) || (c >= 0xfe30 && c <= 0xfe4f);
}

function isDigit(c: i32): bool {
  return c >= 0x30 && c <= 0x39;
}

function isAsciiLetter(c: i32): bool {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

function dotOrParen(base: usize, k: i32, end: i32): bool {
  if (k >= end) return false;
  const c = unitAt(base, k);
  return c == 0x2e || c == 0x29;
}

function spaceAt(base: usize, k: i32, end: i32): bool {
  return k < end && isJsSpace(unitAt(base, k));
}

/** Whether the lower-case roman numeral `r` (0: i … 9: x) is spelled at base[k…]; its length, or 0. */
function romanAt(base: usize, k: i32, end: i32, r: i32): i32 {
  // i ii iii iv v vi vii viii ix x, as (length, letters packed low byte first).
  let spelled: u32 = 0, len = 0;
  switch (r) {
    case 0: spelled = 0x69; len = 1; break;
    case 1: spelled = 0x6969; len = 2; break;
    case 2: spelled = 0x696969; len = 3; break;
    case 3: spelled = 0x7669; len = 2; break;
    case 4: spelled = 0x76; len = 1; break;
    case 5: spelled = 0x6976; len = 2; break;
    case 6: spelled = 0x696976; len = 3; break;
    case 7: spelled = 0x69696976; len = 4; break;
    case 8: spelled = 0x7869; len = 2; break;
    default: spelled = 0x78; len = 1;
  }
  if (k + len > end) return 0;
  for (let j = 0; j < len; j++) if (unitAt(base, k + j) != <i32>((spelled >> (<u32>j << 3)) & 0xff)) return 0;
  return len;
}

/**
 * LIST_MARKER at the start of base[a…end): the marker's length (what m[0].trim() keeps), or
 * -1. The alternatives in the regular expression's order: a bullet or dash; "(1." / "12)"
 * (one to three digits); a letter; a lower-case roman numeral — each followed by white space.
 */
function markerLength(base: usize, a: i32, end: i32): i32 {
  if (a >= end) return -1;
  const c = unitAt(base, a);
  if (isBullet(c)) return spaceAt(base, a + 1, end) ? 1 : -1;
  const q = c == 0x28 ? a + 1 : a;
  let d = 0;
  while (d < 4 && q + d < end && isDigit(unitAt(base, q + d))) d++;
  // (A shorter run of the digits is followed by a digit, not by "." or ")".)
  if (d >= 1 && d <= 3 && dotOrParen(base, q + d, end) && spaceAt(base, q + d + 1, end)) return q + d + 1 - a;
  if (q < end && isAsciiLetter(unitAt(base, q)) && dotOrParen(base, q + 1, end) && spaceAt(base, q + 2, end)) return q + 2 - a;
  for (let r = 0; r < 10; r++) {
    const len = romanAt(base, q, end, r);
    if (len && dotOrParen(base, q + len, end) && spaceAt(base, q + len + 1, end)) return q + len + 1 - a;
  }
  return -1;
}

/** /[.!?:;]["')\]]?$/ on base[a…end). */
function endsSentence(base: usize, a: i32, end: i32): bool {
  if (end <= a) return false;
  let c = unitAt(base, end - 1);
  if (c == 0x22 || c == 0x27 || c == 0x29 || c == 0x5d) {
    if (end - 1 <= a) return false;
    c = unitAt(base, end - 2);
  }
  return c == 0x2e || c == 0x21 || c == 0x3f || c == 0x3a || c == 0x3b;
}

// ---- lines (regionLines) -----------------------------------------------------------------------

/** The line of the fragments at idx[rs…re) (one row), left to right. */
function buildLine(rs: i32, re: i32): void {
  mergeSort<i32>(gIdx + (<usize>rs << 2), gTmp + (<usize>rs << 2), re - rs, gFb);
  const start = lineTextLen;
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  let chars = 0;
  let dom = frag(idx(rs));
  let px1 = -Infinity;
  for (let i = rs; i < re; i++) {
    const f = frag(idx(i));
    const ts = load<i32>(f, FRAG_TEXT_START);
    const te = trimmedEnd(gText, ts, load<i32>(f, FRAG_TEXT_END));
    const fx0 = load<f64>(f, FRAG_X0);
    const tight = Math.abs(fx0 - px1) < load<f64>(f, FRAG_SIZE) * 0.15 && ((lineTextLen > start && isCjk(lineUnit(lineTextLen - 1))) || (te > ts && isCjk(textUnit(ts))));
    if (lineTextLen > start && lineUnit(lineTextLen - 1) != 0x20 && !tight) putLine(0x20);
    px1 = load<f64>(f, FRAG_X1);
    for (let k = ts; k < te; k++) putLine(textUnit(k));
    x0 = Math.min(x0, fx0);
    y0 = Math.min(y0, load<f64>(f, FRAG_Y0));
    x1 = Math.max(x1, px1);
    y1 = Math.max(y1, load<f64>(f, FRAG_Y1));
    const c = load<i32>(f, FRAG_CHARS);
    chars += c;
    if (c > load<i32>(dom, FRAG_CHARS)) dom = f;
  }
  const l = line(lineCount++);
  store<f64>(l, x0, 0);
  store<f64>(l, y0, 8);
  store<f64>(l, x1, 16);
  store<f64>(l, y1, 24);
  store<f64>(l, load<f64>(dom, FRAG_SIZE), 32);
  const domChars = load<i32>(dom, FRAG_CHARS);
  store<i32>(l, load<i32>(dom, FRAG_FONT), 40);
  store<i32>(l, load<i32>(dom, FRAG_BOLD) * 2 > domChars ? 1 : 0, 44);
  store<i32>(l, load<i32>(dom, FRAG_ITALIC) * 2 > domChars ? 1 : 0, 48);
  store<i32>(l, chars, 52);
  store<i32>(l, start, 56);
  store<i32>(l, lineTextLen, 60);
  store<i32>(l, markerLength(gLText, start, lineTextLen), 64);
}

// ---- weights by key (makeBlock's Map<key, weight> and heaviest) ------------------------------

/**
 * Adds weight c to `key` among the first `count` keys at `keys` (weights, i32, at `weights`),
 * appending the key when it is new; returns the new count, or -1 when MAX_KEYS are taken.
 */
function addWeight<K>(keys: usize, weights: usize, count: i32, key: K, c: i32): i32 {
  let k = 0;
  while (k < count && load<K>(keys + <usize>k * sizeof<K>()) != key) k++;
  if (k == count) {
    if (count == MAX_KEYS) return -1;
    store<K>(keys + <usize>k * sizeof<K>(), key);
    store<i32>(weights + (<usize>k << 2), 0);
    count++;
  }
  store<i32>(weights + (<usize>k << 2), load<i32>(weights + (<usize>k << 2)) + c);
  return count;
}

/** heaviest(): the first of the `count` keys with the largest weight (0 when there is none). */
function heaviest<K>(keys: usize, weights: usize, count: i32): K {
  let best: K = <K>0;
  let most = -1;
  for (let k = 0; k < count; k++) {
    const w = load<i32>(weights + (<usize>k << 2));
    if (w > most) {
      most = w;
      best = load<K>(keys + <usize>k * sizeof<K>());
    }
  }
  return best;
}

// ---- blocks (regionBlocks, makeBlock, joinLines) -------------------------------------------------

/** The block of the lines in reading order bs…be-1. */
function makeBlock(bs: i32, be: i32): void {
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  let chars = 0, boldChars = 0, italicChars = 0;
  let sizes = 0, fonts = 0;
  for (let i = bs; i < be; i++) {
    const l = ordered(i);
    x0 = Math.min(x0, load<f64>(l, 0));
    y0 = Math.min(y0, load<f64>(l, 8));
    x1 = Math.max(x1, load<f64>(l, 16));
    y1 = Math.max(y1, load<f64>(l, 24));
    const c = load<i32>(l, 52);
    chars += c;
    if (load<i32>(l, 44)) boldChars += c;
    if (load<i32>(l, 48)) italicChars += c;
    // Weights by size (to the half point) and by font, in first-seen order (a Map's order).
    sizes = addWeight<f64>(gSizeKey, gSizeW, sizes, jsRound(load<f64>(l, 32) * 2) / 2, c);
    fonts = addWeight<i32>(gFontKey, gFontW, fonts, load<i32>(l, 40), c);
    if (sizes < 0 || fonts < 0) {
      bail = true;
      return;
    }
  }
  const size = heaviest<f64>(gSizeKey, gSizeW, sizes);
  const font = heaviest<i32>(gFontKey, gFontW, fonts);
  // joinLines: trimmed lines joined by a space, or glued where "letter-" meets a lower-case letter.
  const start = blockTextLen;
  for (let i = bs; i < be; i++) {
    const l = ordered(i);
    const a = trimmedStart(gLText, load<i32>(l, 56), load<i32>(l, 60));
    const b = trimmedEnd(gLText, a, load<i32>(l, 60));
    if (a == b) continue;
    if (blockTextLen > start) {
      let glue = false;
      const last = blockUnit(blockTextLen - 1);
      if (last == 0x2d || last == 0xad) {
        // \p{L} before the hyphen and \p{Ll} after it, decided here for ASCII only.
        const before = blockTextLen - start >= 2 ? blockUnit(blockTextLen - 2) : 0x20;
        const letter = before >= 0x80 ? 2 : isAsciiLetter(before) ? 1 : 0;
        const next = lineUnit(a);
        const lower = next >= 0x80 ? 2 : next >= 0x61 && next <= 0x7a ? 1 : 0;
        if (letter != 0 && lower != 0) {
          if (letter == 2 || lower == 2) {
            bail = true;
            return;
          }
          glue = true;
        }
      }
      if (glue) blockTextLen--;
      else putBlock(0x20);
    }
    for (let k = a; k < b; k++) putBlock(lineUnit(k));
  }
  const r = gBlocks + <usize>blockCount * BLOCK_BYTES;
  store<f64>(r, x0, 0);
  store<f64>(r, y0, 8);
  store<f64>(r, x1, 16);
  store<f64>(r, y1, 24);
  store<f64>(r, size, 32);
  store<i32>(r, font, 40);
  store<i32>(r, boldChars * 2 > chars ? 1 : 0, 44);
  store<i32>(r, italicChars * 2 > chars ? 1 : 0, 48);
  store<i32>(r, chars, 52);
  store<i32>(r, be - bs, 56);
  store<i32>(r, markerLength(gBText, start, blockTextLen), 60);
  store<i32>(r, start, 64);
  store<i32>(r, blockTextLen, 68);
  blockCount++;
}

/** The blocks of the lines (regionBlocks with no column and no split callback). */
function buildBlocks(n: i32): void {
  // Typical baseline pitch, for the paragraph gap threshold.
  let pitches = 0;
  for (let i = 1; i < n; i++) {
    const a = ordered(i - 1), b = ordered(i);
    if (Math.abs(load<f64>(a, 32) - load<f64>(b, 32)) < 0.5) {
      const p = load<f64>(b, 24) - load<f64>(a, 24);
      if (p > 0) store<f64>(gFc + (<usize>(pitches++) << 3), p);
    }
  }
  mergeSort<f64>(gFc, gFd, pitches, 0);
  const pitch = pitches ? load<f64>(gFc + (<usize>(pitches >> 1) << 3)) : 0;
  // Text edges: paragraphs start indented or follow a short last line.
  for (let i = 0; i < n; i++) {
    store<f64>(gFa + (<usize>i << 3), load<f64>(ordered(i), 0));
    store<f64>(gFb + (<usize>i << 3), load<f64>(ordered(i), 16));
  }
  mergeSort<f64>(gFa, gFd, n, 0);
  mergeSort<f64>(gFb, gFd, n, 0);
  const left = load<f64>(gFa + (<usize>(<i32>Math.floor(<f64>n * 0.2)) << 3));
  const right = load<f64>(gFb + (<usize>(<i32>Math.floor(<f64>n * 0.8)) << 3));
  const justified = n >= 4;
  let bs = 0;
  for (let i = 1; i < n; i++) {
    const l = ordered(i), prev = ordered(i - 1);
    const ps = load<f64>(prev, 32), ls = load<f64>(l, 32);
    let size = Math.min(ps, ls);
    if (size == 0 || isNaN(size)) size = 10;
    const lx0 = load<f64>(l, 0), ly0 = load<f64>(l, 8), lx1 = load<f64>(l, 16), ly1 = load<f64>(l, 24);
    const px0 = load<f64>(prev, 0), py0 = load<f64>(prev, 8), px1 = load<f64>(prev, 16), py1 = load<f64>(prev, 24);
    const gap = ly0 - py1;
    const step = ly1 - py1;
    const lb = load<i32>(l, 44), pb = load<i32>(prev, 44);
    const lc = load<i32>(l, 52), pc = load<i32>(prev, 52);
    const sizeChange = Math.abs(ls - ps) > Math.max(ps, ls) * 0.12;
    const boldChange = pb != lb && (i - bs == 1 || lc < 60 || pc < 60) && (pb ? pc : lc) < 120;
    const bigGap = pitch > 0 ? step > pitch * 1.45 && gap > size * 0.35 : gap > size * 0.8;
    const list = load<i32>(l, 64) >= 0 && (load<i32>(prev, 64) >= 0 || gap > size * 0.2 || lx0 < px0 - size);
    const overlapX = Math.min(px1, lx1) - Math.max(px0, lx0) > -size;
    const indented = justified && lx0 > left + size * 0.8 && lx0 < left + size * 5 && px0 < left + size * 0.5 && lx1 > right - size * 2;
    const shortPrev = justified && px1 < right - size * 3 && endsSentence(gLText, load<i32>(prev, 56), load<i32>(prev, 60)) && Math.abs(lx0 - left) < size * 5;
    if (bigGap || sizeChange || boldChange || list || !overlapX || (ly0 + ly1) / 2 < (py0 + py1) / 2 || indented || shortPrev) {
      makeBlock(bs, i);
      if (bail) return;
      bs = i;
    }
  }
  makeBlock(bs, n);
}

// ---- the page ------------------------------------------------------------------------------------

/** See the header. Returns the block count, or -1 when JavaScript must lay the page out. */
export function layoutSingleColumn(frags: usize, count: i32, text: usize, textUnits: i32, work: usize): i32 {
  plan(work, count, textUnits);
  gFrags = frags;
  gText = text;
  lineCount = 0;
  lineTextLen = 0;
  blockCount = 0;
  blockTextLen = 0;
  bail = false;
  // The upright fragments in record order, their centre line (gFa) and left edge (gFb).
  let m = 0;
  for (let k = 0; k < count; k++) {
    const f = frag(k);
    if (load<i32>(f, FRAG_FLAGS) & FLAG_ROTATED) continue;
    const te = load<i32>(f, FRAG_TEXT_END);
    for (let u = load<i32>(f, FRAG_TEXT_START); u < te; u++) if (isRtlCode(textUnit(u))) return -1;
    store<i32>(gIdx + (<usize>(m++) << 2), k);
    store<f64>(gFa + (<usize>k << 3), (load<f64>(f, FRAG_Y0) + load<f64>(f, FRAG_Y1)) / 2);
    store<f64>(gFb + (<usize>k << 3), load<f64>(f, FRAG_X0));
  }
  if (m > 0) {
    // Rows: fragments by centre line, chained while they overlap the row's first fragment.
    mergeSort<i32>(gIdx, gTmp, m, gFa);
    let rs = 0;
    let ry0 = load<f64>(frag(idx(0)), FRAG_Y0), ry1 = load<f64>(frag(idx(0)), FRAG_Y1);
    for (let i = 1; i < m; i++) {
      const f = frag(idx(i));
      const y0 = load<f64>(f, FRAG_Y0), y1 = load<f64>(f, FRAG_Y1);
      const h = Math.min(ry1 - ry0, y1 - y0);
      const ov = Math.min(ry1, y1) - Math.max(ry0, y0);
      const cy = (y0 + y1) / 2;
      if (ov >= h * 0.5 || (cy > ry0 && cy < ry1 && ov > h * 0.3)) continue;
      buildLine(rs, i);
      rs = i;
      ry0 = y0;
      ry1 = y1;
    }
    buildLine(rs, m);
    // Lines top to bottom, then left to right (two stable passes).
    for (let k = 0; k < lineCount; k++) {
      store<i32>(gIdx + (<usize>k << 2), k);
      store<f64>(gFa + (<usize>k << 3), load<f64>(line(k), 8));
      store<f64>(gFb + (<usize>k << 3), load<f64>(line(k), 0));
    }
    mergeSort<i32>(gIdx, gTmp, lineCount, gFb);
    mergeSort<i32>(gIdx, gTmp, lineCount, gFa);
    buildBlocks(lineCount);
    if (bail) return -1;
  }
  store<i32>(work, blockCount);
  store<i32>(work, blockTextLen, 4);
  return blockCount;
}
