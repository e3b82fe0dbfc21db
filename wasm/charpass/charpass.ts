// AssemblyScript: the per-character pass of src/formats/pdf/textlayer.ts (readTextLayer), run
// next to PDFium as a WASM module of its own. It imports PDFium's memory and text-page exports,
// so each character costs wasm-to-wasm calls and no JavaScript work (the same pass in
// JavaScript added about a third to the time of PDFium's text page). Built by wasm/build-charpass.mjs into
// dist/wasm/charpass.wasm (no allocator, no data segments: every byte it touches is memory
// the caller malloc'd in PDFium's heap).
//
// readChars() turns a text page's characters into fragments — runs of characters on one
// baseline with no large horizontal gap — for src/formats/pdf/textlayer.ts (which picks the
// reading frame, names fonts and makes Fragment objects). Output, in memory the caller passes:
//   frags: FRAG_BYTES per fragment: x0, y0, x1, y1, size (f64), then font, chars, bad,
//          boldChars, italicChars, mcid, flags, textStart, textEnd (i32; text as UTF-16 code
//          units in `text`, untrimmed);
//   counts: charCount, badChars, invisibleChars, verticalPairs, duplicates, text units (i32).
// Fonts are named by the caller: fontInfo(font handle) returns (font index << 2) | bold | italic << 1.
// The module also exports layout.ts's layoutSingleColumn, which lays these fragments out.

@external("pdfium", "FPDFText_GetUnicode") declare function getUnicode(tp: i32, i: i32): i32;
@external("pdfium", "FPDFText_GetTextObject") declare function getTextObject(tp: i32, i: i32): i32;
@external("pdfium", "FPDFText_GetLooseCharBox") declare function getLooseCharBox(tp: i32, i: i32, rect: usize): i32;
@external("pdfium", "FPDFText_GetFontSize") declare function getFontSize(tp: i32, i: i32): f64;
@external("pdfium", "FPDFText_GetMatrix") declare function getMatrix(tp: i32, i: i32, m: usize): i32;
@external("pdfium", "FPDFText_GetCharAngle") declare function getCharAngle(tp: i32, i: i32): f32;
@external("pdfium", "FPDFText_IsHyphen") declare function isHyphen(tp: i32, i: i32): i32;
@external("pdfium", "FPDFTextObj_GetTextRenderMode") declare function getTextRenderMode(obj: i32): i32;
@external("pdfium", "FPDFPageObj_GetMarkedContentID") declare function getMarkedContentID(obj: i32): i32;
@external("pdfium", "FPDFTextObj_GetFont") declare function getFont(obj: i32): i32;
@external("js", "fontInfo") declare function fontInfo(font: i32): i32;

import { FRAG_BYTES, FLAG_INVISIBLE, FLAG_ROTATED, FLAG_RTL_CANDIDATE, isBullet, isJsSpace, isRtlCode, jsRound, trimmedEnd, trimmedStart, unitAt } from './shared';
export { FRAG_BYTES, FLAG_INVISIBLE, FLAG_ROTATED, FLAG_RTL_CANDIDATE } from './shared';
export { layoutSingleColumn, layoutBytes, BLOCK_BYTES } from './layout';

/** Per character of the page: bytes of dedup scratch (x, y: f64; next, cell, code: i32). */
const SCRATCH_BYTES_PER_CHAR: i32 = 28;
/** Most UTF-16 units one character adds to the text: a space and a three-unit ligature. */
export const TEXT_UNITS_PER_CHAR: i32 = 4;

// ---- characters ------------------------------------------------------------------------

/** U+FFFD, NUL, C0 controls other than tab/LF/CR, private use: a failed Unicode mapping. */
function isBad(u: i32): bool {
  return u == 0xfffd || u == 0 || (u < 32 && u != 9 && u != 10 && u != 13) || (u >= 0xe000 && u <= 0xf8ff) || u > 0x10ffff;
}

// ---- the current fragment ----------------------------------------------------------------

let text: usize = 0;
let textLen: i32 = 0;
let frags: usize = 0;
let fragCount: i32 = 0;

let open: bool = false;
let fx0: f64 = 0, fy0: f64 = 0, fx1: f64 = 0, fy1: f64 = 0, fsize: f64 = 0;
let ffont: i32 = 0, fchars: i32 = 0, fbad: i32 = 0, fbold: i32 = 0, fitalic: i32 = 0, fmcid: i32 = -1;
let fstart: i32 = 0;
let pendingSpace: bool = false;
let curInvisibleAll: bool = true;
let curRotated: bool = false;
let curEndsSpace: bool = false;
let curHasRtl: bool = false;
let curBulletStart: bool = false;
let firstX: f64 = 0, lastX: f64 = 0;

function unit(k: i32): i32 {
  return unitAt(text, k);
}

function put(c: i32): void {
  store<u16>(text + (<usize>textLen << 1), <u16>c);
  textLen++;
}

/**
 * Appends the character's text — '-' for a hyphen PDFium marks, U+FFFD for a bad code, Latin
 * ligatures spelled out (NFKC), typographic spaces as spaces — and returns its first unit.
 */
function putChar(u: i32, hyphen: bool, bad: bool): i32 {
  if (hyphen) {
    put(0x2d);
    return 0x2d;
  }
  if (bad) {
    put(0xfffd);
    return 0xfffd;
  }
  switch (u) {
    case 0xfb00: put(0x66); put(0x66); return 0x66; // ﬀ → ff (NFKC)
    case 0xfb01: put(0x66); put(0x69); return 0x66;
    case 0xfb02: put(0x66); put(0x6c); return 0x66;
    case 0xfb03: put(0x66); put(0x66); put(0x69); return 0x66;
    case 0xfb04: put(0x66); put(0x66); put(0x6c); return 0x66;
    case 0xfb05: case 0xfb06: put(0x73); put(0x74); return 0x73;
    case 0xa0: case 0x2002: case 0x2003: case 0x2009: put(0x20); return 0x20;
  }
  if (u > 0xffff) {
    const v = u - 0x10000;
    put(0xd800 + (v >> 10));
    put(0xdc00 + (v & 0x3ff));
    return 0xd800 + (v >> 10);
  }
  put(u);
  return u;
}

/** The fragment's text, trimmed of white space, is exactly one bullet. */
function textIsOneBullet(): bool {
  const a = trimmedStart(text, fstart, textLen);
  const b = trimmedEnd(text, a, textLen);
  return b - a == 1 && isBullet(unit(a));
}

/** The fragment's text is a bullet and at most one white space. */
function textIsBulletAndSpace(): bool {
  const len = textLen - fstart;
  return (len == 1 || (len == 2 && isJsSpace(unit(fstart + 1)))) && isBullet(unit(fstart));
}

function push(): void {
  if (open && fchars > 0) {
    const p = frags + <usize>fragCount * <usize>FRAG_BYTES;
    store<f64>(p, fx0);
    store<f64>(p, fy0, 8);
    store<f64>(p, fx1, 16);
    store<f64>(p, fy1, 24);
    store<f64>(p, fsize, 32);
    store<i32>(p, ffont, 40);
    store<i32>(p, fchars, 44);
    store<i32>(p, fbad, 48);
    store<i32>(p, fbold, 52);
    store<i32>(p, fitalic, 56);
    store<i32>(p, fmcid, 60);
    store<i32>(p, (curInvisibleAll ? FLAG_INVISIBLE : 0) | (curRotated ? FLAG_ROTATED : 0) | (lastX > firstX && curHasRtl ? FLAG_RTL_CANDIDATE : 0), 64);
    store<i32>(p, fstart, 68);
    store<i32>(p, textLen, 72);
    fragCount++;
  }
  open = false;
  pendingSpace = false;
  curInvisibleAll = true;
}

// ---- the duplicate-glyph index ----------------------------------------------------------
// The characters kept so far on the page: per 2-pt cell, a chain of the characters whose
// (x0, y1) fell in it, newest first. Cells are numbered row by row and folded into a
// power-of-two head table, so a line of text reads neighbouring slots (PDFium's page parse
// evicts this data from the CPU cache between pages; a hashed layout cost a miss per character).

let heads: usize = 0;
let slotMask: i32 = 0;
let cols: i32 = 1;
let gNext: usize = 0, gCell: usize = 0, gCode: usize = 0, gX: usize = 0, gY: usize = 0;

function slot(cx: i32, cy: i32): i32 {
  return ((cy & 4095) * cols + (cx & 4095)) & slotMask;
}

/** The newest kept character with code u in cell (cx, cy), or -1. */
function find(u: i32, cx: i32, cy: i32): i32 {
  const key = ((cx & 4095) << 12) | (cy & 4095);
  let j = load<i32>(heads + (<usize>slot(cx, cy) << 2)) - 1;
  while (j >= 0) {
    const o = <usize>j << 2;
    if (load<i32>(gCell + o) == key && load<i32>(gCode + o) == u) return j;
    j = load<i32>(gNext + o) - 1;
  }
  return -1;
}

function add(i: i32, u: i32, x0: f64, y1: f64, cx: i32, cy: i32): void {
  const h = <usize>slot(cx, cy) << 2;
  const o = <usize>i << 2;
  store<i32>(gNext + o, load<i32>(heads + h));
  store<i32>(heads + h, i + 1);
  store<i32>(gCell + o, ((cx & 4095) << 12) | (cy & 4095));
  store<i32>(gCode + o, u);
  store<f64>(gX + (<usize>i << 3), x0);
  store<f64>(gY + (<usize>i << 3), y1);
}

/** Bytes readChars needs at `scratch` for a page of n characters: the heads table, then per character. */
export function scratchBytes(n: i32): i32 {
  return (4 << headsBits(n)) + n * SCRATCH_BYTES_PER_CHAR;
}

function headsBits(n: i32): i32 {
  let bits = 10;
  while (1 << bits < n * 2) bits++;
  return bits;
}

/**
 * The page's dominant text direction in degrees (a multiple of 15): the most common angle
 * among every 7th character, a tie going to the angle sampled first. Consecutive samples from
 * one text object share its matrix (all but a handful of characters in the corpus), so the
 * angle is read once for them. `work` is 192 bytes of scratch.
 */
export function dominantAngle(tp: i32, n: i32, work: usize): i32 {
  // work: 24 bucket counts, then the buckets in the order first sampled.
  memory.fill(work, 0, 192);
  let buckets = 0;
  let sampledObj = 0, sampledBucket = -1;
  for (let i = 0; i < n; i += 7) {
    const obj = getTextObject(tp, i);
    if (!obj || obj != sampledObj) {
      sampledObj = obj;
      const a = <f64>getCharAngle(tp, i);
      sampledBucket = a < 0 ? -1 : <i32>jsRound((a * 180) / Math.PI / 15) % 24;
    }
    if (sampledBucket < 0) continue;
    const at = work + (<usize>sampledBucket << 2);
    const count = load<i32>(at);
    store<i32>(at, count + 1);
    if (count == 0) {
      store<i32>(work + 96 + (<usize>buckets << 2), sampledBucket);
      buckets++;
    }
  }
  let dominant = 0, most = 0;
  for (let k = 0; k < buckets; k++) {
    const b = load<i32>(work + 96 + (<usize>k << 2));
    const count = load<i32>(work + (<usize>b << 2));
    if (count > most) {
      dominant = b * 15;
      most = count;
    }
  }
  return dominant;
}

/**
 * One page: tp is the text page, n its character count; the frame (rotation 0/90/180/270 and
 * page box l, b, r, t in PDF user space) and dominant text angle (degrees) are the caller's;
 * `rect` is 24 bytes of scratch for PDFium's out-parameters. Returns the fragment count.
 */
export function readChars(tp: i32, n: i32, rotation: i32, bl: f64, bb: f64, br: f64, bt: f64, width: f64, dominant: f64, rect: usize, scratch: usize, fragsOut: usize, textOut: usize, counts: usize): i32 {
  const bits = headsBits(n);
  heads = scratch;
  slotMask = (1 << bits) - 1;
  memory.fill(heads, 0, <usize>4 << bits);
  cols = <i32>Math.min(4096, Math.max(1, Math.ceil(width / 2) + 2));
  // f64 arrays first: the heads table is a multiple of 8 bytes, so they stay aligned.
  gX = heads + (<usize>4 << bits);
  gY = gX + (<usize>n << 3);
  gNext = gY + (<usize>n << 3);
  gCell = gNext + (<usize>n << 2);
  gCode = gCell + (<usize>n << 2);
  text = textOut;
  textLen = 0;
  frags = fragsOut;
  fragCount = 0;
  open = false;
  pendingSpace = false;
  curInvisibleAll = true;
  curRotated = false;

  let charCount = 0, badChars = 0, invisibleChars = 0, verticalPairs = 0, duplicates = 0;
  let px0: f64 = 0, px1: f64 = 0, py1: f64 = 0;
  let hasPrev = false;
  let lastObj = -1;
  let size: f64 = 0;
  let font = 0, fontBold = false, fontItalic = false;
  let invisible = false, rotated = false;
  let mcid = -1;

  for (let i = 0; i < n; i++) {
    const u = getUnicode(tp, i);
    // Line breaks and spaces (PDFium's generated ones included) end a fragment / mark a gap.
    if (u == 13 || u == 10) {
      push();
      continue;
    }
    if (u == 32 || u == 9 || u == 0xa0) {
      pendingSpace = true;
      continue;
    }
    if (u == 0xfffe || u == 0xffff) continue;
    const obj = getTextObject(tp, i);
    if (obj != lastObj) {
      lastObj = obj;
      let fs = getFontSize(tp, i);
      if (getMatrix(tp, i, rect)) {
        const a = <f64>load<f32>(rect), b = <f64>load<f32>(rect, 4), c = <f64>load<f32>(rect, 8), d = <f64>load<f32>(rect, 12);
        const det = Math.abs(a * d - b * c);
        if (det > 0 && isFinite(det)) fs *= Math.sqrt(det);
      }
      size = jsRound(fs * 100) / 100;
      invisible = obj ? getTextRenderMode(obj) == 3 : false;
      mcid = obj ? getMarkedContentID(obj) : -1;
      const ang = <f64>getCharAngle(tp, i);
      const diff = ang < 0 ? 0 : ((((ang * 180) / Math.PI - dominant) % 360) + 360) % 360;
      rotated = diff > 12 && diff < 348;
      const info = fontInfo(obj ? getFont(obj) : 0);
      font = info >> 2;
      fontBold = (info & 1) != 0;
      fontItalic = (info & 2) != 0;
    }
    if (!getLooseCharBox(tp, i, rect)) continue;
    const l = <f64>load<f32>(rect), t = <f64>load<f32>(rect, 4), r = <f64>load<f32>(rect, 8), b = <f64>load<f32>(rect, 12);
    let x0: f64, x1: f64, y0: f64, y1: f64;
    if (rotation == 0) {
      x0 = l - bl;
      x1 = r - bl;
      y0 = bt - t;
      y1 = bt - b;
    } else {
      // (l, b) and (r, t) mapped to the frame (textlayer.ts toDisplay).
      let ax: f64, ay: f64, bx: f64, by: f64;
      if (rotation == 90) {
        ax = b - bb; ay = l - bl; bx = t - bb; by = r - bl;
      } else if (rotation == 180) {
        ax = br - l; ay = b - bb; bx = br - r; by = t - bb;
      } else {
        ax = bt - b; ay = br - l; bx = bt - t; by = br - r;
      }
      x0 = Math.min(ax, bx);
      x1 = Math.max(ax, bx);
      y0 = Math.min(ay, by);
      y1 = Math.max(ay, by);
    }
    if (!(x1 >= x0) || !(y1 >= y0)) continue;
    const sz = size > 0 ? size : Math.max(y1 - y0, 1);
    // Text drawn twice at (almost) the same place (fake bold, shadows): keep one copy.
    // (Ligatures expand to several characters with one box: those are neighbours in the
    // character stream and are kept.) 2-pt grid; the cell and its nearer neighbours are read.
    const fx = x0 / 2, fy = y1 / 2;
    const gx = <i32>Math.floor(fx), gy = <i32>Math.floor(fy);
    const nx = fx - <f64>gx < 0.5 ? gx - 1 : gx + 1, ny = fy - <f64>gy < 0.5 ? gy - 1 : gy + 1;
    let dup = false;
    for (let q = 0; q < 4 && !dup; q++) {
      const at = find(u, q & 1 ? nx : gx, q & 2 ? ny : gy);
      if (at >= 0 && i - at > 4 && Math.abs(x0 - load<f64>(gX + (<usize>at << 3))) < sz * 0.12 && Math.abs(y1 - load<f64>(gY + (<usize>at << 3))) < sz * 0.12) dup = true;
    }
    if (dup) {
      duplicates++;
      continue;
    }
    add(i, u, x0, y1, gx, gy);
    charCount++;
    if (hasPrev) {
      const cw = Math.min(x1 - x0, px1 - px0);
      const xo = Math.min(x1, px1) - Math.max(x0, px0);
      if (cw > 0 && xo > cw * 0.6 && y0 >= py1 - sz * 0.3 && y0 <= py1 + sz * 0.6) verticalPairs++;
    }
    px0 = x0;
    px1 = x1;
    py1 = y1;
    hasPrev = true;
    const hyphen = u < 32 && isHyphen(tp, i) == 1;
    const bad = !hyphen && isBad(u);
    if (bad) badChars++;
    if (invisible) invisibleChars++;
    if (open && (rotated || curRotated)) {
      // Rotated text follows the character stream.
      if (rotated != curRotated) push();
    } else if (open) {
      const h = Math.min(fy1 - fy0, y1 - y0);
      const overlap = Math.min(fy1, y1) - Math.max(fy0, y0);
      const ref = Math.max(Math.min(fsize, sz), 1);
      const sameLine = overlap > h * 0.4;
      const leftward = isRtlCode(u) && x1 <= fx0 + ref * 0.3;
      const gap = leftward ? fx0 - x1 : x0 - fx1;
      if (!sameLine || gap > ref * 1.0 || (!leftward && (x0 < fx0 - ref * 0.5 || (gap < -ref * 0.6 && x1 < fx1 - ref)))) push();
    }
    lastX = x0;
    if (!open) {
      open = true;
      curRotated = rotated;
      firstX = x0;
      fstart = textLen;
      const first = putChar(u, hyphen, bad);
      curEndsSpace = textLen - fstart == 1 && first == 0x20;
      curHasRtl = !hyphen && !bad && isRtlCode(u);
      curBulletStart = isBullet(first);
      fx0 = x0; fy0 = y0; fx1 = x1; fy1 = y1;
      fsize = sz;
      ffont = font;
      fchars = 1;
      fbad = bad ? 1 : 0;
      fbold = fontBold ? 1 : 0;
      fitalic = fontItalic ? 1 : 0;
      fmcid = mcid;
      curInvisibleAll = invisible;
    } else {
      const rtl = isRtlCode(u);
      if (rtl && !hyphen && !bad) curHasRtl = true;
      const gap = rtl && x1 <= fx0 + 1 ? fx0 - x1 : x0 - fx1;
      const geomSpace = !curRotated && gap > Math.min(fsize, sz) * (rtl ? 0.5 : 0.22);
      if ((pendingSpace || geomSpace) && !curEndsSpace) put(0x20);
      const before = textLen;
      const first = putChar(u, hyphen, bad);
      curEndsSpace = textLen - before == 1 && first == 0x20;
      fx0 = Math.min(fx0, x0);
      fx1 = Math.max(fx1, x1);
      fy0 = Math.min(fy0, y0);
      fy1 = Math.max(fy1, y1);
      // Keep the size/font of the dominant (first, non-superscript) run, unless this run is larger.
      if (sz > fsize * 1.05 && fchars < 3 && !textIsOneBullet()) {
        fsize = sz;
        ffont = font;
      } else if (fchars <= 2 && curBulletStart && textIsBulletAndSpace()) {
        // A bullet glyph is often larger than the item text: the item's size wins.
        fsize = sz;
        ffont = font;
      }
      fchars++;
      if (fontBold) fbold++;
      if (fontItalic) fitalic++;
      if (bad) fbad++;
      if (!invisible) curInvisibleAll = false;
    }
    pendingSpace = false;
  }
  push();
  store<i32>(counts, charCount);
  store<i32>(counts, badChars, 4);
  store<i32>(counts, invisibleChars, 8);
  store<i32>(counts, verticalPairs, 12);
  store<i32>(counts, duplicates, 16);
  store<i32>(counts, textLen, 20);
  return fragCount;
}
