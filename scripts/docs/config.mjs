// Rewrites the configuration table in docs/configuration.md from CONFIG_DOCS (src/config.ts),
// so the page always lists what the service reads. Needs a compiled dist/ — run it as
// `npm run docs:config`, which compiles first. Only the lines between the two markers change.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { configTableLines, withTable } from './config-table.mjs';

const page = fileURLToPath(new URL('../../docs/configuration.md', import.meta.url));
const { CONFIG_DOCS } = await import(new URL('../../dist/config.js', import.meta.url).href);

try {
  fs.writeFileSync(page, withTable(fs.readFileSync(page, 'utf8'), configTableLines(CONFIG_DOCS)));
} catch (e) {
  throw new Error(`${page}: ${e.message}`, { cause: e });
}
console.log(`docs/configuration.md: ${CONFIG_DOCS.length} variables`);
