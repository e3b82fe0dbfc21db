// The families table in README.md and docs/formats/README.md is the one the families'
// declarations render (npm run docs:families), and the declarations themselves are
// unambiguous: detection and upload validation read them as maps.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FAMILIES_TABLE_PAGES, familiesTableLines, familiesTableSpan } from '../../src/formats/families-table.js';
import { DOCUMENT_TYPES, FAMILIES, FORMAT_LIST } from '../../src/formats/registry.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('the families table', () => {
  for (const { page, linkPrefix } of FAMILIES_TABLE_PAGES) {
    it(`in ${page} is the one the declarations render (npm run docs:families)`, () => {
      const { table } = familiesTableSpan(readFileSync(path.join(REPO, page), 'utf8'));
      expect(table).toEqual(familiesTableLines(linkPrefix));
    });
  }

  it('has a row per family, naming every format and every routing value', () => {
    const lines = familiesTableLines(null);
    expect(lines).toHaveLength(2 + FAMILIES.length);
    for (const f of FAMILIES) {
      const row = lines.find((l) => l.startsWith(`| ${f.title} |`))!;
      for (const d of f.formats) expect(row).toContain(d.format);
      for (const p of f.routing) for (const v of p.values) expect(row).toContain(v.value);
    }
  });
});

describe('the families’ declarations', () => {
  it('name each format, documentType and extension once', () => {
    const formats = FORMAT_LIST.map((f) => f.descriptor.format);
    expect(new Set(formats).size).toBe(formats.length);
    expect(new Set(DOCUMENT_TYPES).size).toBe(DOCUMENT_TYPES.length);
    const extensions = FORMAT_LIST.flatMap((f) => f.descriptor.extensions);
    expect(new Set(extensions).size).toBe(extensions.length);
  });

  it('give every required routing parameter no default, and every optional one a default among its values', () => {
    for (const f of FAMILIES) {
      for (const p of f.routing) {
        if (p.required) expect(p.default, `${f.family} ${p.name}`).toBeUndefined();
        else
          expect(
            p.values.map((v) => v.value),
            `${f.family} ${p.name}`,
          ).toContain(p.default);
      }
    }
  });
});
