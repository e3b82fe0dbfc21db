// Which pages a PDF really has. PDFium takes a page tree at its word: its /Count (up to about
// a million) is the page count, and a page object that Kids name twice is two pages. A page
// object has one /Parent, so a tree that names it again is broken: a 180 KB file whose Kids
// name one page 30,000 times would be billed, extracted and OCR'd 30,000 times. Pages are
// read, written and billed once per page object, in the order the tree first names them.
import type { PdfDocument } from './document.js';

/**
 * Entries in a row that name no page before the scan stops. Past the last real entry each
 * lookup makes PDFium walk the whole tree again (a /Count of a million over a tree of 100,000
 * entries would take hours), while an unreadable entry inside the tree costs nothing.
 */
const END_OF_TREE = 8;

export interface PageTree {
  /** Positions (0-based, in tree order) of the distinct page objects, each where first named. */
  pages: number[];
  /** Entries the tree declares (PDFium's page count). */
  entries: number;
  /** Entries naming a page object named before. */
  repeated: number;
  /** Entries with no page object behind them (a /Count above the tree's, a broken Kids entry). */
  missing: number;
}

export function readPageTree(doc: PdfDocument): PageTree {
  const { ex } = doc.p;
  const entries = doc.pageCount;
  const seen = new Set<number>();
  const pages: number[] = [];
  let repeated = 0;
  let missing = 0;
  let run = 0;
  for (let i = 0; i < entries; i++) {
    // 0 when no page dictionary is found there (PDFium makes inline page dictionaries indirect).
    const objectNumber = ex.EPDFDoc_GetPageObjectNumberByIndex(doc.handle, i) as number;
    if (objectNumber <= 0) {
      missing++;
      if (++run === END_OF_TREE) {
        missing += entries - i - 1;
        break;
      }
      continue;
    }
    run = 0;
    if (seen.has(objectNumber)) repeated++;
    else {
      seen.add(objectNumber);
      pages.push(i);
    }
  }
  return { pages, entries, repeated, missing };
}

/** The warning that says what was left out, or null for a sound tree. */
export function pageTreeWarning(tree: PageTree): string | null {
  if (!tree.repeated && !tree.missing) return null;
  const entries = (n: number, what: string) => `${n} entr${n === 1 ? 'y names' : 'ies name'} ${what}`;
  const parts: string[] = [];
  if (tree.repeated) parts.push(entries(tree.repeated, 'a page already listed'));
  if (tree.missing) parts.push(entries(tree.missing, 'no page'));
  return (
    `the page tree lists ${tree.entries} pages but holds ${tree.pages.length} distinct page object${tree.pages.length === 1 ? '' : 's'}: ` +
    `${parts.join(' and ')}; each page is read and billed once (page numbers are positions in the tree)`
  );
}
