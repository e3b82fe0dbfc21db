// The configuration table of docs/configuration.md as CONFIG_DOCS (src/config.ts) renders it,
// and where it sits in the page: between the two markers. Shared by the generator
// (scripts/docs/config.mjs) and the test that keeps the page equal to it.

export const BEGIN_MARKER = '<!-- BEGIN CONFIG_DOCS';
export const END_MARKER = '<!-- END CONFIG_DOCS -->';

// A `|` inside a cell would end it: escape it as GitHub's table syntax expects.
const cell = (s) => s.replace(/\|/g, '\\|');

/** The Markdown lines of the table: header, separator, one row per variable. */
export function configTableLines(docs) {
  return ['| Variable | Default | Meaning |', '|---|---|---|', ...docs.map((r) => `| \`${r.name}\` | ${cell(r.default)} | ${cell(r.description)} |`)];
}

/** The lines between the markers of `page` (its text), and their position. */
export function tableSpan(page) {
  const lines = page.split('\n');
  const begin = lines.findIndex((l) => l.startsWith(BEGIN_MARKER));
  const end = lines.findIndex((l, i) => i > begin && l.startsWith(END_MARKER));
  if (begin < 0 || end < 0) {
    throw new Error(`the markers "${BEGIN_MARKER} …" and "${END_MARKER}" are missing; the configuration table goes between them`);
  }
  return { lines, begin, end, table: lines.slice(begin + 1, end) };
}

/** `page` with the table between its markers replaced by `tableLines`. */
export function withTable(page, tableLines) {
  const { lines, begin, end } = tableSpan(page);
  lines.splice(begin + 1, end - begin - 1, ...tableLines);
  return lines.join('\n');
}
