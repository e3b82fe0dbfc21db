// Every page action is a management API call, made in-process: the route's own handler runs
// with a RequestContext built from the page request (same cookie, so the SessionResolver
// finds the same session; the checked CSRF token as X-CSRF-Token; the JSON body as a body
// stream). Authorization, visibility, validation and the audit log are exactly the API's.
import { randomUUID } from 'node:crypto';
import { BodyStream } from '../../http/body.js';
import { problemFromBody } from '../../http/problem.js';
import type { Reply, RequestContext, RouteDef } from '../../http/route.js';
import { parseQuery, validateBody } from '../../http/validation.js';

export interface CallInput {
  params?: Record<string, string>;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** e.g. text/csv for the billing exports. */
  accept?: string;
}

/** The management routes by operationId, built once per dashboard. */
export function indexRoutes(routes: RouteDef[]): Map<string, RouteDef> {
  const byId = new Map<string, RouteDef>();
  for (const r of routes) if (r.api === 'manage') byId.set(r.operationId, r);
  return byId;
}

const NO_SOURCE = { pause() {}, resume() {} };

function bodyStreamOf(json: unknown): BodyStream {
  const bytes = Buffer.from(JSON.stringify(json), 'utf8');
  const stream = new BodyStream(NO_SOURCE, bytes.length);
  stream.push(bytes, true);
  return stream;
}

function fillPath(template: string, params: Record<string, string>): string {
  return template.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
}

export class ManageClient {
  constructor(
    private readonly routes: Map<string, RouteDef>,
    /** The page request: its cookie, address and abort signal carry over. */
    private readonly page: RequestContext,
    private readonly csrfToken: string,
  ) {}

  /** The route's reply as it would go out; a refusal throws the route's ProblemError. */
  async reply(operationId: string, input: CallInput = {}): Promise<Reply> {
    const route = this.routes.get(operationId);
    if (!route) throw new Error(`no management route ${operationId}`);
    const params = input.params ?? {};
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(input.query ?? {})) if (v !== undefined && v !== '') query.set(k, String(v));
    const headers: Record<string, string> = { 'x-csrf-token': this.csrfToken };
    for (const h of ['cookie', 'user-agent'] as const) if (this.page.headers[h] !== undefined) headers[h] = this.page.headers[h];
    if (input.accept) headers.accept = input.accept;
    if (input.body !== undefined) headers['content-type'] = 'application/json';
    const ctx: RequestContext = {
      method: route.method,
      path: fillPath(route.path, params),
      // The same coercion and checks the front applies to a request from outside.
      query: parseQuery(route.query, query.toString()),
      params,
      headers,
      remoteAddress: this.page.remoteAddress,
      requestId: `${this.page.requestId}:${randomUUID().slice(0, 8)}`,
      body: undefined,
      bodyStream: input.body !== undefined ? bodyStreamOf(input.body) : null,
      principal: null,
      signal: this.page.signal,
    };
    if (route.params) validateBody(route.params, params, 'path');
    const reply = await route.handler(ctx);
    // Routes refuse by throwing; a refusal answered as a reply is thrown the same way.
    if (reply.status >= 400) throw problemFromBody(reply.status, ('json' in reply ? reply.json : {}) as Record<string, unknown>);
    return reply;
  }

  /** The JSON answer of a management route. */
  async call<T = unknown>(operationId: string, input: CallInput = {}): Promise<T> {
    const reply = await this.reply(operationId, input);
    if (!('json' in reply)) throw new Error(`${operationId} did not answer JSON`);
    return reply.json as T;
  }
}
