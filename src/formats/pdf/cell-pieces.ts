// Words of a page region read character by character, for the borderless-table finder. A
// fragment is a run of characters in the order the content stream draws them; a table needs
// more: where each word sits (a fragment may hold two cells' values a few points apart) and
// the characters in left-to-right order (some producers draw a cell's text twice, the second
// copy shifted — "1 9." where the page shows "1.9"). So the characters inside the candidate
// table are read again with their boxes, copies drawn over each other dropped, and grouped
// into words on each baseline.
import type { PdfDocument } from './document.js';
import type { BBox } from './display-units.js';
import type { Word } from './word.js';
import { toDisplay, type PageGeometry } from './textlayer.js';

interface Ch {
  /** ' ' for a space the page draws (a word break), '_' for one PDFium inserted (a break if the gap agrees). */
  c: string;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** Gap between two characters, in character heights, that ends a word (a space drawn between them always does, an inserted one from this gap on). */
const WORD_GAP = 0.3;
const INSERTED_GAP = 0.08;

/**
 * The words whose characters' centres lie inside one of `regions` (in the frame `frame`: the
 * fragments' geometry), one list per region; one pass over the page's characters. `textPage`:
 * the page's text page if already open.
 */
export function regionWords(doc: PdfDocument, page: number, frame: PageGeometry, regions: BBox[], textPage?: number): Word[][] {
  const { ex } = doc.p;
  // The page's text page when the caller kept it open (it closes it), else one of our own.
  const tp = textPage ?? ex.FPDFText_LoadPage(page);
  if (!tp) return regions.map(() => []);
  const chars: Ch[][] = regions.map(() => []);
  try {
    const n = ex.FPDFText_CountChars(tp);
    const s = doc.scratch;
    for (let i = 0; i < n; i++) {
      const u = ex.FPDFText_GetUnicode(tp, i);
      if (u < 32 || u === 0xfffe || u === 0xffff) continue; // line breaks, generated hyphens
      // The loose box (FS_RECTF left, top, right, bottom in PDF user space): the font's ascent
      // to descent, so a full stop and a digit share a baseline band.
      if (!ex.FPDFText_GetLooseCharBox(tp, i, s.ptr)) continue;
      const [ax, ay] = toDisplay(frame, s.f32(0), s.f32(3));
      const [bx, by] = toDisplay(frame, s.f32(2), s.f32(1));
      const cx = (ax + bx) / 2,
        cy = (ay + by) / 2;
      const k = regions.findIndex((r) => cx >= r[0] && cx <= r[2] && cy >= r[1] && cy <= r[3]);
      if (k < 0) continue;
      const space = u === 32 || u === 0xa0;
      // A space PDFium inserts where it sees a gap breaks a word only with some gap to show.
      const generated = space && ex.FPDFText_IsGenerated(tp, i) === 1;
      const ch: Ch = {
        c: generated ? '_' : space ? ' ' : String.fromCodePoint(u),
        x0: Math.min(ax, bx),
        y0: Math.min(ay, by),
        x1: Math.max(ax, bx),
        y1: Math.max(ay, by),
      };
      if (k >= 0) chars[k].push(ch);
    }
  } finally {
    if (tp !== textPage) ex.FPDFText_ClosePage(tp);
  }
  return chars.map(wordsOf);
}

/** A line's characters sorted by x, without those drawn again over the same character (fake bold, duplicated text). */
function dropOverdrawn(chars: Ch[]): Ch[] {
  const byX = chars.sort((a, b) => a.x0 - b.x0);
  const keep: Ch[] = [];
  const dropped = new Set<Ch>();
  for (let i = 0; i < byX.length; i++) {
    const a = byX[i];
    if (dropped.has(a)) continue;
    if (a.c === ' ' || a.c === '_') {
      keep.push(a);
      continue;
    }
    keep.push(a);
    const w = Math.max(a.x1 - a.x0, 0.5),
      h = Math.max(a.y1 - a.y0, 0.5);
    for (let j = i + 1; j < byX.length && byX[j].x0 < a.x0 + w * 0.5; j++) {
      const b = byX[j];
      if (b.c === a.c && Math.abs(b.y0 - a.y0) < h * 0.5 && Math.abs(b.x1 - a.x1) < w * 0.5) dropped.add(b);
    }
  }
  return keep;
}

/** Characters → baselines (by vertical overlap) → words (by horizontal gaps), left to right. */
function wordsOf(chars: Ch[]): Word[] {
  chars.sort((a, b) => (a.y0 + a.y1) / 2 - (b.y0 + b.y1) / 2);
  const lines: Ch[][] = [];
  let band: [number, number] = [0, 0];
  for (const ch of chars) {
    const cy = (ch.y0 + ch.y1) / 2;
    const last = lines[lines.length - 1];
    if (last && cy >= band[0] && cy <= band[1]) last.push(ch);
    else {
      lines.push([ch]);
      const h = ch.y1 - ch.y0;
      band = [cy - h * 0.35, cy + h * 0.35];
    }
  }
  const words: Word[] = [];
  for (const line of lines.map(dropOverdrawn)) {
    let cur: Word | null = null;
    let spaced = false,
      inserted = false;
    for (const ch of line) {
      if (ch.c === ' ' || ch.c === '_') {
        if (ch.c === ' ') spaced = true;
        else inserted = true;
        continue;
      }
      const h = ch.y1 - ch.y0;
      const gap = cur ? ch.x0 - cur.x1 : 0;
      const sameWord = cur && !spaced && gap <= Math.max(h, cur.size) * (inserted ? INSERTED_GAP : WORD_GAP);
      spaced = inserted = false;
      if (cur && sameWord) {
        cur.text += ch.c;
        cur.x1 = Math.max(cur.x1, ch.x1);
        cur.y0 = Math.min(cur.y0, ch.y0);
        cur.y1 = Math.max(cur.y1, ch.y1);
        cur.size = Math.max(cur.size, h);
      } else {
        if (cur) words.push(cur);
        cur = { text: ch.c, x0: ch.x0, y0: ch.y0, x1: ch.x1, y1: ch.y1, size: h };
      }
    }
    if (cur) words.push(cur);
  }
  return words;
}
