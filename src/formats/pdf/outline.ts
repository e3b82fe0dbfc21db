// Document outline (bookmarks) and page labels.
import type { PdfDocument } from './document.js';

export interface OutlineItem {
  title: string;
  level: number;
  page: number | null;
}

const MAX_ITEMS = 10_000;

export function readOutline(doc: PdfDocument): OutlineItem[] {
  const { api } = doc.p;
  const out: OutlineItem[] = [];
  const seen = new Set<number>();
  const walk = (parent: number, level: number) => {
    let bm = api.FPDFBookmark_GetFirstChild(doc.handle, parent);
    while (bm && !seen.has(bm) && out.length < MAX_ITEMS && level <= 32) {
      seen.add(bm);
      const title = doc.utf16((b, l) => api.FPDFBookmark_GetTitle(bm, b, l)).trim();
      let dest = api.FPDFBookmark_GetDest(doc.handle, bm);
      if (!dest) {
        const action = api.FPDFBookmark_GetAction(bm);
        if (action) dest = api.FPDFAction_GetDest(doc.handle, action);
      }
      const idx = dest ? api.FPDFDest_GetDestPageIndex(doc.handle, dest) : -1;
      out.push({ title, level, page: idx >= 0 ? idx + 1 : null });
      walk(bm, level + 1);
      bm = api.FPDFBookmark_GetNextSibling(doc.handle, bm);
    }
  };
  walk(0, 1);
  return out;
}

export function readPageLabel(doc: PdfDocument, index: number): string | null {
  // Raw export (called once per page): all-integer arguments, no wrapper conversion needed.
  const { ex } = doc.p;
  const label = doc.utf16((b, l) => ex.FPDF_GetPageLabel(doc.handle, index, b, l)).trim();
  return label || null;
}
