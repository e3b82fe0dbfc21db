// Token endpoint refusals: RFC 6749 §5.2 error responses ({"error","error_description"}),
// not problem documents, so standard OAuth clients understand them.
import type { ProblemError } from '../http/problem.js';
import type { OAuthErrorCode, OAuthStatus } from '../errors/catalogue.js';
import { DEPENDENCY_RETRY_AFTER_SECONDS } from '../errors/dependency-unavailable.js';

export type { OAuthErrorCode } from '../errors/catalogue.js';

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

/** An error of the catalogue's token-endpoint section, with one of the statuses it lists for the code. */
export function oauthError<C extends OAuthErrorCode>(code: C, status: OAuthStatus<C>, description: string, headers: Record<string, string> = {}): OAuthError {
  return new OAuthError(status, code, description, headers);
}

export const oauthErrors = {
  invalidRequest: (description: string) => oauthError('invalid_request', 400, description),
  invalidClient: (usedBasic: boolean, description = 'client authentication failed: unknown client_id or wrong client_secret') =>
    oauthError('invalid_client', 401, description, usedBasic ? { 'WWW-Authenticate': 'Basic realm="docparse", charset="UTF-8"' } : {}),
  tooManyFailures: (retryAfterSeconds: number) =>
    oauthError('invalid_client', 429, `too many failed attempts; retry after ${retryAfterSeconds} s`, { 'Retry-After': String(retryAfterSeconds) }),
  unauthorizedClient: (reason: string) => oauthError('unauthorized_client', 400, reason),
  unsupportedGrantType: (grantType: string) =>
    oauthError('unsupported_grant_type', 400, `grant_type ${JSON.stringify(grantType)} is not supported; use client_credentials`),
  invalidScope: (scope: string, supported: string) =>
    oauthError('invalid_scope', 400, `scope ${JSON.stringify(scope)} is not available; the only scope is ${supported}`),
  /** 415: the body is not a form. */
  unsupportedMediaType: (sent: string, expected: string) =>
    oauthError('invalid_request', 415, `send the request as ${expected}${sent ? `, not ${JSON.stringify(sent.slice(0, 100))}` : ' (Content-Type is missing)'}`),
  /** 413: the body is longer than the endpoint reads. */
  bodyTooLarge: (maxBytes: number) => oauthError('invalid_request', 413, `the request body is larger than ${maxBytes} bytes`),
  /** A backing service is unreachable; description names it. */
  temporarilyUnavailable: (description: string) =>
    oauthError('temporarily_unavailable', 503, description, { 'Retry-After': String(DEPENDENCY_RETRY_AFTER_SECONDS) }),
};

/** The HTTP front's refusal of a token request (405, 413, 415, 500…) as an RFC 6749 error. */
export function oauthErrorFromProblem(p: ProblemError): OAuthError {
  const error: OAuthErrorCode = p.status === 503 ? 'temporarily_unavailable' : p.status >= 500 ? 'server_error' : 'invalid_request';
  return new OAuthError(p.status, error, p.detail ?? p.title, p.headers);
}
