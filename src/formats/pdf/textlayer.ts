// Reads a page's text layer from PDFium: characters with boxes (in display coordinates: points,
// origin top-left, page rotation applied), effective font size, font name/weight, grouped into
// "fragments" — runs of characters on one baseline with no large horizontal gap. The
// per-character work (codes, boxes, duplicate glyphs, grouping) runs in WASM next to PDFium
// (charpass.ts, wasm/charpass/charpass.ts); this module picks the reading frame, names the
// fonts and makes the Fragment objects. Layout (lines, columns, blocks) is built from
// fragments in layout.ts — except SingleColumn's, which the same WASM module builds from its
// fragment records when asked (wasm/charpass/layout.ts), making no Fragment objects for it.
import type { PdfDocument } from './document.js';
import type { RawBlock } from './layout.js';
import { isRtl, type Fragment } from './fragment.js';
import { BLOCK_F64, BLOCK_I32, dominantAngle, F64, I32, layOutSingleColumn, releaseLargeScratch, runCharPass, type SingleColumnLayout } from './charpass.js';

export interface PageGeometry {
  width: number;
  height: number;
  rotation: number;
  /** Page box in PDF user space: left, bottom, right, top. */
  box: [number, number, number, number];
}

export interface TextLayer {
  /** The page's fragments; only the rotated ones when singleColumnBlocks is set. */
  fragments: Fragment[];
  /**
   * SingleColumn blocks of the upright fragments, laid out in WASM next to the character pass
   * (asked for with readTextLayer's `singleColumn`); null when not asked for or when the page
   * needs the JavaScript layout (right-to-left or vertical text, and a few more: see
   * wasm/charpass/layout.ts).
   */
  singleColumnBlocks: RawBlock[] | null;
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
  /** The page's PDFium text page, left open when asked (readTextLayer's keepTextPage): the caller closes it. */
  textPage?: number;
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
    const l = s.f32(0),
      t = s.f32(1),
      r = s.f32(2),
      b = s.f32(3);
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

/**
 * toDisplay as two functions of a point, chosen once per page: a loop over a page's characters
 * (block-words.ts) calls them four times per character without making an array each time.
 */
export function displayTransform(g: PageGeometry): { x: (x: number, y: number) => number; y: (x: number, y: number) => number } {
  const [L, B, R, T] = g.box;
  switch (g.rotation) {
    case 90:
      return { x: (_x, y) => y - B, y: (x) => x - L };
    case 180:
      return { x: (x) => R - x, y: (_x, y) => y - B };
    case 270:
      return { x: (_x, y) => T - y, y: (x) => R - x };
    default:
      return { x: (x) => x - L, y: (_x, y) => T - y };
  }
}

/** Visual-order RTL text → logical order; runs of digits/Latin keep their own direction. */
function reverseVisual(text: string): string {
  const runs = text.match(/[A-Za-z0-9.,:%/+-]+|[^A-Za-z0-9.,:%/+-]+/g) ?? [text];
  return runs
    .reverse()
    .map((r) => (/^[A-Za-z0-9.,:%/+-]+$/.test(r) ? r : Array.from(r).reverse().join('')))
    .join('');
}

/**
 * Extracts fragments from a loaded page; with `singleColumn`, lays the upright ones out into
 * SingleColumn blocks too, in WASM, when it can (TextLayer.singleColumnBlocks).
 */
export function readTextLayer(doc: PdfDocument, page: number, display: PageGeometry, singleColumn = false, keepTextPage = false): TextLayer {
  let g = display;
  const { ex } = doc.p;
  const tp = ex.FPDFText_LoadPage(page);
  const out: TextLayer = {
    fragments: [],
    singleColumnBlocks: null,
    frame: display,
    charCount: 0,
    badChars: 0,
    invisibleChars: 0,
    verticalPairs: 0,
    duplicates: 0,
  };
  if (!tp) return out;
  try {
    const n = ex.FPDFText_CountChars(tp);
    const dominant = dominantAngle(doc.p, tp, n);
    // Text that runs sideways on the displayed page is read in the frame where it is upright.
    const shown = (((display.rotation + dominant) % 360) + 360) % 360;
    if (shown === 90 || shown === 180 || shown === 270) {
      const rot = (((display.rotation - shown) % 360) + 360) % 360;
      const [L, B, R, T] = display.box;
      g = { ...display, rotation: rot, width: rot % 180 ? T - B : R - L, height: rot % 180 ? R - L : T - B };
      out.frame = g;
    }
    // The page's fonts as the pass meets them: a font is numbered by its name (the layout
    // weighs fonts by name), with the bold / italic of its handle.
    const fontCode = new Map<number, number>();
    const nameIndex = new Map<string, number>();
    const names: string[] = [];
    const nameFont = (fh: number): number => {
      let code = fontCode.get(fh);
      if (code === undefined) {
        const f = readFont(doc, fh);
        let k = nameIndex.get(f.name);
        if (k === undefined) {
          nameIndex.set(f.name, (k = names.length));
          names.push(f.name);
        }
        fontCode.set(fh, (code = (k << 2) | (f.bold ? 1 : 0) | (f.italic ? 2 : 0)));
      }
      return code;
    };
    const r = runCharPass(doc.p, tp, n, g, dominant, doc.scratch.ptr, nameFont);
    // Vertical writing is turned a quarter before its layout (layout.ts toVertical): JavaScript's.
    const laidOut = singleColumn && !(r.verticalPairs > r.charCount * 0.5) ? layOutSingleColumn(doc.p, r) : null;
    if (laidOut) out.singleColumnBlocks = singleColumnBlocks(laidOut, names);
    // (Read after the layout, which may have made the views again.)
    const { f64, i32, f64Stride, i32Stride, text, flags } = r;
    for (let k = 0; k < r.fragments; k++) {
      const d = k * f64Stride,
        q = k * i32Stride;
      // Laid out in WASM: only the rotated fragments are still needed.
      if (laidOut && !(i32[q + I32.flags] & flags.rotated)) continue;
      let t = text.slice(i32[q + I32.textStart], i32[q + I32.textEnd]).trimEnd();
      const fl = i32[q + I32.flags];
      // Right-to-left text stored in visual order (left to right on the page): make it logical.
      if (fl & flags.rtlCandidate && isRtl(t)) t = reverseVisual(t);
      const chars = i32[q + I32.chars],
        boldChars = i32[q + I32.boldChars],
        italicChars = i32[q + I32.italicChars];
      const frag: Fragment = {
        text: t,
        x0: f64[d + F64.x0],
        y0: f64[d + F64.y0],
        x1: f64[d + F64.x1],
        y1: f64[d + F64.y1],
        size: f64[d + F64.size],
        font: names[i32[q + I32.font]],
        bold: boldChars * 2 > chars,
        italic: italicChars * 2 > chars,
        chars,
        invisible: (fl & flags.invisible) !== 0,
        bad: i32[q + I32.bad],
        boldChars,
        italicChars,
        mcid: i32[q + I32.mcid],
      };
      if (fl & flags.rotated) frag.rotated = true;
      out.fragments.push(frag);
    }
    out.charCount = r.charCount;
    out.badChars = r.badChars;
    out.invisibleChars = r.invisibleChars;
    out.verticalPairs = r.verticalPairs;
    out.duplicates = r.duplicates;
    // Advanced mode reads table regions' characters again: from this text page, not a new one.
    if (keepTextPage) out.textPage = tp;
  } finally {
    if (out.textPage !== tp) ex.FPDFText_ClosePage(tp);
    // Scratch grown for a page with very many characters is not kept.
    releaseLargeScratch(doc.p);
  }
  return out;
}

/** RawBlocks from the WASM layout's records (no lines are kept: SingleColumn output has none). */
function singleColumnBlocks(l: SingleColumnLayout, fonts: string[]): RawBlock[] {
  const { f64, i32, f64Stride, i32Stride, text } = l;
  const blocks: RawBlock[] = [];
  for (let k = 0; k < l.blocks; k++) {
    const d = k * f64Stride,
      q = k * i32Stride;
    const t = text.slice(i32[q + BLOCK_I32.textStart], i32[q + BLOCK_I32.textEnd]);
    const marker = i32[q + BLOCK_I32.markerLength];
    blocks.push({
      lineCount: i32[q + BLOCK_I32.lineCount],
      text: t,
      x0: f64[d + BLOCK_F64.x0],
      y0: f64[d + BLOCK_F64.y0],
      x1: f64[d + BLOCK_F64.x1],
      y1: f64[d + BLOCK_F64.y1],
      size: f64[d + BLOCK_F64.size],
      bold: i32[q + BLOCK_I32.bold] !== 0,
      italic: i32[q + BLOCK_I32.italic] !== 0,
      font: fonts[i32[q + BLOCK_I32.font]],
      chars: i32[q + BLOCK_I32.chars],
      listMarker: marker >= 0 ? t.slice(0, marker) : null,
      column: null,
    });
  }
  return blocks;
}

/** A font's base name (subset prefix dropped) and whether it is bold / italic. */
function readFont(doc: PdfDocument, fh: number): FontInfo {
  const { ex, M } = doc.p;
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
  return {
    name,
    bold: weight >= 600 || (flags & (1 << 18)) !== 0 || BOLD_NAME.test(name),
    italic: (flags & (1 << 6)) !== 0 || ITALIC_NAME.test(name),
  };
}
