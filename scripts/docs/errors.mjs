// Writes docs/errors.md from the error catalogue (src/errors/catalogue.ts), as built into
// dist/ by `npm run build`. Run through `npm run docs:errors`; test/errors/catalogue.test.ts
// fails while the committed page differs from the catalogue.
import { writeFile } from 'node:fs/promises';

const root = new URL('../../', import.meta.url);
const { renderErrorsPage } = await import(new URL('dist/errors/page.js', root).href);
const target = new URL('docs/errors.md', root);
await writeFile(target, renderErrorsPage());
console.log(`wrote ${target.pathname}`);
