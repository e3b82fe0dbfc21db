// OpenAPI 3.1 document built from the registered routes' own schemas (the ones that
// validate requests), so the description cannot drift from the behaviour.
// Error responses come from the catalogue (src/errors/catalogue.ts) through the codes each
// route answers with (route-errors.ts).
import { Type, type TSchema } from '@sinclair/typebox';
import { JOB_FAILURES, OAUTH_ERRORS, PROBLEMS, type OAuthErrorCode, type ProblemCode } from '../errors/catalogue.js';
import type { ApiDocument, ResponseDoc, RouteDef } from './route.js';
import { codesByStatus, problemCodesOf } from './route-errors.js';

/** Every `code` a problem document can carry: the catalogue's problems and job failures. */
const ALL_CODES = [...new Set([...Object.keys(PROBLEMS), ...Object.keys(JOB_FAILURES)])].sort();

export const ProblemSchema = Type.Object(
  {
    type: Type.String({ format: 'uri' }),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.Optional(Type.String()),
    instance: Type.Optional(Type.String()),
    code: Type.String({ description: 'Stable machine-readable error code; each is described on the errors page (docs/errors.md).', enum: ALL_CODES }),
    requestId: Type.String(),
    parameter: Type.Optional(Type.String({ description: 'For invalid_parameter: the offending parameter.' })),
    allowed: Type.Optional(Type.Array(Type.String(), { description: 'For invalid_parameter: the accepted values.' })),
  },
  { additionalProperties: true, $id: 'Problem' },
);

export interface OpenApiInput {
  routes: RouteDef[];
  baseUrl: string;
  authUrl: string;
  version: string;
  /** Extra named schemas (e.g. artifact content per format family). */
  components?: Record<string, TSchema>;
  /** Which document: the parsing API's (default) or the management API's; routes of the other are left out. */
  api?: DocumentedApi;
}

/** The dashboard's pages are in no OpenAPI document. */
type DocumentedApi = Exclude<ApiDocument, 'dashboard'>;

const DOCUMENTS: Record<DocumentedApi, { title: string; description: string }> = {
  v1: {
    title: 'docparse API',
    description:
      'Asynchronous document parsing: upload a document, poll its status, fetch canonical JSON. Errors are RFC 9457 problem documents with a stable `code`.',
  },
  manage: {
    title: 'docparse management API',
    description:
      'Tenants, members, apps, plans, storage configs, signing keys, usage and the audit log (the dashboard, the CLI and automation use it). ' +
      "Call it with an operator API key (`Authorization: Bearer dp_op_…`). Another tenant's objects answer 404. " +
      'Errors are RFC 9457 problem documents with a stable `code`, from the same catalogue as the parsing API.',
  },
};

/** The `code` values a problem of this code carries: a failed job's result carries the job's own failure code. */
export function codesInBody(code: ProblemCode): string[] {
  return code === 'extraction_failed' ? Object.keys(JOB_FAILURES) : [code];
}

/** One status's problem response: each code with when it is answered, and the codes as an enum. */
function problemResponse(codes: ProblemCode[], own: ResponseDoc | undefined): Record<string, unknown> {
  const lines = codes.map((c) => `\`${c}\` (${PROBLEMS[c].title}): ${PROBLEMS[c].when}`);
  return {
    description: [...(own ? [own.description] : []), ...lines].join('\n\n'),
    ...(own?.headers ? { headers: responseHeaders(own.headers) } : {}),
    content: {
      'application/problem+json': {
        schema: {
          allOf: [{ $ref: '#/components/schemas/Problem' }, { properties: { code: { enum: codes.flatMap(codesInBody) } } }],
        },
      },
    },
  };
}

/**
 * The error responses of an endpoint that answers in RFC 6749 §5.2's format (the token
 * endpoint): per status, the catalogue's OAuth codes answered with it.
 */
export function oauthErrorResponses(): Record<number, ResponseDoc> {
  const byStatus = new Map<number, OAuthErrorCode[]>();
  for (const [code, e] of Object.entries(OAUTH_ERRORS) as [OAuthErrorCode, (typeof OAUTH_ERRORS)[OAuthErrorCode]][]) {
    for (const status of e.statuses) byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<number, ResponseDoc> = {};
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[status] = {
      description: codes.map((c) => `\`${c}\`: ${OAUTH_ERRORS[c].when}`).join('\n\n'),
      contentType: 'application/json',
      schema: Type.Object({
        error: Type.String({ description: 'RFC 6749 §5.2 error code.', enum: codes }),
        error_description: Type.String(),
      }),
    };
  }
  return responses;
}

function responseHeaders(headers: NonNullable<ResponseDoc['headers']>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(headers).map(([h, v]) => [h, { description: v.description, schema: stripTypebox(v.schema) }]));
}

function stripTypebox(schema: unknown): unknown {
  // TypeBox adds symbol keys only; JSON round-trip drops them and any undefined.
  return JSON.parse(JSON.stringify(schema));
}

export function buildOpenApi(input: OpenApiInput): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const api = input.api ?? 'v1';
  for (const r of input.routes.filter((route) => (route.api ?? 'v1') === api)) {
    const oasPath = r.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const parameters: unknown[] = [];
    for (const [name, s] of Object.entries(r.params?.properties ?? {})) {
      parameters.push({ name, in: 'path', required: true, schema: stripTypebox(s), description: (s as { description?: string }).description });
    }
    const required = new Set(r.query?.required ?? []);
    for (const [name, s] of Object.entries(r.query?.properties ?? {})) {
      parameters.push({ name, in: 'query', required: required.has(name), schema: stripTypebox(s), description: (s as { description?: string }).description });
    }
    const responses: Record<string, unknown> = {};
    const problemStatuses = codesByStatus(problemCodesOf(r));
    for (const [status, doc] of Object.entries(r.responses)) {
      if (problemStatuses.has(Number(status))) continue;
      const ct = doc.contentType ?? (Number(status) >= 400 ? 'application/problem+json' : 'application/json');
      responses[status] = {
        description: doc.description,
        ...(doc.headers ? { headers: responseHeaders(doc.headers) } : {}),
        ...(doc.schema || Number(status) >= 400
          ? { content: { [ct]: { schema: doc.schema ? stripTypebox(doc.schema) : { $ref: '#/components/schemas/Problem' } } } }
          : {}),
      };
    }
    for (const [status, codes] of problemStatuses) responses[status] = problemResponse(codes, r.responses[status]);
    let requestBody: unknown;
    if (r.body?.kind === 'json') requestBody = { required: true, content: { 'application/json': { schema: stripTypebox(r.body.schema) } } };
    if (r.body?.kind === 'form') requestBody = { required: true, content: { 'application/x-www-form-urlencoded': { schema: stripTypebox(r.body.schema) } } };
    if (r.body?.kind === 'raw') {
      requestBody = {
        required: true,
        description: r.body.description,
        content: Object.fromEntries(
          (r.body.contentTypes ?? ['application/octet-stream', '*/*']).map((c) => [
            c,
            {
              schema: r.body?.kind === 'raw' && r.body.schema ? stripTypebox(r.body.schema) : { type: 'string', contentMediaType: 'application/octet-stream' },
            },
          ]),
        ),
      };
    }
    paths[oasPath] ??= {};
    paths[oasPath][r.method.toLowerCase()] = {
      operationId: r.operationId,
      summary: r.summary,
      ...(r.description ? { description: r.description } : {}),
      tags: r.tags,
      ...(parameters.length ? { parameters } : {}),
      ...(requestBody ? { requestBody } : {}),
      responses,
      security: r.auth === 'bearer' ? [{ bearerAuth: [] }] : r.auth === 'manage' ? [{ operatorKey: [] }] : [],
      ...(r.server === 'auth' ? { servers: [{ url: input.authUrl, description: 'Token endpoint host ({auth_url})' }] } : {}),
    };
  }
  const schemas: Record<string, unknown> = { Problem: stripTypebox({ ...ProblemSchema, $id: undefined }) };
  for (const [name, s] of Object.entries(input.components ?? {})) schemas[name] = stripTypebox(s);
  const securitySchemes =
    api === 'manage'
      ? { operatorKey: { type: 'http', scheme: 'bearer', description: 'An operator API key (`docparse admin keys create-operator`), `dp_op_…`.' } }
      : {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'JWT',
            description: `Access token from ${input.authUrl}/connect/token (client_credentials, scope Service.API).`,
          },
        };
  return {
    openapi: '3.1.0',
    info: { title: DOCUMENTS[api].title, version: input.version, description: DOCUMENTS[api].description },
    servers: [{ url: input.baseUrl, description: api === 'manage' ? 'Management API (same origin as {dashboard_url})' : 'API ({base_url})' }],
    paths,
    components: { schemas, securitySchemes },
  };
}
