// Rewrites the families table in README.md and docs/formats/README.md from the families'
// declarations (src/formats/<family>/family.ts, rendered by src/formats/families-table.ts).
// Needs a compiled dist/ — run it as `npm run docs:families`, which compiles first. Only the
// lines between the two markers change.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

const { FAMILIES_TABLE_PAGES, familiesTableLines, withFamiliesTable } = await import(new URL('../../dist/formats/families-table.js', import.meta.url).href);

for (const { page, linkPrefix } of FAMILIES_TABLE_PAGES) {
  const file = fileURLToPath(new URL(`../../${page}`, import.meta.url));
  try {
    fs.writeFileSync(file, withFamiliesTable(fs.readFileSync(file, 'utf8'), familiesTableLines(linkPrefix)));
  } catch (e) {
    throw new Error(`${page}: ${e.message}`, { cause: e });
  }
  console.log(`${page}: families table written`);
}
