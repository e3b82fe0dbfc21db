// Every relative link in README.md and docs/ leads somewhere: the file exists and, for an anchor
// into a Markdown page, the heading does. And no page of docs/ is an orphan: each one can be
// reached from the README.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { brokenLinks, githubSlug, markdownFilesUnder, reachableFrom } from './markdown-links.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const pages = ['README.md', ...markdownFilesUnder(REPO, 'docs')];

describe('documentation links', () => {
  it.each(pages)('%s: every relative link resolves', (page) => {
    expect(brokenLinks(REPO, page)).toEqual([]);
  });

  it('every page under docs/ can be reached from the README', () => {
    const reachable = reachableFrom(REPO, 'README.md');
    const orphans = markdownFilesUnder(REPO, 'docs').filter((p) => !reachable.has(p));
    expect(orphans).toEqual([]);
  });
});

describe('the link checker', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'docparse-links-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(path.join(dir, 'docs'));
  writeFileSync(path.join(dir, 'docs', 'target.md'), '# Target page\n\n## Limits of the `HTTP` front\n\n## Notes\n\n## Notes\n\n```sh\n# not a heading\n```\n');

  it('names a missing file, a missing anchor and a site-absolute path, and passes good links', () => {
    writeFileSync(
      path.join(dir, 'docs', 'page.md'),
      [
        'Fine: [t](target.md), [t](target.md#limits-of-the-http-front), [t](target.md#notes-1), [top](#a-page).',
        '# A page',
        'Broken: [gone](missing.md) and [anchor](target.md#no-such-heading).',
        'Absolute: [api](/docs/target.md). External: [x](https://example.com/missing.md).',
        'In code, not links: `[x](nowhere.md)`.',
        '```md',
        '[y](nowhere-either.md)',
        '```',
      ].join('\n'),
    );
    const problems = brokenLinks(dir, 'docs/page.md');
    expect(problems).toEqual([
      'docs/page.md:3: missing.md — docs/missing.md does not exist',
      'docs/page.md:3: target.md#no-such-heading — docs/target.md has no heading with the anchor #no-such-heading',
      'docs/page.md:4: /docs/target.md — a site-absolute path does not resolve in the repository; use a relative one',
    ]);
  });

  it('makes anchors as GitHub does', () => {
    expect(githubSlug('PDF (`pdfMode=SingleColumn|MultiColumn|Ocr|Advanced`)')).toBe('pdf-pdfmodesinglecolumnmulticolumnocradvanced');
    expect(githubSlug('Redis, PostgreSQL and other nodes going away')).toBe('redis-postgresql-and-other-nodes-going-away');
    expect(githubSlug('Crash containment and outages (issue 16)')).toBe('crash-containment-and-outages-issue-16');
    expect(githubSlug('E-mail')).toBe('e-mail');
  });
});
