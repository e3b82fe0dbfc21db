// docs/errors.md, rendered from the catalogue (scripts/docs/errors.mjs writes it after the
// build; test/errors/catalogue.test.ts fails when the committed page differs).
import { JOB_FAILURES, OAUTH_ERRORS, PROBLEMS, type ProblemCode, type ProblemGroup } from './catalogue.js';

const GROUPS: Record<ProblemGroup, { heading: string; intro: string }> = {
  front: {
    heading: 'Any request (the HTTP front)',
    intro: 'Refusals of the HTTP layer itself, on any path; they are not repeated on each operation of the OpenAPI documents.',
  },
  request: { heading: 'Parameters and bodies', intro: 'Any endpoint that takes parameters or a body.' },
  auth: {
    heading: 'Access tokens (parsing API)',
    intro: 'Every `/api/v1` endpoint except the presigned PUT; 401s carry `WWW-Authenticate: Bearer …`.',
  },
  documents: { heading: 'Documents', intro: 'Uploads, status and results (`/api/v1/documents…`, `/api/v1/uploads/…`).' },
  health: { heading: 'Health', intro: 'The public health endpoints.' },
  manage: { heading: 'Management API', intro: '`/manage/v1`: tenants, members, apps, plans, storage, keys, usage, mail, audit.' },
  dashboard: { heading: 'Dashboard sign-in', intro: 'Signing in to the dashboard (`{dashboard_url}`).' },
};

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function renderErrorsPage(): string {
  const out: string[] = [
    '# Errors',
    '',
    '<!-- Generated from src/errors/catalogue.ts by `npm run docs:errors`; edit the catalogue, not this page. -->',
    '',
    'Every error code a client can meet, from one table in the code (`src/errors/catalogue.ts`): the',
    "problems the API answers with, the reasons a job fails, and the token endpoint's OAuth errors.",
    'A code always has the same HTTP status and title; the OpenAPI documents (`/openapi/v1.json`,',
    '`/openapi/manage-v1.json`) list, per operation, the codes it answers with.',
    '',
    '## Problem documents',
    '',
    'Errors are RFC 9457 `application/problem+json` bodies: `type` (`https://docparse.dev/problems/<code>`),',
    '`title`, `status`, `detail` (what went wrong this time, in a sentence), `instance` (the path), `code`,',
    "`requestId` (also in `X-Request-Id`, and in the node's log), and for some codes the extra members",
    'named below (`parameter`, `allowed`, `maxBytes`, `limit` …). Match on `code`, not on `title` or `detail`.',
  ];
  for (const [group, { heading, intro }] of Object.entries(GROUPS) as [ProblemGroup, (typeof GROUPS)[ProblemGroup]][]) {
    const codes = (Object.keys(PROBLEMS) as ProblemCode[]).filter((c) => PROBLEMS[c].group === group);
    out.push('', `### ${heading}`, '', intro, '', '| HTTP | `code` | Title | When |', '|---|---|---|---|');
    for (const c of codes) out.push(`| ${PROBLEMS[c].status} | \`${c}\` | ${cell(PROBLEMS[c].title)} | ${cell(PROBLEMS[c].when)} |`);
  }
  out.push(
    '',
    '## Job failures',
    '',
    'A job that fails (status `failed`, 9) carries `error`: `{code, message, stage}` in the status answers;',
    '`GET …/result` answers it as a 422 problem titled "Extraction failed" whose `code` is the job\'s and whose',
    '`error` is the whole object. `message` is a sentence about the document; `stage` is `upload`, `extract`,',
    '`worker` or `materialize`. A code here may share its name with a problem above when it means the same',
    'thing found later (e.g. `quota_exceeded`: refused at upload with 429, or failing the job once parsed).',
    '',
    '| `code` | Retried first | When |',
    '|---|---|---|',
  );
  for (const [c, e] of Object.entries(JOB_FAILURES)) out.push(`| \`${c}\` | ${e.retried ? 'yes' : 'no'} | ${cell(e.when)} |`);
  out.push(
    '',
    '## Token endpoint',
    '',
    '`POST {auth_url}/connect/token` answers in RFC 6749 §5.2\'s format, `{"error", "error_description"}`',
    '(`application/json`), so that standard OAuth clients understand it. RFC 6749 ties a code to a meaning,',
    'not to one status: the statuses each is answered with are listed.',
    '',
    '| `error` | HTTP | When |',
    '|---|---|---|',
  );
  for (const [c, e] of Object.entries(OAUTH_ERRORS)) out.push(`| \`${c}\` | ${e.statuses.join(', ')} | ${cell(e.when)} |`);
  return out.join('\n') + '\n';
}
