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
  charCount: number;
  badChars: number;
  invisibleChars: number;
  /** Consecutive character pairs stacked vertically (vertical writing). */
  verticalPairs: number;
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

function isBad(u: number): boolean {
  return u === 0xfffd || u === 0 || (u < 32 && u !== 9 && u !== 10 && u !== 13) || (u >= 0xe000 && u <= 0xf8ff);
}

function fixChar(u: number): string {
  if (u >= 0xfb00 && u <= 0xfb06) return String.fromCharCode(u).normalize('NFKC'); // ligatures
  if (u === 0xa0 || u === 0x2002 || u === 0x2003 || u === 0x2009) return ' ';
  return String.fromCodePoint(u);
}

/** Extracts fragments from a loaded page. */
export function readTextLayer(doc: PdfDocument, page: number, g: PageGeometry): TextLayer {
  const { ex, M } = doc.p;
  const s = doc.scratch;
  const sp = s.ptr;
  const tp = ex.FPDFText_LoadPage(page);
  const out: TextLayer = { fragments: [], charCount: 0, badChars: 0, invisibleChars: 0, verticalPairs: 0 };
  let px0 = 0, px1 = 0, py1 = 0, hasPrev = false;
  if (!tp) return out;
  try {
    const n = ex.FPDFText_CountChars(tp);
    const fonts = new Map<number, FontInfo>();
    let lastObj = -1;
    let size = 0;
    let font: FontInfo = { name: '', bold: false, italic: false };
    let invisible = false;
    let cur: Fragment | null = null;
    let pendingSpace = false;
    let curInvisibleAll = true;
    const push = () => {
      if (cur && cur.chars > 0) {
        cur.text = cur.text.replace(/\s+$/, '');
        cur.invisible = curInvisibleAll;
        out.fragments.push(cur);
      }
      cur = null;
      pendingSpace = false;
      curInvisibleAll = true;
    };
    for (let i = 0; i < n; i++) {
      const u = ex.FPDFText_GetUnicode(tp, i);
      const generated = ex.FPDFText_IsGenerated(tp, i) === 1;
      if (u === 13 || u === 10) {
        if (generated || true) push();
        continue;
      }
      if (u === 32 || u === 9 || u === 0xa0 || (generated && u === 32)) {
        pendingSpace = true;
        continue;
      }
      if (generated) continue;
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
      const l = s.f32(0), t = s.f32(1), r = s.f32(2), b = s.f32(3);
      const [ax, ay] = toDisplay(g, l, b);
      const [bx, by] = toDisplay(g, r, t);
      const x0 = Math.min(ax, bx), x1 = Math.max(ax, bx), y0 = Math.min(ay, by), y1 = Math.max(ay, by);
      if (!(x1 >= x0) || !(y1 >= y0)) continue;
      const sz = size > 0 ? size : Math.max(y1 - y0, 1);
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
      const bad = isBad(u);
      if (bad) out.badChars++;
      if (invisible) out.invisibleChars++;
      const ch = bad ? '\ufffd' : fixChar(u);
      const c: Fragment | null = cur;
      if (c) {
        const h = Math.min(c.y1 - c.y0, y1 - y0);
        const overlap = Math.min(c.y1, y1) - Math.max(c.y0, y0);
        const gap = x0 - c.x1;
        const ref = Math.max(Math.min(c.size, sz), 1);
        const sameLine = overlap > h * 0.4;
        if (!sameLine || gap > ref * 1.0 || x0 < c.x0 - ref * 0.5 || (gap < -ref * 0.6 && x1 < c.x1 - ref)) {
          push();
        }
      }
      const d: Fragment | null = cur;
      if (!d) {
        cur = { text: ch, x0, y0, x1, y1, size: sz, font: font.name, bold: font.bold, italic: font.italic, chars: 1, invisible: false, bad: bad ? 1 : 0 };
        curInvisibleAll = invisible;
      } else {
        const gap = x0 - d.x1;
        if ((pendingSpace || gap > Math.min(d.size, sz) * 0.22) && !d.text.endsWith(' ')) d.text += ' ';
        d.text += ch;
        d.x0 = Math.min(d.x0, x0);
        d.x1 = Math.max(d.x1, x1);
        d.y0 = Math.min(d.y0, y0);
        d.y1 = Math.max(d.y1, y1);
        // Keep the size/font of the dominant (first, non-superscript) run, unless this run is larger.
        if (sz > d.size * 1.05 && d.chars < 3) {
          d.size = sz;
          d.font = font.name;
          d.bold = font.bold;
          d.italic = font.italic;
        }
        d.chars++;
        if (bad) d.bad++;
        if (!invisible) curInvisibleAll = false;
      }
      pendingSpace = false;
    }
    push();
  } finally {
    ex.FPDFText_ClosePage(tp);
  }
  return out;
}
