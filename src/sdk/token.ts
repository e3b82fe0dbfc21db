// The access token (spec token rule 1): fetched once, kept, renewed shortly before it
// expires, never one per call. Concurrent callers share a single in-flight fetch, and a
// token the API refuses as expired (clocks apart) is dropped once, whoever sees it first.
import { DocparseError, errorFromResponse } from './errors.js';

export interface CachedToken {
  accessToken: string;
  /** Epoch ms, by the client's clock. */
  expiresAt: number;
}

/** Where a token outlives the process (the CLI keeps one in a file); both calls may be async. */
export interface TokenCache {
  load(): CachedToken | null | Promise<CachedToken | null>;
  save(token: CachedToken): void | Promise<void>;
}

/** The token endpoint's answer, as your own token route passes it on. */
export interface TokenResponse {
  access_token: string;
  expires_in: number;
}

export interface TokenSourceOptions {
  tokenUrl: string;
  /** The app's credentials, sent to tokenUrl; or, where no secret may be (a browser), ask: */
  credentials?: { clientId: string; clientSecret: string };
  /** Something of your own (your backend) that answers the token endpoint's {access_token, expires_in}. */
  ask?: (signal?: AbortSignal) => Promise<TokenResponse>;
  scope: string;
  fetch: typeof fetch;
  now: () => number;
  /** Renew this long before expiry (60 s). */
  renewBeforeMs: number;
  cache?: TokenCache;
}

export class TokenSource {
  private current: CachedToken | null = null;
  private cacheLoad: Promise<void> | null = null;
  private inFlight: Promise<CachedToken> | null = null;

  constructor(private readonly o: TokenSourceOptions) {}

  /** A token good for at least renewBeforeMs more. */
  async get(signal?: AbortSignal): Promise<string> {
    const cache = this.o.cache;
    if (cache) {
      // Read once, by the first caller; the others wait for the same read.
      this.cacheLoad ??= Promise.resolve(cache.load()).then((t) => {
        this.current ??= t;
      });
      await this.cacheLoad;
    }
    if (this.current && this.o.now() < this.current.expiresAt - this.o.renewBeforeMs) return this.current.accessToken;
    this.inFlight ??= this.fetchToken(signal).finally(() => {
      this.inFlight = null;
    });
    return (await this.inFlight).accessToken;
  }

  /** The API refused `token` (expired or unknown): forget it, unless a newer one replaced it already. */
  refused(token: string): void {
    if (this.current?.accessToken === token) this.current = null;
  }

  private async fetchToken(signal?: AbortSignal): Promise<CachedToken> {
    const requestedAt = this.o.now();
    const body = this.o.ask ? await this.o.ask(signal) : await this.request(signal);
    if (typeof body.access_token !== 'string' || typeof body.expires_in !== 'number') {
      throw new DocparseError({ status: 0, code: 'invalid_token_response', detail: 'the token answer holds no access_token and expires_in' });
    }
    // Counted from when it was asked for, so the time on the wire is not counted as validity.
    const token = { accessToken: body.access_token, expiresAt: requestedAt + body.expires_in * 1000 };
    this.current = token;
    await this.o.cache?.save(token);
    return token;
  }

  private async request(signal?: AbortSignal): Promise<Partial<TokenResponse>> {
    const credentials = this.o.credentials;
    if (!credentials) throw new TypeError('DocparseClient needs clientId and clientSecret, or getToken');
    let res: Response;
    try {
      res = await this.o.fetch(this.o.tokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          scope: this.o.scope,
          client_id: credentials.clientId,
          client_secret: credentials.clientSecret,
        }).toString(),
        signal,
      });
    } catch (err) {
      if (signal?.aborted) throw err;
      throw new DocparseError({
        status: 0,
        code: 'network_error',
        detail: `token endpoint ${this.o.tokenUrl} not reachable: ${(err as Error).message}`,
        cause: err,
      });
    }
    if (!res.ok) throw await errorFromResponse(res);
    return (await res.json()) as Partial<TokenResponse>;
  }
}
