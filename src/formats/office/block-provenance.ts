// Provenance of a word-processing document's blocks, tables and cells: where the document sits
// in the upload (ParseInput.within), and the page of the rendered layout each starts on when
// the layout was rendered (page-locator.ts). Blocks inside a cell are covered by their cell.
import type { Provenance } from '../kit/provenance.js';
import type { PageLocator } from './page-locator.js';
import type { OfficeBlock } from './schema.js';

type Table = Extract<OfficeBlock, { type: 'table' }>;

/**
 * Sets `provenance` on each block, table and cell, in document order. Without a locator
 * (the layout was not rendered) only `within` is given, and nothing when that is empty.
 */
export function addBlockProvenance(blocks: OfficeBlock[], within: Provenance | undefined, locator: PageLocator | null): void {
  const at = (page: number | undefined): Provenance | undefined => {
    const p: Provenance = page === undefined ? { ...within } : { ...within, page };
    return Object.keys(p).length ? p : undefined;
  };
  const place = (b: OfficeBlock): void => {
    if (b.type === 'table') {
      const first = placeCells(b, locator, at);
      const p = at(first);
      if (p) b.provenance = p;
      return;
    }
    // A text box is laid out beside the flow: found, but the flow is not searched after it.
    const p = at(locator?.locate(b.text, !b.inTextBox));
    if (p) b.provenance = p;
  };
  for (const b of blocks) place(b);
}

/** Places the cells of a table in reading order; the page of the first cell found. */
function placeCells(table: Table, locator: PageLocator | null, at: (page: number | undefined) => Provenance | undefined): number | undefined {
  let first: number | undefined;
  for (const row of table.rows)
    for (const cell of row) {
      const page = locator?.locate(cell.text);
      first ??= page;
      const p = at(page);
      if (p) cell.provenance = p;
    }
  return first;
}

/** Tables in the blocks, those nested in cells included. */
export function countTables(blocks: readonly OfficeBlock[]): number {
  let n = 0;
  for (const b of blocks) {
    if (b.type !== 'table') continue;
    n++;
    for (const row of b.rows) for (const cell of row) if (cell.blocks) n += countTables(cell.blocks);
  }
  return n;
}
