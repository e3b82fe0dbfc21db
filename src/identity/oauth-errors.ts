// Token endpoint refusals: RFC 6749 §5.2 error responses ({"error","error_description"}),
// not problem documents, so standard OAuth clients understand them.
import type { ProblemError } from '../http/problem.js';
import { DEPENDENCY_RETRY_AFTER_SECONDS } from '../jobs/dependency-unavailable.js';

export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  // RFC 6749 §4.1.2.1's codes for a server that cannot serve now (503, Retry-After) or failed.
  | 'temporarily_unavailable'
  | 'server_error';

export class OAuthError extends Error {
  constructor(
    public readonly status: number,
    public readonly error: OAuthErrorCode,
    public readonly description: string,
    public readonly headers: Record<string, string> = {},
  ) {
    super(`${error}: ${description}`);
    this.name = 'OAuthError';
  }

  body(): { error: OAuthErrorCode; error_description: string } {
    return { error: this.error, error_description: this.description };
  }
}

export const oauthErrors = {
  invalidRequest: (description: string) => new OAuthError(400, 'invalid_request', description),
  invalidClient: (usedBasic: boolean, description = 'client authentication failed: unknown client_id or wrong client_secret') =>
    new OAuthError(401, 'invalid_client', description, usedBasic ? { 'WWW-Authenticate': 'Basic realm="docparse", charset="UTF-8"' } : {}),
  tooManyFailures: (retryAfterSeconds: number) =>
    new OAuthError(429, 'invalid_client', `too many failed attempts; retry after ${retryAfterSeconds} s`, { 'Retry-After': String(retryAfterSeconds) }),
  unauthorizedClient: (reason: string) => new OAuthError(400, 'unauthorized_client', reason),
  unsupportedGrantType: (grantType: string) =>
    new OAuthError(400, 'unsupported_grant_type', `grant_type ${JSON.stringify(grantType)} is not supported; use client_credentials`),
  invalidScope: (scope: string, supported: string) =>
    new OAuthError(400, 'invalid_scope', `scope ${JSON.stringify(scope)} is not available; the only scope is ${supported}`),
  /** 415: the body is not a form. */
  unsupportedMediaType: (sent: string, expected: string) =>
    new OAuthError(415, 'invalid_request', `send the request as ${expected}${sent ? `, not ${JSON.stringify(sent.slice(0, 100))}` : ' (Content-Type is missing)'}`),
  /** 413: the body is longer than the endpoint reads. */
  bodyTooLarge: (maxBytes: number) => new OAuthError(413, 'invalid_request', `the request body is larger than ${maxBytes} bytes`),
  /** A backing service is unreachable; description names it. */
  temporarilyUnavailable: (description: string) =>
    new OAuthError(503, 'temporarily_unavailable', description, { 'Retry-After': String(DEPENDENCY_RETRY_AFTER_SECONDS) }),
};

/** The HTTP front's refusal of a token request (405, 413, 415, 500…) as an RFC 6749 error. */
export function oauthErrorFromProblem(p: ProblemError): OAuthError {
  const error: OAuthErrorCode = p.status === 503 ? 'temporarily_unavailable' : p.status >= 500 ? 'server_error' : 'invalid_request';
  return new OAuthError(p.status, error, p.detail ?? p.title, p.headers);
}
