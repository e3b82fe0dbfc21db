// One error type for everything a client should see; mapped to RFC 9457
// application/problem+json in exactly one place (toProblemBody).
import { DEPENDENCY_RETRY_AFTER_SECONDS, type DependencyUnavailableError } from '../jobs/dependency-unavailable.js';

export interface ProblemExtras {
  /** Extra members of the problem body, e.g. { parameter, allowed }. */
  [key: string]: unknown;
}

export class ProblemError extends Error {
  constructor(
    public readonly status: number,
    public readonly code: string,
    public readonly title: string,
    public readonly detail?: string,
    public readonly extras: ProblemExtras = {},
    public readonly headers: Record<string, string> = {},
  ) {
    super(detail ?? title);
    this.name = 'ProblemError';
  }
}

export const PROBLEM_TYPE_BASE = 'https://docparse.dev/problems/';

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail?: string;
  instance?: string;
  code: string;
  requestId: string;
  [key: string]: unknown;
}

export function toProblemBody(err: ProblemError, instance: string, requestId: string): ProblemBody {
  return {
    type: PROBLEM_TYPE_BASE + err.code,
    title: err.title,
    status: err.status,
    ...(err.detail ? { detail: err.detail } : {}),
    instance,
    code: err.code,
    requestId,
    ...err.extras,
  };
}

// Constructors for the problems that recur across modules.
export const problems = {
  invalidParameter: (parameter: string, detail: string, allowed?: readonly string[]) =>
    new ProblemError(400, 'invalid_parameter', 'Invalid parameter', detail, {
      parameter,
      ...(allowed ? { allowed } : {}),
    }),
  notFound: (detail = 'No route matches this path.') => new ProblemError(404, 'not_found', 'Not found', detail),
  methodNotAllowed: (allow: string[]) =>
    new ProblemError(405, 'method_not_allowed', 'Method not allowed', `Allowed methods: ${allow.join(', ')}.`, {}, { Allow: allow.join(', ') }),
  documentNotFound: (documentId: string) =>
    new ProblemError(404, 'document_not_found', 'Document not found', `No document with id ${JSON.stringify(documentId)} exists for this tenant, or it has expired.`, { documentId }),
  internal: () => new ProblemError(500, 'internal_error', 'Internal server error', 'The request could not be completed; it has been logged.'),
  unavailable: (detail: string, extras: ProblemExtras = {}) =>
    new ProblemError(503, 'service_unavailable', 'Service unavailable', detail, extras, { 'Retry-After': String(DEPENDENCY_RETRY_AFTER_SECONDS) }),
  /** A backing service is unreachable: the detail names it ("The job store (Redis) is unreachable; retry shortly."). */
  dependencyUnavailable: (err: DependencyUnavailableError) => problems.unavailable(err.message),
  /** Where the request body ends is uncertain (RFC 9112 §6.3); `header` is the field at fault. */
  invalidFraming: (header: string, detail: string) =>
    new ProblemError(400, 'invalid_framing', 'Invalid message framing', detail, { header }),
  /** A transfer coding other than chunked (RFC 9112 §6.1). */
  unsupportedTransferCoding: (coding: string) =>
    new ProblemError(501, 'unsupported_transfer_coding', 'Unsupported transfer coding', `Only the chunked transfer coding is supported; the request uses ${JSON.stringify(coding)}.`, { header: 'Transfer-Encoding', coding }),
  /** The request body arrived too slowly; nothing of it was kept. */
  requestTimeout: (detail: string) => new ProblemError(408, 'request_timeout', 'Request timeout', detail),
};
