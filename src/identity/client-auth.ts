// Client authentication at the token endpoint: client_secret_post or client_secret_basic,
// secrets checked against salted scrypt hashes in constant time (once per node and secret:
// verified-secrets.ts), unknown client ids costing the same as wrong secrets, and failed
// attempts limited (attempt-limiter.ts).
import type { RateCounters } from '../jobs/types.js';
import type { App, ControlPlaneStore } from '../tenancy/types.js';
import { AttemptLimiter, DEFAULT_FAILURE_LIMITS, type FailureLimits } from './attempt-limiter.js';
import { notText } from '../http/text-rules.js';
import { oauthErrors } from './oauth-errors.js';
import { decoySecretHash, verifySecret } from './secrets.js';
import { VerifiedSecrets } from './verified-secrets.js';

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

export interface ClientAuthenticatorOptions {
  store: ControlPlaneStore;
  counters: RateCounters;
  limits?: Partial<FailureLimits>;
  now?: () => number;
}

export class ClientAuthenticator {
  private readonly store: ControlPlaneStore;
  private readonly attempts: AttemptLimiter;
  private readonly verified = new VerifiedSecrets();

  constructor(opts: ClientAuthenticatorOptions) {
    this.store = opts.store;
    this.attempts = new AttemptLimiter(opts.counters, { ...DEFAULT_FAILURE_LIMITS, ...opts.limits }, opts.now ?? Date.now);
  }

  /**
   * Returns the app whose credentials these are. Throws OAuthError invalid_client (401) for an
   * unknown client id or a wrong secret, invalid_request (400) for credentials that are not
   * text (both count as failed attempts), and 429 once too many attempts failed (see
   * AttemptLimiter) — then even the right secret is refused until the window ends.
   */
  async authenticate(creds: ClientCredentials, remoteAddress: string): Promise<App> {
    const slot = await this.attempts.reserve(creds.clientId, remoteAddress);
    // Credentials that are not text (NUL, half a surrogate pair) can be no app's: a counted
    // failure like a wrong secret, refused as a malformed request before any look-up.
    for (const [field, value] of [
      ['client_id', creds.clientId],
      ['client_secret', creds.clientSecret],
    ] as const) {
      const reason = notText(value);
      if (reason) throw oauthErrors.invalidRequest(`${field} contains ${reason}, which no credential holds`); // the slot stays
    }
    let app: App | null;
    try {
      app = await this.verify(creds);
    } catch (err) {
      // The secret was never judged (e.g. the control plane is unreachable): not a failure.
      await slot.release().catch(() => undefined);
      throw err;
    }
    if (!app) throw oauthErrors.invalidClient(creds.method === 'client_secret_basic'); // the slot stays: a counted failure
    await slot.release();
    return app;
  }

  /** The app when the secret is right, else null. */
  private async verify(creds: ClientCredentials): Promise<App | null> {
    const app = await this.store.getAppByClientId(creds.clientId);
    if (app && this.verified.has(app.clientId, app.secretHash, creds.clientSecret)) return app;
    // An unknown client id is checked against a decoy hash: same scrypt cost as a wrong secret.
    const ok = await verifySecret(creds.clientSecret, app?.secretHash ?? (await decoySecretHash()));
    if (!app || !ok) return null;
    this.verified.add(app.clientId, app.secretHash, creds.clientSecret);
    return app;
  }
}
