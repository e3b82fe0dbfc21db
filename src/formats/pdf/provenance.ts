// Where each part of a PDF page came from (issue 32, item 3): its page and box, after the
// fields of the document's container (an e-mail attachment's `input.within`). Parts are
// placed when their page is written, not when they are made: until then their boxes still
// change (turned back to the displayed page, a repeated table header dropped).
import type { Provenance } from '../kit/provenance.js';
import type { PdfPageT } from './schema.js';

/** A part's provenance until its page is written (placePage replaces it). */
export const UNPLACED: Provenance = Object.freeze({});

type Box = [number, number, number, number];

/**
 * The provenance of a box on page `page`. The box array is shared with the part's `bbox`
 * (no copy per part: the artifact writes the numbers, the heap holds them once).
 */
export function placeOf(within: Provenance | undefined, page: number, box: Box): Provenance {
  return within ? { ...within, page, box } : { page, box };
}

/** Gives every part of `page` but its blocks (placed as they are made) its page and box. */
export function placePage(page: PdfPageT, within: Provenance | undefined): void {
  const n = page.number;
  for (const t of page.tables ?? []) {
    t.provenance = placeOf(within, n, t.bbox);
    for (const c of t.cells) c.provenance = placeOf(within, n, c.bbox);
  }
  for (const l of page.ocr?.lines ?? []) {
    l.provenance = placeOf(within, n, l.bbox);
    for (const w of l.words) w.provenance = placeOf(within, n, w.bbox);
  }
  for (const parts of [page.links, page.annotations, page.formFields, page.images]) {
    for (const x of parts ?? []) x.provenance = placeOf(within, n, x.bbox);
  }
}
