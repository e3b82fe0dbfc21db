// A small client of the management API (/manage/v1) for `docparse admin --url …`: JSON in
// and out, the operator key as a bearer token, and problem documents turned into errors
// whose message is the problem's detail (what the CLI prints after "error: ").
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
export class ManageUnreachableError extends Error {}

const ANSWER_TIMEOUT_MS = 120_000;

export class ManageClient {
  private readonly base: string;
  constructor(
    baseUrl: string,
    private readonly key: string,
  ) {
    this.base = baseUrl.replace(/\/+$/, '');
  }

  /** Calls `path` under /manage/v1. A 404 becomes NotFoundError(what, id) when `notFound` names the object. */
  async call<T>(method: string, path: string, body?: unknown, notFound?: [string, string]): Promise<T> {
    const url = `${this.base}/manage/v1${path}`;
    let res: Response;
    try {
      res = await fetch(url, {
        method,
        headers: { authorization: `Bearer ${this.key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS),
      });
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message;
      throw new ManageUnreachableError(`the node at ${this.base} does not answer (${cause})`);
    }
    const text = await res.text();
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      throw new ManageApiError(res.status, 'bad_answer', `the node at ${this.base} answered ${res.status} with something that is not JSON`);
    }
    if (res.ok) return parsed as T;
    const problem = (parsed ?? {}) as { code?: string; detail?: string; title?: string };
    if (res.status === 404 && notFound) throw new NotFoundError(notFound[0], notFound[1]);
    if (res.status === 401) throw new ManageApiError(401, problem.code ?? 'unauthorized', `the node at ${this.base} refused the operator key (${problem.detail ?? problem.code})`);
    throw new ManageApiError(res.status, problem.code ?? 'error', problem.detail ?? problem.title ?? `HTTP ${res.status}`);
  }
}
