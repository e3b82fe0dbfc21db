// A backing service (Redis, PostgreSQL) could not be reached. The stores throw this instead
// of their driver's error, so the HTTP front answers 503 with Retry-After in one place
// (http/server.ts errorReply) and the token endpoint its RFC 6749 equivalent, while every
// other error keeps meaning "a bug": 500. It lives with the job stores because src/jobs is
// self-contained (its tests run it transpiled on its own); the control plane uses it too.

export type Dependency = 'Redis' | 'PostgreSQL';

/** Seconds a client is told to wait: a dependency that comes back is used again within ~1 s. */
export const DEPENDENCY_RETRY_AFTER_SECONDS = 5;

export class DependencyUnavailableError extends Error {
  constructor(
    /** The service that did not answer. */
    readonly dependency: Dependency,
    /** What docparse uses it for, as a client would understand it: 'job store', 'control plane'. */
    readonly role: string,
    /** The driver's error, for logs and readiness output. */
    override readonly cause?: unknown,
  ) {
    super(`The ${role} (${dependency}) is unreachable; retry shortly.`);
    this.name = 'DependencyUnavailableError';
  }

  /** The driver's own words, e.g. "connect ECONNREFUSED 127.0.0.1:6379". */
  get reason(): string {
    const c = this.cause;
    if (c instanceof Error) return c.message || c.name;
    return c === undefined ? 'not connected' : String(c);
  }
}

/** Node socket errors that mean "the other end is not there (any more)". */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ECONNABORTED']);

/** True for a socket-level failure, including Node's AggregateError from trying IPv4 and IPv6. */
export function isSocketError(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && SOCKET_CODES.has(code)) return true;
  const inner = (err as { errors?: unknown }).errors;
  return Array.isArray(inner) && inner.some(isSocketError);
}
