// WordprocessingML's text columns (w:cols w:num in each section's w:sectPr), checked before
// LibreOffice renders the DOCX: one section asking for 32 767 columns took 18 s to lay out,
// twenty never finished (guard-limits.ts).
import { ColumnTally } from './guard-limits.js';

/** Every w:cols element's column count, whatever the namespace prefix. */
const COLUMNS = /<(?:[\w.-]+:)?cols\b[^>]*?\s(?:[\w.-]+:)?num\s*=\s*["'](\d+)["']/g;

/** Refuses a main document part whose sections ask for more columns than are laid out. */
export function guardDocxColumns(mainXml: string): void {
  const tally = new ColumnTally();
  for (const m of mainXml.matchAll(COLUMNS)) tally.add(Number(m[1]), `one section (w:cols w:num="${m[1]}")`);
}
