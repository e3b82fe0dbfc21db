// The families table of the docs (README.md and docs/formats/README.md), rendered from the
// families' own declarations, and where it sits in a page: between the two markers. Written
// by scripts/docs/families.mjs; test/formats/families-table.test.ts keeps the pages equal to it.
import type { FamilyDescriptor, RoutingParameter } from './kit/family.js';
import { FAMILIES } from './registry.js';

export const BEGIN_MARKER = '<!-- BEGIN FAMILIES';
export const END_MARKER = '<!-- END FAMILIES -->';

const code = (s: string) => `\`${s}\``;
// A `|` inside a cell would end it: escape it as GitHub's table syntax expects.
const cell = (s: string) => s.replace(/\|/g, '\\|');

function parameter(p: RoutingParameter): string {
  const values = `${code(`${p.name}=${p.values.map((v) => v.value).join('|')}`)}`;
  return p.required ? `${values} (required)` : `${values} (default ${p.default})`;
}

function routing(f: FamilyDescriptor): string {
  const parts = f.routing.map(parameter);
  // ZIP-packed datasets whose archive says nothing about them: documentType names them.
  const zipped = f.formats.filter((d) => d.container === 'zip' && d.zippedNames);
  if (zipped.length) parts.push(`${code('documentType')} for ZIPs (${zipped.map((d) => code(d.documentType)).join(', ')})`);
  if (f.chunks) parts.push(code('chunkHints'));
  return parts.join(', ');
}

/**
 * The Markdown lines of the table: header, separator, one row per family. `linkPrefix`: where
 * the family pages are from the page the table is in (null: no links).
 */
export function familiesTableLines(linkPrefix: string | null, families: readonly FamilyDescriptor[] = FAMILIES): string[] {
  return [
    '| Family | Formats (`document_format`) | Routing parameters | Document Units |',
    '|---|---|---|---|',
    ...families.map((f) => {
      const name = linkPrefix === null ? f.title : `[${f.title}](${linkPrefix}${f.docPage})`;
      const formats = code(f.formats.map((d) => d.format).join(' ')) + (f.formatsNote ? ` (${f.formatsNote})` : '');
      return `| ${name} | ${cell(formats)} | ${cell(routing(f))} | ${cell(f.units)} |`;
    }),
  ];
}

/** The lines between the markers of `page` (its text), and their position. */
export function familiesTableSpan(page: string): { lines: string[]; begin: number; end: number; table: string[] } {
  const lines = page.split('\n');
  const begin = lines.findIndex((l) => l.startsWith(BEGIN_MARKER));
  const end = lines.findIndex((l, i) => i > begin && l.startsWith(END_MARKER));
  if (begin < 0 || end < 0) throw new Error(`the markers "${BEGIN_MARKER} …" and "${END_MARKER}" are missing; the families table goes between them`);
  return { lines, begin, end, table: lines.slice(begin + 1, end) };
}

/** `page` with the table between its markers replaced by `tableLines`. */
export function withFamiliesTable(page: string, tableLines: string[]): string {
  const { lines, begin, end } = familiesTableSpan(page);
  lines.splice(begin + 1, end - begin - 1, ...tableLines);
  return lines.join('\n');
}

/** The pages that show the table, with where the family pages are from each. */
export const FAMILIES_TABLE_PAGES: readonly { page: string; linkPrefix: string | null }[] = [
  { page: 'README.md', linkPrefix: 'docs/formats/' },
  { page: 'docs/formats/README.md', linkPrefix: '' },
];
