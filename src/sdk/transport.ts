// One API call with its retries. Retried, after Retry-After when the server sends one and
// otherwise exponential back-off with jitter:
//   429 (rate_limited; not quota_exceeded, which lasts the month) whenever the body can be
//       sent again: a refused request stored nothing;
//   5xx (not 501) and network errors only for idempotent calls, since the first attempt may
//       have taken effect;
//   401 token_expired once, with a renewed token (the clocks of client and server disagree).
import { DocparseError, errorFromResponse } from './errors.js';
import type { TokenSource } from './token.js';

export interface RetryPolicy {
  /** Retries after the first attempt (4). */
  maxRetries: number;
  /** First back-off step; doubled each retry (250 ms). */
  baseDelayMs: number;
  /** Ceiling of one back-off step (30 s). */
  maxDelayMs: number;
  /** The longest Retry-After waited for (120 s); asked to wait longer, the call fails at once rather than retry early. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxRetries: 4, baseDelayMs: 250, maxDelayMs: 30_000, maxRetryAfterMs: 120_000 };

/** Told before each retry: what failed and how long the SDK waits. */
export interface RetryEvent {
  method: string;
  path: string;
  attempt: number;
  delayMs: number;
  status: number;
  code: string;
}

export interface CallSpec {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Absolute URL. */
  url: string;
  headers?: Record<string, string>;
  /** Builds the body for each attempt. */
  body?: () => BodyInit;
  /** The body can be sent once only (a stream): nothing is retried. */
  once?: boolean;
  /** Safe to repeat after a 5xx or a lost connection. */
  idempotent: boolean;
  /** Sends the Bearer token (not on the presigned PUT, which the URL's signature authorises). */
  auth: boolean;
  signal?: AbortSignal;
}

export interface TransportOptions {
  fetch: typeof fetch;
  tokens: TokenSource;
  retry: RetryPolicy;
  onRetry?: (e: RetryEvent) => void;
  random?: () => number;
}

export class Transport {
  constructor(private readonly o: TransportOptions) {}

  /** The response of the first attempt that succeeded (2xx); else the last failure as a DocparseError. */
  async call(spec: CallSpec): Promise<Response> {
    const replayable = !spec.once;
    let renewedAfter401 = false;
    for (let attempt = 0; ; attempt++) {
      let token: string | null = null;
      let failure: DocparseError;
      try {
        if (spec.auth) token = await this.tokenFor(spec.signal);
        const res = await this.send(spec, token);
        if (res.ok) return res;
        failure = await errorFromResponse(res);
      } catch (err) {
        if (spec.signal?.aborted) throw spec.signal.reason ?? err;
        if (err instanceof TokenRefusedError) throw err.refusal;
        if (!(err instanceof DocparseError)) throw err;
        failure = err;
      }
      if (failure.status === 401 && failure.code === 'token_expired' && token && replayable && !renewedAfter401) {
        renewedAfter401 = true;
        this.o.tokens.refused(token);
        attempt--; // a renewal is not a retry
        continue;
      }
      if (attempt >= this.o.retry.maxRetries || !replayable || !this.retryable(failure, spec.idempotent)) throw failure;
      const delayMs = this.delay(failure, attempt);
      if (delayMs > this.o.retry.maxRetryAfterMs) throw failure;
      this.o.onRetry?.({ method: spec.method, path: new URL(spec.url).pathname, attempt: attempt + 1, delayMs, status: failure.status, code: failure.code });
      await sleep(delayMs, spec.signal);
    }
  }

  /**
   * The token request is safe to repeat, so its 5xx and lost connections are retried like an
   * idempotent call's; its refusals (wrong credentials, or their 429 after too many) are not.
   */
  private async tokenFor(signal?: AbortSignal): Promise<string> {
    try {
      return await this.o.tokens.get(signal);
    } catch (err) {
      if (err instanceof DocparseError && err.status !== 0 && err.status < 500) throw new TokenRefusedError(err);
      throw err;
    }
  }

  private async send(spec: CallSpec, token: string | null): Promise<Response> {
    const headers: Record<string, string> = { accept: 'application/json', ...spec.headers };
    if (token) headers.authorization = `Bearer ${token}`;
    const body = spec.body ? spec.body() : undefined;
    try {
      // duplex: a ReadableStream body (Node and Chromium need it said); ignored otherwise.
      return await this.o.fetch(spec.url, {
        method: spec.method,
        headers,
        body,
        signal: spec.signal,
        ...(isStream(body) ? { duplex: 'half' } : {}),
      } as RequestInit);
    } catch (err) {
      if (spec.signal?.aborted) throw err;
      throw new DocparseError({ status: 0, code: 'network_error', detail: `${spec.method} ${spec.url} failed: ${(err as Error).message}`, cause: err });
    }
  }

  private retryable(e: DocparseError, idempotent: boolean): boolean {
    if (e.status === 429) return e.code !== 'quota_exceeded';
    if (!idempotent) return false;
    return e.status === 0 || (e.status >= 500 && e.status !== 501);
  }

  /** Retry-After when given, as given; else half the exponential step plus a random part of the other half. */
  private delay(e: DocparseError, attempt: number): number {
    const { baseDelayMs, maxDelayMs } = this.o.retry;
    if (e.retryAfterSeconds !== null) return e.retryAfterSeconds * 1000;
    const step = Math.min(maxDelayMs, baseDelayMs * 2 ** attempt);
    return Math.round(step / 2 + (this.o.random ?? Math.random)() * (step / 2));
  }
}

class TokenRefusedError extends Error {
  constructor(readonly refusal: DocparseError) {
    super(refusal.message);
  }
}

function isStream(body: unknown): boolean {
  return typeof ReadableStream !== 'undefined' && body instanceof ReadableStream;
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
