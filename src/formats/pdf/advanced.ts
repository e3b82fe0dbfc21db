// Advanced mode extras (filled in below): tables, form fields, annotations, links, images.
import type { PdfDocument } from './document.js';
import type { PageGeometry, Fragment } from './textlayer.js';
import type { RawBlock } from './layout.js';
import type { PdfPageT, PdfTableT } from './schema.js';

export interface AdvancedExtras {
  page: Partial<PdfPageT>;
  tables: PdfTableT[];
}

export function advancedPageExtras(_doc: PdfDocument, _page: number, _index: number, _g: PageGeometry, _frags: Fragment[], _blocks: RawBlock[]): AdvancedExtras {
  return { page: { tables: [] }, tables: [] };
}
