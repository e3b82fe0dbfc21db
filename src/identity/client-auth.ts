// Client authentication at the token endpoint: client_secret_post or client_secret_basic,
// secrets checked against salted scrypt hashes in constant time, unknown client ids costing
// the same as wrong secrets, and failed attempts limited per client id and per address.
import { createHash } from 'node:crypto';
import type { RateCounters } from '../jobs/types.js';
import type { App, ControlPlaneStore } from '../tenancy/types.js';
import { oauthErrors } from './oauth-errors.js';
import { decoySecretHash, verifySecret } from './secrets.js';

export type ClientAuthMethod = 'client_secret_basic' | 'client_secret_post';

export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
  method: ClientAuthMethod;
}

export interface TokenForm {
  grant_type?: string;
  client_id?: string;
  client_secret?: string;
  scope?: string;
  [other: string]: unknown;
}

const B64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** RFC 6749 §2.3.1: Basic credentials are form-urlencoded before base64. */
function formDecode(s: string): string {
  return decodeURIComponent(s.replace(/\+/g, '%20'));
}

const present = (v: unknown): v is string => typeof v === 'string' && v !== '';

/**
 * Reads the client's credentials from the Authorization header (Basic) or the form.
 * Throws OAuthError: invalid_client for a malformed Basic header, invalid_request for missing
 * fields or for two authentication methods in one request.
 */
export function readClientCredentials(form: TokenForm, authorization: string | undefined): ClientCredentials {
  const m = authorization ? /^basic[ \t]+(\S*)[ \t]*$/i.exec(authorization) : null;
  if (m) {
    const b64 = m[1];
    let decoded: string | null = null;
    if (B64.test(b64) && b64.length % 4 === 0) decoded = Buffer.from(b64, 'base64').toString('utf8');
    const colon = decoded === null ? -1 : decoded.indexOf(':');
    if (decoded === null || colon < 0) throw oauthErrors.invalidClient(true, 'malformed HTTP Basic credentials');
    let clientId: string;
    let clientSecret: string;
    try {
      clientId = formDecode(decoded.slice(0, colon));
      clientSecret = formDecode(decoded.slice(colon + 1));
    } catch {
      throw oauthErrors.invalidClient(true, 'malformed HTTP Basic credentials');
    }
    if (!clientId || !clientSecret) throw oauthErrors.invalidClient(true, 'HTTP Basic credentials need a client_id and a client_secret');
    if (present(form.client_secret)) {
      throw oauthErrors.invalidRequest('use one client authentication method: HTTP Basic or client_secret in the form, not both');
    }
    if (present(form.client_id) && form.client_id !== clientId) {
      throw oauthErrors.invalidRequest('client_id in the form differs from the one in the HTTP Basic credentials');
    }
    return { clientId, clientSecret, method: 'client_secret_basic' };
  }
  if (!present(form.client_id)) throw oauthErrors.invalidRequest('client_id is required (in the form, or with HTTP Basic authentication)');
  if (!present(form.client_secret)) throw oauthErrors.invalidRequest('client_secret is required (in the form, or with HTTP Basic authentication)');
  return { clientId: form.client_id, clientSecret: form.client_secret, method: 'client_secret_post' };
}

export interface FailureLimits {
  /** Failed attempts one client id may make per window (10). */
  perClient: number;
  /** Failed attempts one address may make per window (30). */
  perAddress: number;
  /** Fixed window length, seconds (60). */
  windowSeconds: number;
}

export const DEFAULT_FAILURE_LIMITS: FailureLimits = { perClient: 10, perAddress: 30, windowSeconds: 60 };

export interface ClientAuthenticatorOptions {
  store: ControlPlaneStore;
  counters: RateCounters;
  limits?: Partial<FailureLimits>;
  now?: () => number;
}

export class ClientAuthenticator {
  private readonly store: ControlPlaneStore;
  private readonly counters: RateCounters;
  readonly limits: FailureLimits;
  private readonly now: () => number;

  constructor(opts: ClientAuthenticatorOptions) {
    this.store = opts.store;
    this.counters = opts.counters;
    this.limits = { ...DEFAULT_FAILURE_LIMITS, ...opts.limits };
    this.now = opts.now ?? Date.now;
  }

  private keys(clientId: string, remoteAddress: string): [string, string] {
    // Hashed so arbitrarily long or odd client ids make bounded, safe counter keys.
    const id = createHash('sha256').update(clientId).digest('base64url').slice(0, 22);
    return [`identity:fail:client:${id}`, `identity:fail:addr:${remoteAddress}`];
  }

  /** Seconds until the current fixed window ends (windows are aligned to the epoch). */
  private retryAfter(): number {
    const w = this.limits.windowSeconds;
    return w - (Math.floor(this.now() / 1000) % w);
  }

  /**
   * Returns the app whose credentials these are. Throws OAuthError invalid_client (401) for an
   * unknown client id or a wrong secret, and 429 once too many attempts failed — then even the
   * right secret is refused until the window ends, so the limit is no guessing oracle.
   */
  async authenticate(creds: ClientCredentials, remoteAddress: string): Promise<App> {
    const { windowSeconds: w, perClient, perAddress } = this.limits;
    const [clientKey, addrKey] = this.keys(creds.clientId, remoteAddress);
    const [clientFailures, addrFailures] = await Promise.all([
      this.counters.addToWindow(clientKey, 0, w),
      this.counters.addToWindow(addrKey, 0, w),
    ]);
    if (clientFailures >= perClient || addrFailures >= perAddress) throw oauthErrors.tooManyFailures(this.retryAfter());

    const app = await this.store.getAppByClientId(creds.clientId);
    // An unknown client id is checked against a decoy hash: same scrypt cost as a wrong secret.
    const ok = await verifySecret(creds.clientSecret, app?.secretHash ?? (await decoySecretHash()));
    if (app && ok) return app;
    await Promise.all([this.counters.addToWindow(clientKey, 1, w), this.counters.addToWindow(addrKey, 1, w)]);
    throw oauthErrors.invalidClient(creds.method === 'client_secret_basic');
  }
}
