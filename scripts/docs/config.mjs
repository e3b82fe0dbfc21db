// Rewrites the configuration table in docs/configuration.md from CONFIG_DOCS (src/config.ts),
// so the page always lists what the service reads. Needs a compiled dist/ — run it as
// `npm run docs:config`, which compiles first. Only the lines between the two markers change.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const page = `${repo}docs/configuration.md`;
const BEGIN = '<!-- BEGIN CONFIG_DOCS';
const END = '<!-- END CONFIG_DOCS -->';

const { CONFIG_DOCS } = await import(new URL('../../dist/config.js', import.meta.url).href);

// A `|` inside a cell would end it: escape it as GitHub's table syntax expects.
const cell = (s) => s.replace(/\|/g, '\\|');
const table = [
  '| Variable | Default | Meaning |',
  '|---|---|---|',
  ...CONFIG_DOCS.map((r) => `| \`${r.name}\` | ${cell(r.default)} | ${cell(r.description)} |`),
];

const lines = fs.readFileSync(page, 'utf8').split('\n');
const begin = lines.findIndex((l) => l.startsWith(BEGIN));
const end = lines.findIndex((l, i) => i > begin && l.startsWith(END));
if (begin < 0 || end < 0) {
  throw new Error(`${page}: the markers "${BEGIN} …" and "${END}" are missing; the table goes between them`);
}
lines.splice(begin + 1, end - begin - 1, ...table);
fs.writeFileSync(page, lines.join('\n'));
console.log(`docs/configuration.md: ${CONFIG_DOCS.length} variables`);
