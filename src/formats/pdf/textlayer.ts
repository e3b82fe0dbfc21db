// Reads a page's text layer from PDFium: characters with boxes (in display coordinates: points,
// origin top-left, page rotation applied), effective font size, font name/weight, grouped into
// "fragments" — runs of characters on one baseline with no large horizontal gap. Layout
// (lines, columns, blocks) is built from fragments in layout.ts.
import type { PdfDocument } from './document.js';

export interface Fragment {
  text: string;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  /** Effective font size in points (font size × text matrix scale). */
  size: number;
  font: string;
  bold: boolean;
  italic: boolean;
  /** Number of non-space characters. */
  chars: number;
  /** All characters drawn with text render mode 3 (invisible), e.g. an OCR layer. */
  invisible: boolean;
  /** Characters whose Unicode mapping failed or is garbage (U+FFFD, controls, private use). */
  bad: number;
  /** Text set at an angle (e.g. rotated margin notes): kept out of the main reading flow. */
  rotated?: boolean;
  /** Characters in a bold / italic font (bold and italic are true for a majority). */
  boldChars: number;
  italicChars: number;
  /** Marked-content ID of the first character's text object (tagged PDFs), -1 when none. */
  mcid: number;
}

export interface PageGeometry {
  width: number;
  height: number;
  rotation: number;
  /** Page box in PDF user space: left, bottom, right, top. */
  box: [number, number, number, number];
}

export interface TextLayer {
  fragments: Fragment[];
  /**
   * Geometry the fragments are expressed in: the displayed page, or — when the page's text
   * runs sideways on screen (a /Rotate'd scan of landscape text) — the frame in which it reads
   * upright. frameToDisplay() maps boxes back.
   */
  frame: PageGeometry;
  charCount: number;
  badChars: number;
  invisibleChars: number;
  /** Consecutive character pairs stacked vertically (vertical writing). */
  verticalPairs: number;
  /** Characters dropped because the same character was already drawn at the same place. */
  duplicates: number;
}

interface FontInfo {
  name: string;
  bold: boolean;
  italic: boolean;
}

const BOLD_NAME = /bold|black|heavy|semibold|demi|cmbx|cmb\d|-b$|,b$|\.b$|bd$/i;
const ITALIC_NAME = /italic|oblique|cmti|cmsl|-i$|,i$|\.i$/i;

/** Reads page geometry: display size (rotation applied), rotation, and page box. */
export function pageGeometry(doc: PdfDocument, page: number): PageGeometry {
  const { ex } = doc.p;
  const s = doc.scratch;
  const width = ex.FPDF_GetPageWidthF(page);
  const height = ex.FPDF_GetPageHeightF(page);
  const rotation = ((ex.FPDFPage_GetRotation(page) % 4) + 4) % 4;
  let box: [number, number, number, number];
  if (ex.FPDF_GetPageBoundingBox(page, s.ptr)) {
    // FS_RECTF: left, top, right, bottom
    const l = s.f32(0), t = s.f32(1), r = s.f32(2), b = s.f32(3);
    box = [Math.min(l, r), Math.min(b, t), Math.max(l, r), Math.max(b, t)];
  } else {
    box = rotation % 2 ? [0, 0, height, width] : [0, 0, width, height];
  }
  return { width, height, rotation: rotation * 90, box };
}

/** Inverse of toDisplay: a frame point back to PDF user space. */
function fromDisplay(g: PageGeometry, X: number, Y: number): [number, number] {
  const [L, B, R, T] = g.box;
  switch (g.rotation) {
    case 90:
      return [Y + L, X + B];
    case 180:
      return [R - X, Y + B];
    case 270:
      return [R - Y, T - X];
    default:
      return [X + L, T - Y];
  }
}

/** Maps a box from a reading frame to the displayed page (in place). */
export function frameToDisplay(frame: PageGeometry, g: PageGeometry, b: { x0: number; y0: number; x1: number; y1: number }): void {
  if (frame.rotation === g.rotation) return;
  const [ux0, uy0] = fromDisplay(frame, b.x0, b.y0);
  const [ux1, uy1] = fromDisplay(frame, b.x1, b.y1);
  const [ax, ay] = toDisplay(g, ux0, uy0);
  const [bx, by] = toDisplay(g, ux1, uy1);
  b.x0 = Math.min(ax, bx);
  b.x1 = Math.max(ax, bx);
  b.y0 = Math.min(ay, by);
  b.y1 = Math.max(ay, by);
}

/** Maps a point in PDF user space to display space (top-left origin, rotation applied). */
export function toDisplay(g: PageGeometry, x: number, y: number): [number, number] {
  const [L, B, R, T] = g.box;
  switch (g.rotation) {
    case 90:
      return [y - B, x - L];
    case 180:
      return [R - x, y - B];
    case 270:
      return [T - y, R - x];
    default:
      return [x - L, T - y];
  }
}

function isRtlCode(u: number): boolean {
  return (u >= 0x590 && u <= 0x8ff) || (u >= 0xfb1d && u <= 0xfdff) || (u >= 0xfe70 && u <= 0xfeff);
}

const RTL_ALL = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff]/g;
const RTL_ANY = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff]/;

/** True when the text holds any Hebrew/Arabic character (isRtl is false otherwise). */
export function hasRtlChar(text: string): boolean {
  return RTL_ANY.test(text);
}

/** True when most letters are Hebrew/Arabic. */
export function isRtl(text: string): boolean {
  const rtl = text.match(RTL_ALL)?.length ?? 0;
  return rtl > 0 && rtl * 2 >= text.replace(/[\s\d\p{P}]/gu, '').length;
}

/** Visual-order RTL text → logical order; runs of digits/Latin keep their own direction. */
function reverseVisual(text: string): string {
  const runs = text.match(/[A-Za-z0-9.,:%/+-]+|[^A-Za-z0-9.,:%/+-]+/g) ?? [text];
  return runs
    .reverse()
    .map((r) => (/^[A-Za-z0-9.,:%/+-]+$/.test(r) ? r : Array.from(r).reverse().join('')))
    .join('');
}

/** First characters of the list-bullet pattern in readTextLayer. */
const BULLET_CODES = new Set(Array.from('•◦▪▫●○■□►▸‣⁃∙·-–—*', (c) => c.charCodeAt(0)));

function isBad(u: number): boolean {
  return u === 0xfffd || u === 0 || (u < 32 && u !== 9 && u !== 10 && u !== 13) || (u >= 0xe000 && u <= 0xf8ff);
}

function fixChar(u: number): string {
  if (u >= 0xfb00 && u <= 0xfb06) return String.fromCharCode(u).normalize('NFKC'); // ligatures
  if (u === 0xa0 || u === 0x2002 || u === 0x2003 || u === 0x2009) return ' ';
  return String.fromCodePoint(u);
}

/**
 * The characters kept so far on a page, for the duplicate-glyph check: per 2-pt cell of the
 * page, a chain of the characters whose (x0, y1) fell in it, newest first. Cells are numbered
 * row by row and folded into a power-of-two head table, so a line of text reads neighbouring
 * slots: PDFium's page parse evicts this data from the CPU cache between pages, and with a
 * hashed layout every character cost a cache miss (≈ 5 % of SingleColumn time). Reused across
 * pages; grown for the largest page, dropped again after a huge one.
 */
class GlyphIndex {
  private bits = 10;
  private cols = 1;
  /** 1 + the newest character in each slot (0: none). */
  private heads = new Int32Array(1 << 10);
  /** Per character: 1 + the previous character in its slot (0: none). */
  private next!: Int32Array;
  /** Per character: its cell, both coordinates modulo 4096 (cells repeat every 8192 pt). */
  private cell!: Int32Array;
  u!: Int32Array;
  x!: Float64Array;
  y!: Float64Array;

  constructor() {
    this.allocChars(1024);
  }

  /** Per-character arrays for `n` characters. */
  private allocChars(n: number): void {
    this.next = new Int32Array(n);
    this.cell = new Int32Array(n);
    this.u = new Int32Array(n);
    this.x = new Float64Array(n);
    this.y = new Float64Array(n);
  }

  /** Empties the index for a page of up to `n` characters, `width` points wide. */
  reset(n: number, width: number): void {
    if (this.u.length < n) this.allocChars(n);
    let bits = 10;
    while (1 << bits < n * 2) bits++;
    // Grown for the largest page so far (shrink() drops a huge one), else cleared.
    if (bits > this.bits) {
      this.bits = bits;
      this.heads = new Int32Array(1 << bits);
    } else this.heads.fill(0);
    this.cols = Math.min(4096, Math.max(1, Math.ceil(width / 2) + 2));
  }
  /** After a page with very many characters, back to small scratch for the thread's life. */
  shrink(): void {
    if (this.u.length <= 1 << 16 && this.bits <= 16) return;
    this.bits = 10;
    this.heads = new Int32Array(1 << 10);
    this.allocChars(1024);
  }
  private slot(cx: number, cy: number): number {
    return ((cy & 4095) * this.cols + (cx & 4095)) & ((1 << this.bits) - 1);
  }
  /** The newest kept character with code `u` in cell (cx, cy), or -1. */
  find(u: number, cx: number, cy: number): number {
    const key = ((cx & 4095) << 12) | (cy & 4095);
    const next = this.next, cell = this.cell, codes = this.u;
    for (let j = this.heads[this.slot(cx, cy)] - 1; j >= 0; j = next[j] - 1) {
      if (cell[j] === key && codes[j] === u) return j;
    }
    return -1;
  }
  /** Keeps character `i` (code u, at x0/y1) in cell (cx, cy). */
  add(i: number, u: number, x0: number, y1: number, cx: number, cy: number): void {
    const h = this.slot(cx, cy);
    this.next[i] = this.heads[h];
    this.heads[h] = i + 1;
    this.cell[i] = ((cx & 4095) << 12) | (cy & 4095);
    this.u[i] = u;
    this.x[i] = x0;
    this.y[i] = y1;
  }
}
const seen = new GlyphIndex();

/** Extracts fragments from a loaded page. */
export function readTextLayer(doc: PdfDocument, page: number, display: PageGeometry): TextLayer {
  let g = display;
  const { ex, M } = doc.p;
  const s = doc.scratch;
  const sp = s.ptr;
  const tp = ex.FPDFText_LoadPage(page);
  const mem = ex.memory as { buffer: ArrayBuffer };
  let f32 = new Float32Array(mem.buffer);
  const sp4 = sp >> 2;
  const out: TextLayer = { fragments: [], frame: display, charCount: 0, badChars: 0, invisibleChars: 0, verticalPairs: 0, duplicates: 0 };
  let px0 = 0, px1 = 0, py1 = 0, hasPrev = false;
  if (!tp) return out;
  try {
    const n = ex.FPDFText_CountChars(tp);
    // Dominant text direction (degrees), from a sample of characters.
    const hist = new Map<number, number>();
    for (let i = 0; i < n; i += 7) {
      const a = ex.FPDFText_GetCharAngle(tp, i);
      if (a < 0) continue;
      const d = Math.round((a * 180) / Math.PI / 15) * 15 % 360;
      hist.set(d, (hist.get(d) ?? 0) + 1);
    }
    let dominant = 0, domN = -1;
    for (const [d, c] of hist) if (c > domN) (dominant = d), (domN = c);
    // Text that runs sideways on the displayed page is read in the frame where it is upright.
    const shown = (((display.rotation + dominant) % 360) + 360) % 360;
    if (shown === 90 || shown === 180 || shown === 270) {
      const rot = (((display.rotation - shown) % 360) + 360) % 360;
      const [L, B, R, T] = display.box;
      g = { ...display, rotation: rot, width: rot % 180 ? T - B : R - L, height: rot % 180 ? R - L : T - B };
      out.frame = g;
    }
    seen.reset(n, g.width);
    const fonts = new Map<number, FontInfo>();
    const bl = g.box[0], bt = g.box[3];
    let lastObj = -1;
    let size = 0;
    let font: FontInfo = { name: '', bold: false, italic: false };
    let invisible = false;
    let rotated = false;
    let curRotated = false;
    let mcid = -1;
    let cur: Fragment | null = null;
    let pendingSpace = false;
    let curInvisibleAll = true;
    /** cur.text ends with a space (tracked: endsWith on a long concatenated string flattens it). */
    let curEndsSpace = false;
    /** cur.text holds a Hebrew/Arabic character (isRtlCode). */
    let curHasRtl = false;
    /** cur.text starts with a list bullet or dash (the only texts the bullet pattern below can match). */
    let curBulletStart = false;
    let firstX = 0, lastX = 0;
    const push = () => {
      if (cur && cur.chars > 0) {
        cur.text = cur.text.trimEnd(); // = replace(/\s+$/, ''): both strip WhiteSpace and LineTerminator
        // Right-to-left text stored in visual order (left to right on the page): make it logical.
        // (isRtl is false without Hebrew/Arabic characters, tracked as they are added.)
        if (lastX > firstX && curHasRtl && isRtl(cur.text)) cur.text = reverseVisual(cur.text);
        cur.invisible = curInvisibleAll;
        cur.bold = cur.boldChars * 2 > cur.chars;
        cur.italic = cur.italicChars * 2 > cur.chars;
        if (curRotated) cur.rotated = true;
        out.fragments.push(cur);
      }
      cur = null;
      pendingSpace = false;
      curInvisibleAll = true;
    };
    for (let i = 0; i < n; i++) {
      const u = ex.FPDFText_GetUnicode(tp, i);
      // Line breaks and spaces (PDFium's generated ones included) end a fragment / mark a gap.
      if (u === 13 || u === 10) {
        push();
        continue;
      }
      if (u === 32 || u === 9 || u === 0xa0) {
        pendingSpace = true;
        continue;
      }
      if (u === 0xfffe || u === 0xffff) continue;
      const obj = ex.FPDFText_GetTextObject(tp, i);
      if (obj !== lastObj) {
        lastObj = obj;
        let fs = ex.FPDFText_GetFontSize(tp, i);
        if (ex.FPDFText_GetMatrix(tp, i, sp)) {
          const a = s.f32(0), b = s.f32(1), c = s.f32(2), d = s.f32(3);
          const det = Math.abs(a * d - b * c);
          if (det > 0 && Number.isFinite(det)) fs *= Math.sqrt(det);
        }
        size = Math.round(fs * 100) / 100;
        invisible = obj ? ex.FPDFTextObj_GetTextRenderMode(obj) === 3 : false;
        mcid = obj ? ex.FPDFPageObj_GetMarkedContentID(obj) : -1;
        // Text at an angle to the page's dominant text direction (margin notes, stamps).
        const ang = ex.FPDFText_GetCharAngle(tp, i);
        const diff = ang < 0 ? 0 : (((ang * 180) / Math.PI - dominant) % 360 + 360) % 360;
        rotated = diff > 12 && diff < 348;
        const fh = obj ? ex.FPDFTextObj_GetFont(obj) : 0;
        let f = fonts.get(fh);
        if (!f) {
          let name = '';
          if (fh) {
            const need = ex.FPDFFont_GetBaseFontName(fh, 0, 0);
            if (need > 1) {
              const buf = ex.malloc(need + 1);
              ex.FPDFFont_GetBaseFontName(fh, buf, need);
              name = M.UTF8ToString(buf);
              ex.free(buf);
            }
          }
          name = name.replace(/^[A-Z]{6}\+/, '');
          const weight = fh ? ex.FPDFFont_GetWeight(fh) : -1;
          const flags = fh ? ex.FPDFFont_GetFlags(fh) : 0;
          f = {
            name,
            bold: weight >= 600 || (flags & (1 << 18)) !== 0 || BOLD_NAME.test(name),
            italic: (flags & (1 << 6)) !== 0 || ITALIC_NAME.test(name),
          };
          fonts.set(fh, f);
        }
        font = f;
      }
      // Loose boxes span the glyph advance and the font's ascent..descent: consistent heights
      // for line grouping and gaps that reflect real spacing (monospace fonts included).
      if (!ex.FPDFText_GetLooseCharBox(tp, i, sp)) continue;
      if (f32.length === 0) f32 = new Float32Array(mem.buffer); // the heap grew: the old view is detached
      const l = f32[sp4], t = f32[sp4 + 1], r = f32[sp4 + 2], b = f32[sp4 + 3];
      let x0: number, x1: number, y0: number, y1: number;
      if (g.rotation === 0) {
        x0 = l - bl;
        x1 = r - bl;
        y0 = bt - t;
        y1 = bt - b;
      } else {
        const [ax, ay] = toDisplay(g, l, b);
        const [bx, by] = toDisplay(g, r, t);
        x0 = Math.min(ax, bx);
        x1 = Math.max(ax, bx);
        y0 = Math.min(ay, by);
        y1 = Math.max(ay, by);
      }
      if (!(x1 >= x0) || !(y1 >= y0)) continue;
      const sz = size > 0 ? size : Math.max(y1 - y0, 1);
      // Text drawn twice at (almost) the same place (fake bold, shadows): keep one copy.
      // (Ligatures expand to several characters with one box: those are neighbours in the
      // character stream and are kept.)
      // 2-pt grid; look at the cell and its nearer neighbours only (4 lookups).
      const fx = x0 / 2, fy = y1 / 2;
      const gx = Math.floor(fx), gy = Math.floor(fy);
      const nx = fx - gx < 0.5 ? gx - 1 : gx + 1, ny = fy - gy < 0.5 ? gy - 1 : gy + 1;
      let dup = false;
      for (let q = 0; q < 4 && !dup; q++) {
        const at = seen.find(u, q & 1 ? nx : gx, q & 2 ? ny : gy);
        if (at >= 0 && i - at > 4 && Math.abs(x0 - seen.x[at]) < sz * 0.12 && Math.abs(y1 - seen.y[at]) < sz * 0.12) dup = true;
      }
      if (dup) {
        out.duplicates++;
        continue;
      }
      seen.add(i, u, x0, y1, gx, gy);
      out.charCount++;
      if (hasPrev) {
        const cw = Math.min(x1 - x0, px1 - px0);
        const xo = Math.min(x1, px1) - Math.max(x0, px0);
        if (cw > 0 && xo > cw * 0.6 && y0 >= py1 - sz * 0.3 && y0 <= py1 + sz * 0.6) out.verticalPairs++;
      }
      px0 = x0;
      px1 = x1;
      py1 = y1;
      hasPrev = true;
      // PDFium marks end-of-line hyphens it knows of (U+0002 + IsHyphen).
      const hyphen = u < 32 && ex.FPDFText_IsHyphen(tp, i) === 1;
      const bad = !hyphen && isBad(u);
      if (bad) out.badChars++;
      if (invisible) out.invisibleChars++;
      const ch = hyphen ? '-' : bad ? '\ufffd' : fixChar(u);
      const c: Fragment | null = cur;
      if (c && (rotated || curRotated)) {
        // Rotated text (e.g. margin notes set at 90°) follows the character stream.
        if (rotated !== curRotated) push();
      } else if (c) {
        const h = Math.min(c.y1 - c.y0, y1 - y0);
        const overlap = Math.min(c.y1, y1) - Math.max(c.y0, y0);
        const ref = Math.max(Math.min(c.size, sz), 1);
        const sameLine = overlap > h * 0.4;
        // Right-to-left text in logical order runs leftwards.
        const leftward = isRtlCode(u) && x1 <= c.x0 + ref * 0.3;
        const gap = leftward ? c.x0 - x1 : x0 - c.x1;
        if (!sameLine || gap > ref * 1.0 || (!leftward && (x0 < c.x0 - ref * 0.5 || (gap < -ref * 0.6 && x1 < c.x1 - ref)))) {
          push();
        }
      }
      const d: Fragment | null = cur;
      lastX = x0;
      if (!d) {
        curRotated = rotated;
        firstX = x0;
        curEndsSpace = ch === ' ';
        curHasRtl = !hyphen && !bad && isRtlCode(u);
        curBulletStart = BULLET_CODES.has(ch.charCodeAt(0));
        cur = { text: ch, x0, y0, x1, y1, size: sz, font: font.name, bold: font.bold, italic: font.italic, chars: 1, invisible: false, bad: bad ? 1 : 0, boldChars: font.bold ? 1 : 0, italicChars: font.italic ? 1 : 0, mcid };
        curInvisibleAll = invisible;
      } else {
        const rtl = isRtlCode(u);
        if (rtl && !hyphen && !bad) curHasRtl = true;
        const gap = rtl && x1 <= d.x0 + 1 ? d.x0 - x1 : x0 - d.x1;
        const geomSpace = !curRotated && gap > Math.min(d.size, sz) * (rtl ? 0.5 : 0.22);
        if ((pendingSpace || geomSpace) && !curEndsSpace) d.text += ' ';
        d.text += ch;
        curEndsSpace = ch === ' ';
        d.x0 = Math.min(d.x0, x0);
        d.x1 = Math.max(d.x1, x1);
        d.y0 = Math.min(d.y0, y0);
        d.y1 = Math.max(d.y1, y1);
        // Keep the size/font of the dominant (first, non-superscript) run, unless this run is larger.
        if (sz > d.size * 1.05 && d.chars < 3 && !/^[•◦▪▫●○■□►▸‣⁃∙·\-–—*]$/.test(d.text.trim())) {
          d.size = sz;
          d.font = font.name;
        } else if (d.chars <= 2 && curBulletStart && /^[•◦▪▫●○■□►▸‣⁃∙·\-–—*]\s?$/.test(d.text)) {
          // A bullet glyph is often larger than the item text: the item's size wins.
          d.size = sz;
          d.font = font.name;
        }
        d.chars++;
        if (font.bold) d.boldChars++;
        if (font.italic) d.italicChars++;
        if (bad) d.bad++;
        if (!invisible) curInvisibleAll = false;
      }
      pendingSpace = false;
    }
    push();
  } finally {
    ex.FPDFText_ClosePage(tp);
    // Scratch grown for a page with very many characters is not kept.
    seen.shrink();
  }
  return out;
}
