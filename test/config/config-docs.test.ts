// docs/configuration.md documents every configuration variable: its table is the one
// `npm run docs:config` generates from CONFIG_DOCS, and every DOCPARSE_* variable the source
// reads is named on the page.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CONFIG_DOCS } from '../../src/config.js';
import { configTableLines, tableSpan } from '../../scripts/docs/config-table.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const page = readFileSync(path.join(REPO, 'docs/configuration.md'), 'utf8');

/** Every `DOCPARSE_…` name in the TypeScript under src/ (code and comments alike). */
function docparseVariablesInSource(): string[] {
  const names = new Set<string>();
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(p);
      else if (entry.name.endsWith('.ts')) {
        // A trailing `_` is a family of names written as a prefix (`DOCPARSE_ARCHIVE_*`).
        for (const m of readFileSync(p, 'utf8').matchAll(/\bDOCPARSE_[A-Z0-9_]*[A-Z0-9]\b/g)) names.add(m[0]);
      }
    }
  };
  walk(path.join(REPO, 'src'));
  return [...names].sort();
}

describe('docs/configuration.md', () => {
  it('has a row for every variable in CONFIG_DOCS', () => {
    const { table } = tableSpan(page);
    const missing = CONFIG_DOCS.filter((c) => !table.some((row) => row.startsWith(`| \`${c.name}\` |`))).map((c) => c.name);
    expect(missing).toEqual([]);
  });

  it('shows the table CONFIG_DOCS generates (run `npm run docs:config` after changing it)', () => {
    expect(tableSpan(page).table).toEqual(configTableLines(CONFIG_DOCS));
  });

  it('names every DOCPARSE_* variable the source reads', () => {
    const sourceNames = docparseVariablesInSource();
    expect(sourceNames.length).toBeGreaterThan(40);
    expect(sourceNames.filter((name) => !new RegExp(`\\b${name}\\b`).test(page))).toEqual([]);
  });
});
