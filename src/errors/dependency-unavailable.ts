// A backing service (Redis, PostgreSQL) could not be reached. The stores throw this instead
// of their driver's error, so the HTTP front answers 503 with Retry-After in one place
// (http/server.ts errorReply) and the token endpoint its RFC 6749 equivalent, while every
// other error keeps meaning "a bug": 500. The job stores and the control plane both throw it;
// RecoveryWatch wakes the work that waits for such a dependency the moment it answers again.

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

/**
 * Wakes everyone waiting for a dependency as soon as it answers again. While anyone waits, one
 * probe runs every `intervalMs` (never two at once), whatever the number of waiters: a node
 * with many jobs waiting knocks once per interval, and each resumes within an interval of the
 * dependency's return instead of at the end of its own back-off.
 */
export class RecoveryWatch {
  private waiters: (() => void)[] = [];
  private probing = false;

  constructor(
    /** Resolves when the dependency answers (a cheap round trip: SELECT 1). */
    private readonly probe: () => Promise<unknown>,
    private readonly intervalMs: number,
  ) {}

  /** Resolves once a probe has answered, or when `signal` aborts (the waiter gives up). */
  whenReachable(signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const wake = () => {
        signal?.removeEventListener('abort', giveUp);
        resolve();
      };
      const giveUp = () => {
        this.waiters = this.waiters.filter((w) => w !== wake);
        resolve();
      };
      signal?.addEventListener('abort', giveUp, { once: true });
      this.waiters.push(wake);
      if (!this.probing) void this.watch();
    });
  }

  private async watch(): Promise<void> {
    this.probing = true;
    try {
      while (this.waiters.length) {
        await new Promise((r) => setTimeout(r, this.intervalMs));
        if (!this.waiters.length) break;
        const answered = await this.probe().then(
          () => true,
          () => false,
        );
        if (answered) for (const wake of this.waiters.splice(0)) wake();
      }
    } finally {
      this.probing = false;
    }
  }
}
