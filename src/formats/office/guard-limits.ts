// What LibreOffice is never handed: counts declared inside a file that make LibreOffice 7.4
// work for minutes and gigabytes on a few kilobytes (measured, see docs/formats/office.md).
// Each limit is far above what real documents hold, so only crafted or damaged files meet it;
// such a file is refused in milliseconds, before any soffice process starts.
import { ExtractionError } from '../kit/types.js';

/** RTF: `{` groups open at once. LibreOffice copies its state per level: time grows with the square of the depth (10 000 levels: 8 s). */
export const MAX_RTF_GROUP_DEPTH = 1000;

/** RTF: table nesting level (\itapN). LibreOffice allocates one table buffer per level up front (10⁶: 5 s; 2³¹: hours). */
export const MAX_TABLE_NESTING = 1000;

/** Text columns of one section or page style. Word's own maximum; past it LibreOffice's layout does not finish (32 767 columns: 18 s per section). */
export const MAX_SECTION_COLUMNS = 45;

/** Text columns of all sections together: the layout's time grows with each multi-column section (45 columns × 100 sections: 15 s). */
export const MAX_TOTAL_COLUMNS = 1000;

/** Spreadsheets: cells with content that repetition attributes add (a value repeated over 1 048 576 × 16 384 cells never finishes). */
export const MAX_REPEATED_CELLS = 100_000;

const grouped = (n: number) => n.toLocaleString('en-US');

/** Text columns a document asks for, section by section; refuses past either limit. */
export class ColumnTally {
  private total = 0;

  /** One section (or page style) with `columns` columns; `where` names it for the message. */
  add(columns: number, where: string): void {
    if (columns <= 1) return;
    if (columns > MAX_SECTION_COLUMNS)
      throw new ExtractionError(
        `the document asks for ${grouped(columns)} text columns in ${where}; at most ${MAX_SECTION_COLUMNS} are laid out (more never finish in LibreOffice)`,
        'document_too_complex',
      );
    this.total += columns;
    if (this.total > MAX_TOTAL_COLUMNS)
      throw new ExtractionError(
        `the document's sections ask for more than ${grouped(MAX_TOTAL_COLUMNS)} text columns in all; so many multi-column sections are not laid out (LibreOffice would take minutes)`,
        'document_too_complex',
      );
  }
}

/** Cells that repetition adds to a spreadsheet; refuses past MAX_REPEATED_CELLS. */
export class RepeatTally {
  private added = 0;

  /** A cell with content written once and repeated `rows` × `columns` times. */
  add(rows: number, columns: number): void {
    this.added += rows * columns - 1;
    if (this.added > MAX_REPEATED_CELLS)
      throw new ExtractionError(
        `the spreadsheet repeats cells with content over more than ${grouped(MAX_REPEATED_CELLS)} cells (table:number-rows-repeated × table:number-columns-repeated); such a sheet is not expanded (LibreOffice would take minutes and gigabytes)`,
        'document_too_complex',
      );
  }
}
