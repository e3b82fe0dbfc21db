// A small client of the management API (/manage/v1) for `docparse admin`: JSON in and out,
// the operator key (or the local operator credential) as a bearer token, and problem
// documents turned into errors whose message is the problem's detail (what the CLI prints
// after "error: ").
import { NotFoundError } from '../tenancy/types.js';

/** The API refused the request; `status` and `code` from its problem document. */
export class ManageApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ManageApiError';
  }
}

/** The node could not be reached or did not answer in time. */
export class ManageUnreachableError extends Error {
  constructor(
    /** In a few words: "does not answer at http://… (ECONNREFUSED)". */
    readonly reason: string,
  ) {
    super(`the node ${reason}`);
  }
}

const ANSWER_TIMEOUT_MS = 120_000;

export class ManageClient {
  private readonly base: string;
  constructor(
    baseUrl: string,
    private readonly key: string,
    /** What the key is, for a refusal: "the operator key", "the operator credential in …". */
    private readonly keyName = 'the operator key',
  ) {
    this.base = baseUrl.replace(/\/+$/, '');
  }

  /** Calls `path` under /manage/v1. A 404 becomes NotFoundError(what, id) when `notFound` names the object. */
  async call<T>(method: string, path: string, body?: unknown, notFound?: [string, string]): Promise<T> {
    const res = await this.fetch(
      method,
      path,
      body === undefined ? {} : { 'content-type': 'application/json' },
      body === undefined ? undefined : JSON.stringify(body),
    );
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      throw new ManageApiError(res.status, 'bad_answer', `the node at ${this.base} answered ${res.status} with something that is not JSON`);
    }
    if (res.ok) return parsed as T;
    throw this.refusal(res.status, parsed, notFound);
  }

  /** GETs a text answer (CSV) under /manage/v1; refusals as call() reports them. */
  async text(path: string, notFound?: [string, string]): Promise<string> {
    const res = await this.fetch('GET', path, { accept: 'text/csv' });
    const text = await res.text();
    if (res.ok) return text;
    let parsed: unknown = null;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not a problem document
    }
    throw this.refusal(res.status, parsed, notFound);
  }

  private async fetch(method: string, path: string, headers: Record<string, string>, body?: string): Promise<Response> {
    try {
      return await fetch(`${this.base}/manage/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${this.key}`, ...headers },
        body,
        signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS),
      });
    } catch (err) {
      if ((err as Error).name === 'TimeoutError') {
        throw new ManageUnreachableError(
          `at ${this.base} did not answer within ${ANSWER_TIMEOUT_MS / 1000} s (the request may or may not have been carried out: check before repeating it)`,
        );
      }
      const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message;
      throw new ManageUnreachableError(`does not answer at ${this.base} (${cause})`);
    }
  }

  /** The error for a refused request, from its problem document. */
  private refusal(status: number, parsed: unknown, notFound: [string, string] | undefined): Error {
    const problem = (parsed ?? {}) as { code?: string; detail?: string; title?: string; allowed?: unknown[] };
    if (status === 404 && notFound) return new NotFoundError(notFound[0], notFound[1]);
    if (status === 401)
      return new ManageApiError(401, problem.code ?? 'unauthorized', `the node at ${this.base} refused ${this.keyName} (${problem.detail ?? problem.code})`);
    const allowed = Array.isArray(problem.allowed) && problem.allowed.length ? ` (allowed: ${problem.allowed.join(', ')})` : '';
    return new ManageApiError(status, problem.code ?? 'error', (problem.detail ?? problem.title ?? `HTTP ${status}`) + allowed);
  }
}
