// The words of a page's blocks with their boxes (Advanced): one pass over the page's
// characters in drawing order, each character going to the block whose box holds its centre
// and joining that block's last word while it runs on along the same baseline. Unlike the
// table finder's words (cell-pieces.ts), nothing is sorted or regrouped: a block's text is
// drawn word by word in reading order by nearly every producer, and this pass runs on every
// page, so it makes no object per character.
import type { PdfDocument } from './document.js';
import type { BBox } from './display-units.js';
import type { Word } from './word.js';
import { displayTransform, type PageGeometry } from './textlayer.js';

/** Gap between two characters, in character heights, that ends a word (a space drawn between them always does, an inserted one from this gap on). */
const WORD_GAP = 0.3;
const INSERTED_GAP = 0.08;

/**
 * The words whose characters' centres lie inside each of `regions` (block boxes in `frame`,
 * the fragments' geometry), one list per region. `textPage`: the page's text page if open.
 */
export function blockWords(doc: PdfDocument, page: number, frame: PageGeometry, regions: BBox[], textPage?: number): Word[][] {
  const out: Word[][] = regions.map(() => []);
  if (!regions.length) return out;
  const { ex } = doc.p;
  const tp = textPage ?? ex.FPDFText_LoadPage(page);
  if (!tp) return out;
  // Per region: a space seen since its last word's last character ('' none, ' ' drawn, '_' inserted by PDFium).
  const pending: string[] = regions.map(() => '');
  try {
    const n = ex.FPDFText_CountChars(tp);
    const at = doc.scratch.ptr >> 2;
    const toFrame = displayTransform(frame);
    const inside = (r: BBox, x: number, y: number) => x >= r[0] && x <= r[2] && y >= r[1] && y <= r[3];
    let last = 0;
    for (let i = 0; i < n; i++) {
      const u = ex.FPDFText_GetUnicode(tp, i);
      if (u < 32 || u === 0xfffe || u === 0xffff) continue; // line breaks, generated hyphens
      // The loose box (FS_RECTF left, top, right, bottom in PDF user space), as the text layer reads it.
      if (!ex.FPDFText_GetLooseCharBox(tp, i, doc.scratch.ptr)) continue;
      const box = doc.p.M.HEAPF32 as Float32Array;
      const l = box[at],
        t = box[at + 1],
        r = box[at + 2],
        b = box[at + 3];
      const ax = toFrame.x(l, b),
        ay = toFrame.y(l, b),
        bx = toFrame.x(r, t),
        by = toFrame.y(r, t);
      const x0 = Math.min(ax, bx),
        x1 = Math.max(ax, bx),
        y0 = Math.min(ay, by),
        y1 = Math.max(ay, by);
      const cx = (x0 + x1) / 2,
        cy = (y0 + y1) / 2;
      // Characters come many to a block: the last block is tried first.
      let k = last;
      if (!inside(regions[k], cx, cy)) {
        k = regions.findIndex((q) => inside(q, cx, cy));
        if (k < 0) continue;
        last = k;
      }
      // Spaces, no-break and typographic ones, the ideographic space: word breaks, never words.
      if (u === 32 || u === 0xa0 || u === 0x3000 || (u >= 0x2000 && u <= 0x200b)) {
        if (pending[k] !== ' ') pending[k] = ex.FPDFText_IsGenerated(tp, i) === 1 ? '_' : ' ';
        continue;
      }
      const words = out[k];
      const cur = words.length ? words[words.length - 1] : null;
      const h = y1 - y0;
      const c = String.fromCodePoint(u);
      if (cur && pending[k] !== ' ' && joins(cur, x0, x1, cy, h, pending[k] === '_')) {
        // The same character drawn again over the last one (fake bold) is not a second letter.
        if (!(cur.text.endsWith(c) && Math.abs(x1 - cur.x1) < Math.max(x1 - x0, 0.5) * 0.5)) cur.text += c;
        if (x0 < cur.x0) cur.x0 = x0;
        if (x1 > cur.x1) cur.x1 = x1;
        if (y0 < cur.y0) cur.y0 = y0;
        if (y1 > cur.y1) cur.y1 = y1;
        if (h > cur.size) cur.size = h;
      } else words.push({ text: c, x0, y0, x1, y1, size: h });
      pending[k] = '';
    }
  } finally {
    if (tp !== textPage) ex.FPDFText_ClosePage(tp);
  }
  return out;
}

/** Whether a character at [x0, x1] × centre cy, h high, runs on `w` (same baseline, small gap either way: right-to-left text is drawn leftwards). */
function joins(w: Word, x0: number, x1: number, cy: number, h: number, inserted: boolean): boolean {
  const size = Math.max(h, w.size);
  if (Math.abs(cy - (w.y0 + w.y1) / 2) > size * 0.35) return false;
  const gap = x0 >= w.x1 - size * 0.2 ? x0 - w.x1 : x1 <= w.x0 + size * 0.2 ? w.x0 - x1 : -1;
  if (gap === -1) return x0 >= w.x0 - 0.5 && x1 <= w.x1 + 0.5; // drawn over the word itself
  return gap <= size * (inserted ? INSERTED_GAP : WORD_GAP);
}
