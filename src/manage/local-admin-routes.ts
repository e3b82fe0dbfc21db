// POST /manage/v1/local/admin: runs one `docparse admin …` command inside the node that
// holds the data dir, against its own open control plane, and returns the exit code and the
// lines the command printed. Only the operator credential from the data dir opens it; the
// credential is checked before the body is read, so nobody else learns anything here, and
// app tokens are just wrong credentials.
import { Type } from '@sinclair/typebox';
import type { RequestContext, RouteDef } from '../http/route.js';
import { problem, problems, type ProblemError } from '../http/problem.js';
import { validateBody } from '../http/validation.js';
import type { AdminResult } from '../cli/admin-command.js';
import type { OperatorCredential } from '../data-dir/operator-credential.js';
import { MANAGE_REALM } from './principal.js';

export const LOCAL_ADMIN_PATH = '/manage/v1/local/admin';

const MAX_BODY_BYTES = 64 * 1024;

export const LocalAdminRequest = Type.Object(
  {
    args: Type.Array(Type.String({ maxLength: 8192 }), {
      minItems: 1,
      maxItems: 64,
      description: 'The words after `docparse admin`, e.g. ["app", "disable", "<app-id>"].',
    }),
  },
  { additionalProperties: false },
);

export const LocalAdminResponse = Type.Object({
  exitCode: Type.Integer({ description: '0 done, 1 the operation failed, 2 bad command line.' }),
  stdout: Type.Array(Type.String()),
  stderr: Type.Array(Type.String()),
});

export interface LocalAdminDeps {
  credential: OperatorCredential;
  /** Runs one admin command (src/cli/admin-command.ts executeAdminCommand). */
  run(args: string[]): Promise<AdminResult>;
}

const BEARER = /^bearer[ \t]+(\S+)[ \t]*$/i;

function refuse(detail: string): ProblemError {
  return problem(
    'invalid_operator_credential',
    detail,
    {},
    {
      'WWW-Authenticate': `Bearer realm="${MANAGE_REALM}"`,
    },
  );
}

/** Throws 401 unless the request carries the operator credential. */
function checkOperator(ctx: RequestContext, credential: OperatorCredential): void {
  const header = ctx.headers.authorization;
  if (header === undefined) throw refuse(`Send the operator credential from the data dir as "Authorization: Bearer <credential>".`);
  const m = BEARER.exec(header.trim());
  if (!m || !credential.matches(m[1])) throw refuse('The operator credential is not valid (the node makes a new one on every start).');
}

async function readRequest(ctx: RequestContext): Promise<string[]> {
  const type = (ctx.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/json') throw problems.unsupportedMediaType('application/json');
  const raw = ctx.bodyStream ? await ctx.bodyStream.readAll(MAX_BODY_BYTES) : Buffer.alloc(0);
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch (e) {
    throw problems.invalidParameter('body', `The request body is not valid JSON: ${(e as Error).message}`);
  }
  return validateBody<{ args: string[] }>(LocalAdminRequest, parsed).args;
}

export function localAdminRoutes(deps: LocalAdminDeps): RouteDef[] {
  // One command at a time, as when `docparse admin` held the data dir itself.
  let queue: Promise<unknown> = Promise.resolve();
  const runInTurn = (args: string[]) => {
    const result = queue.then(() => deps.run(args));
    queue = result.catch(() => {});
    return result;
  };

  return [
    {
      method: 'POST',
      path: LOCAL_ADMIN_PATH,
      operationId: 'runLocalAdminCommand',
      summary: 'Run a `docparse admin` command in this node (operator credential only)',
      tags: ['manage'],
      // Not an app token: the handler checks the operator credential itself, before the body.
      auth: 'public',
      body: { kind: 'raw', description: 'JSON: {"args": [...]}', contentTypes: ['application/json'] },
      responses: {
        200: { description: 'The command ran; its exit code and output.', schema: LocalAdminResponse },
      },
      errors: ['invalid_operator_credential', 'document_too_large', 'unsupported_media_type'],
      handler: async (ctx) => {
        checkOperator(ctx, deps.credential);
        const args = await readRequest(ctx);
        return { status: 200, json: await runInTurn(args) };
      },
    },
  ];
}
