// Route definitions: one object per endpoint carries its schemas (used both to validate
// requests and to generate the OpenAPI document) and its handler.
import type { Readable } from 'node:stream';
import type { TObject, TSchema } from '@sinclair/typebox';
import type { BodyStream } from './body.js';
import type { ProblemError } from './problem.js';
import type { ProblemCode } from '../errors/catalogue.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Who may call: nobody needs a token for 'public'; 'bearer' requires an API access token
 * (checked by the front); 'manage' requires a management principal (an operator key or,
 * later, a dashboard session), checked by the management routes themselves (src/manage/api).
 */
export type AuthKind = 'public' | 'bearer' | 'manage';

/** Which OpenAPI document describes a route: the parsing API's (/openapi/v1.json) or the management API's (/openapi/manage-v1.json); 'dashboard': the dashboard's pages, in neither. */
export type ApiDocument = 'v1' | 'manage' | 'dashboard';

export interface Principal {
  tenantId: string;
  appId: string;
  clientId: string;
  licenseRegionCode: string;
  dbCode: string;
  allowedDomains: string[];
  entitlements: {
    maxDocumentUnitsPerMonth: number;
    advancedPdfExtraction: boolean;
    ocrPdfExtraction: boolean;
  } | null;
  /** Token expiry, epoch seconds. */
  exp: number;
}

export interface RequestContext<Q = Record<string, unknown>, B = unknown> {
  method: string;
  path: string;
  query: Q;
  params: Record<string, string>;
  /** Lower-case header names. */
  headers: Record<string, string>;
  remoteAddress: string;
  requestId: string;
  /** Parsed JSON or form body, when the route declares one. */
  body: B;
  /** The raw body, for routes that declare `body: { kind: 'raw' }`. */
  bodyStream: BodyStream | null;
  principal: Principal | null;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
}

export type Reply =
  | { status: number; headers?: Record<string, string>; json: unknown; contentType?: string }
  | { status: number; headers?: Record<string, string>; stream: Readable; contentType: string; length?: number }
  | { status: number; headers?: Record<string, string>; text: string; contentType: string }
  | { status: number; headers?: Record<string, string>; empty: true };

export interface ResponseDoc {
  description: string;
  schema?: TSchema;
  contentType?: string;
  headers?: Record<string, { description: string; schema: TSchema }>;
}

export type BodySpec =
  | { kind: 'json'; schema: TSchema; maxBytes?: number }
  | { kind: 'form'; schema: TObject; maxBytes?: number }
  | { kind: 'raw'; description: string; contentTypes?: string[]; /** What the handler parses the body into, for the OpenAPI document. */ schema?: TSchema };

// Route lists mix handlers of every query and body type (each is typed where it is written), so the defaults must accept any.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export interface RouteDef<Q = any, B = any> {
  method: HttpMethod;
  /**
   * Formats the front's own refusals on this path (405, 413, 415, a bad body or query, 500)
   * when the endpoint speaks another error format than problem+json (the token endpoint's
   * RFC 6749 errors); it must keep the problem's headers.
   */
  errorReply?: (problem: ProblemError) => Reply;
  /** Path with :params, e.g. /api/v1/documents/:documentId/status */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  auth: AuthKind;
  /** Which server serves it in OpenAPI: the API ({base_url}) or the token host ({auth_url}). */
  server?: 'api' | 'auth';
  /** The OpenAPI document that describes it (default 'v1'). */
  api?: ApiDocument;
  params?: TObject;
  query?: TObject;
  body?: BodySpec;
  /**
   * Success answers (and, for a route with its own error format, its errors). Problem
   * answers are documented from `errors` instead: status and description come from the
   * catalogue, so they cannot differ from what the handler throws.
   */
  responses: Record<number, ResponseDoc>;
  /**
   * The catalogue codes (src/errors/catalogue.ts) the handler answers with. Those that follow
   * from the route's declaration are added by problemCodesOf (src/http/route-errors.ts): bearer
   * or management credentials, parameters, a parsed body.
   */
  errors?: readonly ProblemCode[];
  handler: (ctx: RequestContext<Q, B>) => Promise<Reply>;
  /**
   * For a route without a bearer token whose request still belongs to one app's region (a
   * signed upload URL): the license region it carries, read before the handler runs, or null
   * when it carries none. Read only in multi-region deployments (src/http/regions.ts); bearer
   * routes go by their token's licenseRegionCode.
   */
  regionOf?: (ctx: RequestContext) => string | null;
  /**
   * What OPTIONS on this path answers besides Allow: a protocol's capabilities (tus: Tus-Version,
   * Tus-Extension …) and the request headers a CORS preflight may allow for it.
   */
  options?: { headers: Record<string, string>; corsAllowHeaders?: string[] };
}
