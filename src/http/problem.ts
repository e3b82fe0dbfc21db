// One error type for everything a client should see; mapped to RFC 9457
// application/problem+json in exactly one place (toProblemBody). Every problem is made from
// a code of the catalogue (src/errors/catalogue.ts), which alone gives its status and title.
import { PROBLEMS, type JobFailureCode, type ProblemCode } from '../errors/catalogue.js';
import { DEPENDENCY_RETRY_AFTER_SECONDS, type DependencyUnavailableError } from '../errors/dependency-unavailable.js';

export interface ProblemExtras {
  /** Extra members of the problem body, e.g. { parameter, allowed }. */
  [key: string]: unknown;
}

export class ProblemError extends Error {
  /**
   * Made only here (problem(), problems.*, problemFromBody): everywhere else a problem is
   * problem(code, detail), which takes status and title from the catalogue
   * (test/errors/catalogue.test.ts fails on a `new ProblemError` outside this file).
   */
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

/** A problem of the catalogue: its status and title, this occurrence's detail, extras and headers. */
export function problem(code: ProblemCode, detail: string, extras: ProblemExtras = {}, headers: Record<string, string> = {}): ProblemError {
  const { status, title } = PROBLEMS[code];
  return new ProblemError(status, code, title, detail, extras, headers);
}

/**
 * A problem another route answered (as a reply body), thrown again as it was: the dashboard
 * calls management routes in-process. Its code and title were the catalogue's when it was made.
 */
export function problemFromBody(status: number, body: Record<string, unknown>): ProblemError {
  const { code, title, detail, type: _type, status: _status, instance: _instance, requestId: _requestId, ...extras } = body;
  return new ProblemError(status, String(code), String(title), detail === undefined ? undefined : String(detail), extras);
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

// Problems that recur across modules, with the extras their code always carries.
export const problems = {
  invalidParameter: (parameter: string, detail: string, allowed?: readonly string[], extras: ProblemExtras = {}) =>
    problem('invalid_parameter', detail, { parameter, ...(allowed ? { allowed } : {}), ...extras }),
  notFound: (detail = 'No route matches this path.') => problem('not_found', detail),
  methodNotAllowed: (allow: string[]) => problem('method_not_allowed', `Allowed methods: ${allow.join(', ')}.`, {}, { Allow: allow.join(', ') }),
  documentNotFound: (documentId: string) =>
    problem('document_not_found', `No document with id ${JSON.stringify(documentId)} exists for this tenant, or it has expired.`, { documentId }),
  internal: () => problem('internal_error', 'The request could not be completed; it has been logged.'),
  unavailable: (detail: string, extras: ProblemExtras = {}) =>
    problem('service_unavailable', detail, extras, { 'Retry-After': String(DEPENDENCY_RETRY_AFTER_SECONDS) }),
  /** A backing service is unreachable: the detail names it ("The job store (Redis) is unreachable; retry shortly."). */
  dependencyUnavailable: (err: DependencyUnavailableError) => problems.unavailable(err.message),
  /** Where the request body ends is uncertain (RFC 9112 §6.3); `header` is the field at fault. */
  invalidFraming: (header: string, detail: string) => problem('invalid_framing', detail, { header }),
  /** A transfer coding other than chunked (RFC 9112 §6.1). */
  unsupportedTransferCoding: (coding: string) =>
    problem('unsupported_transfer_coding', `Only the chunked transfer coding is supported; the request uses ${JSON.stringify(coding)}.`, {
      header: 'Transfer-Encoding',
      coding,
    }),
  /** The request body arrived too slowly; nothing of it was kept. */
  requestTimeout: (detail: string) => problem('request_timeout', detail),
  /** A JSON or form body longer than its endpoint reads. */
  bodyTooLarge: (maxBytes: number) => problem('document_too_large', `This endpoint accepts at most ${maxBytes} bytes.`, { maxBytes }),
  /** A body the endpoint parses as `expected` sent with another Content-Type. */
  unsupportedMediaType: (expected: string) => problem('unsupported_media_type', `Send the body as ${expected}.`),
  /**
   * The answer for a failed job's result: 422 titled as `extraction_failed`, whose code is
   * the job's own failure code (the catalogue's job failures), and `error` the whole object.
   */
  jobFailed: (documentId: string, error: { code: JobFailureCode | string; message: string; stage?: string }) => {
    const { status, title } = PROBLEMS.extraction_failed;
    return new ProblemError(status, error.code, title, error.message, { documentId, error });
  },
};
