// What the SDK throws. Every refusal of the API is a DocparseError carrying the problem
// document's `code` (RFC 9457, docs/errors.md), the token endpoint's OAuth `error` the same
// way, so callers match on `code` and never on message text.
import type { JobFailureCode, OAuthErrorCode, ProblemCode } from '../errors/catalogue.js';

/** Every code the service answers with; a newer server may send others, hence the string. */
export type DocparseErrorCode = ProblemCode | JobFailureCode | OAuthErrorCode | 'network_error' | (string & {});

export interface ProblemDocument {
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
  code?: string;
  requestId?: string;
  [extra: string]: unknown;
}

export class DocparseError extends Error {
  override readonly name = 'DocparseError';
  /** HTTP status; 0 when no response came (network error). */
  readonly status: number;
  readonly code: DocparseErrorCode;
  readonly detail: string;
  /** The server's id of the request (X-Request-Id), to quote to the operator. */
  readonly requestId: string | null;
  /** The whole problem document, for its extra members (`parameter`, `allowed`, `maxBytes`, `limit`…). */
  readonly problem: ProblemDocument;
  /** Seconds the server asked to wait (Retry-After), when it did. */
  readonly retryAfterSeconds: number | null;

  constructor(init: {
    status: number;
    code: string;
    detail: string;
    requestId?: string | null;
    problem?: ProblemDocument;
    retryAfterSeconds?: number | null;
    cause?: unknown;
  }) {
    super(`${init.code} (${init.status || 'no response'}): ${init.detail}`, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.code = init.code;
    this.detail = init.detail;
    this.requestId = init.requestId ?? null;
    this.problem = init.problem ?? {};
    this.retryAfterSeconds = init.retryAfterSeconds ?? null;
  }
}

/** waitFor gave up: the jobs named had not ended when timeoutMs ran out. */
export class DocparseTimeoutError extends Error {
  override readonly name = 'DocparseTimeoutError';
  constructor(
    readonly documentIds: string[],
    readonly timeoutMs: number,
  ) {
    super(`${documentIds.length} document(s) not finished after ${timeoutMs} ms: ${documentIds.slice(0, 5).join(', ')}${documentIds.length > 5 ? ', …' : ''}`);
  }
}

/** Seconds from a Retry-After header (delta-seconds or an HTTP date); null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

/** Turns a non-2xx response into a DocparseError: problem+json, an OAuth error body, or whatever text came. */
export async function errorFromResponse(res: Response): Promise<DocparseError> {
  const text = await res.text().catch(() => '');
  let body: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
  } catch {
    // not JSON: a proxy's page, say; its text becomes the detail
  }
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const code = str(body.code) ?? str(body.error) ?? `http_${res.status}`;
  const detail = str(body.detail) ?? str(body.error_description) ?? str(body.title) ?? (text.slice(0, 300) || res.statusText);
  return new DocparseError({
    status: res.status,
    code,
    detail,
    requestId: str(body.requestId) ?? res.headers.get('x-request-id'),
    problem: body as ProblemDocument,
    retryAfterSeconds: parseRetryAfter(res.headers.get('retry-after')),
  });
}
