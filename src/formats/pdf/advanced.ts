// Advanced mode extras per page: ruled tables from path segments (cells with row/column
// spans), unruled tables from text alignment, form field values, annotations and links,
// image positions. This module puts a page's extras together (and the structure-tree types);
// the page-object walk, table building and annotations each live in their own module.
import type { PdfDocument } from './document.js';
import type { Fragment } from './fragment.js';
import { frameToDisplay, type PageGeometry } from './textlayer.js';
import type { RawBlock } from './layout.js';
import type { PdfPageT, PdfTableT } from './schema.js';
import { r2 } from './display-units.js';
import { rulingSegments } from './page-objects.js';
import { ruledTables } from './tables.js';
import { borderlessTables } from './borderless-tables.js';
import { annotations, formHandle } from './annotations.js';
import { blockWords } from './block-words.js';

export interface AdvancedExtras {
  page: Partial<PdfPageT>;
  tables: PdfTableT[];
}

function boxToDisplay(frame: PageGeometry, g: PageGeometry, b: number[]): [number, number, number, number] {
  const o = { x0: b[0], y0: b[1], x1: b[2], y1: b[3] };
  frameToDisplay(frame, g, o);
  return [r2(o.x0), r2(o.y0), r2(o.x1), r2(o.y1)];
}

/** Structure-tree element types by marked-content ID for a page (tagged PDFs). */
export function structTypes(doc: PdfDocument, page: number): Map<number, string> {
  const { ex } = doc.p;
  const out = new Map<number, string>();
  const tree = ex.FPDF_StructTree_GetForPage(page);
  if (!tree) return out;
  let visited = 0;
  const walk = (el: number, depth: number, inherited: string) => {
    if (!el || depth > 64 || ++visited > 20000) return;
    const raw = doc.utf16((b, l) => ex.FPDF_StructElement_GetType(el, b, l));
    // Keep the meaningful type: list items and table cells name their container.
    const type = raw === 'LBody' || raw === 'Lbl' || raw === 'Span' || raw === 'Link' ? inherited || raw : raw;
    const nm = ex.FPDF_StructElement_GetMarkedContentIdCount(el);
    for (let k = 0; k < nm; k++) {
      const id = ex.FPDF_StructElement_GetMarkedContentIdAtIndex(el, k);
      if (id >= 0 && !out.has(id)) out.set(id, type);
    }
    const n = ex.FPDF_StructElement_CountChildren(el);
    for (let k = 0; k < n; k++) {
      const child = ex.FPDF_StructElement_GetChildAtIndex(el, k);
      if (child) walk(child, depth + 1, raw === 'LI' ? 'LI' : /^(TD|TH)$/.test(raw) ? raw : type);
      else {
        const mc = ex.FPDF_StructElement_GetChildMarkedContentID(el, k);
        if (mc >= 0 && !out.has(mc)) out.set(mc, type);
      }
    }
  };
  try {
    const n = ex.FPDF_StructTree_CountChildren(tree);
    for (let k = 0; k < n; k++) walk(ex.FPDF_StructTree_GetChildAtIndex(tree, k), 0, '');
  } finally {
    ex.FPDF_StructTree_Close(tree);
  }
  return out;
}

/**
 * `frame` is the geometry the fragments are in (the displayed page unless its text runs
 * sideways); rulings are found in that frame too, and all boxes are returned in display space.
 * `textPage`: the page's text page, if the caller kept it open.
 */
export function advancedPageExtras(
  doc: PdfDocument,
  page: number,
  index: number,
  g: PageGeometry,
  frame: PageGeometry,
  frags: Fragment[],
  blocks: RawBlock[],
  types?: Map<number, string>,
  textPage?: number,
): AdvancedExtras {
  if (types?.size) {
    for (const b of blocks) {
      const id = b.lines?.find((l) => l.mcid !== undefined && l.mcid >= 0)?.mcid;
      const t = id !== undefined ? types.get(id) : undefined;
      if (t) b.structType = t;
    }
  }
  // Each block's words with their boxes (in `frame`, like the blocks: turned to display by the caller).
  const words = blockWords(
    doc,
    page,
    frame,
    blocks.map((b) => [b.x0, b.y0, b.x1, b.y1]),
    textPage,
  );
  blocks.forEach((b, k) => (b.words = words[k]));
  const images: NonNullable<PdfPageT['images']> = [];
  const { h, v } = rulingSegments(doc, page, frame, images);
  const ruled = ruledTables(h, v, frags, index + 1);
  const aligned = borderlessTables(doc, page, frame, frags, ruled, index + 1, ruled.length, textPage);
  const tables = [...ruled, ...aligned];
  const form = formHandle(doc);
  const ann = annotations(doc, page, frame, form, frags);
  if (frame.rotation !== g.rotation) {
    for (const t of tables) {
      t.bbox = boxToDisplay(frame, g, t.bbox);
      for (const c of t.cells) c.bbox = boxToDisplay(frame, g, c.bbox);
    }
    for (const im of images) im.bbox = boxToDisplay(frame, g, im.bbox);
    for (const l of ann.links ?? []) l.bbox = boxToDisplay(frame, g, l.bbox);
    for (const a of ann.annotations ?? []) a.bbox = boxToDisplay(frame, g, a.bbox);
    for (const f of ann.formFields ?? []) f.bbox = boxToDisplay(frame, g, f.bbox);
  }
  return { page: { tables, images, ...ann }, tables };
}
