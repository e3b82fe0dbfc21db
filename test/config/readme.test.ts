// The README documents every configuration variable (the table is generated from CONFIG_DOCS).
import { describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { CONFIG_DOCS } from '../../src/config.js';

describe('README configuration table', () => {
  it('has a row for every variable the service reads', async () => {
    const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
    const missing = CONFIG_DOCS.filter((c) => !readme.includes(`| \`${c.name}\` |`)).map((c) => c.name);
    expect(missing).toEqual([]);
  });
});
