// The error catalogue is the one description of every code: each code named in src/ is in it,
// with the status and title it is answered with, and docs/errors.md is the page rendered from it.
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { JOB_FAILURES, OAUTH_ERRORS, PROBLEMS } from '../../src/errors/catalogue.js';
import { renderErrorsPage } from '../../src/errors/page.js';
import { problem, problems } from '../../src/http/problem.js';
import { codeUses, type CodeUse } from './code-scan.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** Where problems are made from the catalogue's own entries (computed codes by design). */
const MAKERS = new Set(['src/http/problem.ts']);
/**
 * Sites in files another engineer owns (issue 20's dashboard), landed before the catalogue: each
 * is allowed only until it is converted (problem('rate_limited', …); problemFromBody for a
 * relayed reply), and the test fails once an entry no longer occurs, so the list only shrinks.
 */
const PENDING = new Set<string>([]);
const withoutLine = (s: string) => s.replace(/^([^:]+):\d+:/, '$1:');

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(path.join(REPO, dir), { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((e) => (e.isDirectory() ? sourceFiles(`${dir}/${e.name}`) : Promise.resolve(e.name.endsWith('.ts') ? [`${dir}/${e.name}`] : []))),
  );
  return nested.flat();
}

/** What is wrong with one use of a code, or null when the catalogue agrees. */
function disagreement(use: CodeUse): string | null {
  const p = (PROBLEMS as Record<string, { status: number; title: string }>)[use.kind === 'unreadable' ? '' : use.code];
  switch (use.kind) {
    case 'unreadable':
      return `${use.where}: ${use.what}: name a code of src/errors/catalogue.ts with problem(code, detail)`;
    case 'problem':
      if (!p) return `${use.where}: problem code ${use.code} is not in the catalogue`;
      if (use.status !== undefined && use.status !== p.status) return `${use.where}: ${use.code} with status ${use.status}; the catalogue says ${p.status}`;
      if (use.title !== undefined && use.title !== p.title)
        return `${use.where}: ${use.code} titled ${JSON.stringify(use.title)}; the catalogue says ${JSON.stringify(p.title)}`;
      // Even an agreeing status and title are a second copy of the catalogue's.
      if (use.status !== undefined) return `${use.where}: ${use.code} made with new ProblemError: make it with problem(code, detail)`;
      return null;
    case 'job failure':
      return use.code in JOB_FAILURES ? null : `${use.where}: job failure code ${use.code} is not in the catalogue`;
    case 'error object':
      return use.code in JOB_FAILURES || p ? null : `${use.where}: error code ${use.code} is not in the catalogue`;
    case 'oauth': {
      const o = (OAUTH_ERRORS as Record<string, { statuses: readonly number[] }>)[use.code];
      if (!o) return `${use.where}: OAuth error ${use.code} is not in the catalogue`;
      if (use.status !== undefined && !o.statuses.includes(use.status))
        return `${use.where}: ${use.code} with status ${use.status}; the catalogue lists ${o.statuses.join(', ')}`;
      return null;
    }
  }
}

describe('error catalogue', () => {
  it('docs/errors.md is the page rendered from the catalogue (npm run docs:errors)', async () => {
    const page = await readFile(path.join(REPO, 'docs/errors.md'), 'utf8');
    expect(page).toBe(renderErrorsPage());
    // Every code has its row.
    for (const code of [...Object.keys(PROBLEMS), ...Object.keys(JOB_FAILURES), ...Object.keys(OAUTH_ERRORS)]) expect(page).toContain(`| \`${code}\` |`);
  });

  it('every code named in src/ is in the catalogue, and every problem is made from it', async () => {
    const uses: CodeUse[] = [];
    for (const file of await sourceFiles('src')) {
      if (MAKERS.has(file)) continue;
      uses.push(...codeUses(file, await readFile(path.join(REPO, file), 'utf8')));
    }
    // The scan does see the codes (a scan that found nothing would pass anything).
    expect(uses.filter((u) => u.kind === 'problem').length).toBeGreaterThan(20);
    expect(uses.filter((u) => u.kind === 'job failure').length).toBeGreaterThan(10);
    expect(uses.filter((u) => u.kind === 'error object').length).toBeGreaterThan(5);
    const found = uses.map(disagreement).filter((d): d is string => d !== null);
    expect(found.filter((d) => !PENDING.has(withoutLine(d)))).toEqual([]);
    expect(
      [...PENDING].filter((p) => !found.some((d) => withoutLine(d) === p)),
      'converted: remove from PENDING',
    ).toEqual([]);
  });

  it('the scan names a code missing from the catalogue, a second status or title, a problem made by hand, and a computed code', () => {
    const source = [
      "throw new ProblemError(413, 'payload_too_large', 'Request body too large', 'x');",
      "throw new ProblemError(429, 'rate_limited', 'Too many jobs in flight', 'x');",
      "throw new ProblemError(400, 'invalid_parameter', 'Bad parameter', 'x');",
      "throw new ProblemError(409, `${what}_conflict`, 'Conflict', 'x');",
      "throw new ExtractionError('x', 'unreadable_document');",
      "fail(job, { code: 'timed_out', message: 'x', stage: 'worker' });",
      "new OAuthError(403, 'invalid_client', 'x');",
      "throw new ProblemError(404, 'document_not_found', 'Document not found', 'x');",
      "throw problem('document_not_found', 'x');",
    ].join('\n');
    expect(codeUses('planted.ts', source).map(disagreement)).toEqual([
      'planted.ts:1: problem code payload_too_large is not in the catalogue',
      'planted.ts:2: rate_limited titled "Too many jobs in flight"; the catalogue says "Rate limit exceeded"',
      'planted.ts:3: invalid_parameter titled "Bad parameter"; the catalogue says "Invalid parameter"',
      'planted.ts:4: new ProblemError with a computed code: name a code of src/errors/catalogue.ts with problem(code, detail)',
      'planted.ts:5: job failure code unreadable_document is not in the catalogue',
      'planted.ts:6: error code timed_out is not in the catalogue',
      'planted.ts:7: invalid_client with status 403; the catalogue lists 401, 429',
      'planted.ts:8: document_not_found made with new ProblemError: make it with problem(code, detail)',
      null,
    ]);
  });

  it('a code has one status and one title wherever it is made', () => {
    expect(problem('rate_limited', 'a')).toMatchObject({ status: 429, title: 'Rate limit exceeded' });
    // The 413 of a JSON body and of a document is one code (issue 18 found two).
    expect(problems.bodyTooLarge(10)).toMatchObject({
      status: 413,
      code: 'document_too_large',
      title: PROBLEMS.document_too_large.title,
      extras: { maxBytes: 10 },
    });
    // A failed job's result: 422 titled as extraction_failed, whatever the job's own code.
    expect(problems.jobFailed('d', { code: 'encrypted_document', message: 'm', stage: 'extract' })).toMatchObject({
      status: 422,
      code: 'encrypted_document',
      title: 'Extraction failed',
      detail: 'm',
    });
  });
});
