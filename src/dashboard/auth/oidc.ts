// Sign-in through an OpenID Connect provider (Google by default), with openid-client: the
// authorization code flow with PKCE (S256), `state` and `nonce`. The library verifies the ID
// token's issuer, audience, expiry, nonce and — configured for it here — its signature against
// the provider's JWKS. The provider's metadata is discovered on first use (and again after a
// failure), so a node starts while the provider is unreachable.
import * as client from 'openid-client';
import type { Logger } from 'pino';
import { problem, ProblemError } from '../../http/problem.js';
import { canonicalEmail, EmailAddressError } from '../../mail/address.js';

export interface OidcSettings {
  issuer: string;
  clientId: string;
  clientSecret: string | null;
  /** {dashboard_url}/auth/callback, registered with the provider. */
  redirectUri: string;
}

/** Who signed in, as the provider vouches for them. */
export interface OidcIdentity {
  issuer: string;
  subject: string;
  /** Canonical (src/mail/address.ts); only ever an address the provider has verified. */
  email: string;
  name: string | null;
}

/** The secrets of one sign-in, kept server-side between the redirect and the callback. */
export interface SignInSecrets {
  state: string;
  nonce: string;
  codeVerifier: string;
}

const SCOPE = 'openid email profile';
const HTTP_TIMEOUT_SECONDS = 10;

export const oidcProblems = {
  unavailable: () =>
    problem('identity_provider_unavailable', 'The identity provider could not be reached; try signing in again shortly.', {}, { 'Retry-After': '5' }),
  failed: (reason: string) => problem('sign_in_failed', `The identity provider's answer was refused: ${reason}. Start the sign-in again.`),
  emailUnverified: () =>
    problem(
      'email_not_verified',
      'The identity provider does not vouch for an e-mail address of this account (email_verified is not true), and tenants are joined by e-mail address.',
    ),
  emailNotUsable: (err: EmailAddressError) =>
    problem(
      'email_not_usable',
      `The identity provider vouches for ${JSON.stringify(err.address)}, but the dashboard cannot use that address: ${err.reason}. Tenants are joined by e-mail address; sign in with an account that has an ordinary address.`,
    ),
};

export class OidcSignIn {
  private configuration: Promise<client.Configuration> | null = null;

  constructor(
    private readonly settings: OidcSettings,
    private readonly logger: Logger,
  ) {}

  newSecrets(): SignInSecrets {
    return { state: client.randomState(), nonce: client.randomNonce(), codeVerifier: client.randomPKCECodeVerifier() };
  }

  /** Where the browser goes to sign in at the provider. */
  async authorizationUrl(secrets: SignInSecrets): Promise<string> {
    const config = await this.config();
    return client
      .buildAuthorizationUrl(config, {
        redirect_uri: this.settings.redirectUri,
        scope: SCOPE,
        code_challenge: await client.calculatePKCECodeChallenge(secrets.codeVerifier),
        code_challenge_method: 'S256',
        state: secrets.state,
        nonce: secrets.nonce,
      })
      .toString();
  }

  /**
   * Redeems the code the provider sent back to `callbackUrl` and returns the verified identity,
   * its address in canonical form; throws a problem (403 sign_in_failed, email_not_verified,
   * email_not_usable; 503 when the provider is unreachable) — before anything is written.
   */
  async finish(callbackUrl: URL, secrets: SignInSecrets): Promise<OidcIdentity> {
    const config = await this.config();
    try {
      const tokens = await client.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: secrets.codeVerifier,
        expectedState: secrets.state,
        expectedNonce: secrets.nonce,
        idTokenExpected: true,
      });
      const claims = tokens.claims()!;
      let { email, email_verified: verified, name } = claims as { email?: unknown; email_verified?: unknown; name?: unknown };
      // A provider that follows the spec to the letter puts scope claims only in UserInfo.
      if (email === undefined || verified === undefined) {
        const info = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
        ({ email, email_verified: verified } = info);
        name ??= info.name;
      }
      if (typeof email !== 'string' || verified !== true) throw oidcProblems.emailUnverified();
      let address: string;
      try {
        address = canonicalEmail(email);
      } catch (err) {
        if (err instanceof EmailAddressError) throw oidcProblems.emailNotUsable(err);
        throw err;
      }
      return { issuer: claims.iss, subject: claims.sub, email: address, name: typeof name === 'string' && name.trim() ? name.trim() : null };
    } catch (err) {
      throw this.refusal(err);
    }
  }

  private config(): Promise<client.Configuration> {
    this.configuration ??= this.discover().catch((err) => {
      this.configuration = null;
      this.logger.warn({ issuer: this.settings.issuer, reason: describe(err) }, 'OpenID provider discovery failed');
      throw oidcProblems.unavailable();
    });
    return this.configuration;
  }

  private discover(): Promise<client.Configuration> {
    const { issuer, clientId, clientSecret } = this.settings;
    // Over TLS the token endpoint is authenticated already; the signature is verified anyway,
    // so an ID token is only ever accepted as the provider's own.
    const execute = [client.enableNonRepudiationChecks];
    // config.ts accepts plain http only for a loopback issuer (local providers, tests).
    if (new URL(issuer).protocol === 'http:') execute.push(client.allowInsecureRequests);
    const auth = clientSecret ? client.ClientSecretPost(clientSecret) : client.None();
    return client.discovery(new URL(issuer), clientId, clientSecret ?? undefined, auth, { execute, timeout: HTTP_TIMEOUT_SECONDS });
  }

  /** A sign-in failure as a problem; logged by reason (messages and codes, never tokens or claims). */
  private refusal(err: unknown): ProblemError {
    if (err instanceof ProblemError) return err;
    const code = (err as { code?: string }).code;
    if (err instanceof TypeError || code === 'OAUTH_TIMEOUT' || code === 'OAUTH_ABORT') {
      this.logger.warn({ issuer: this.settings.issuer, reason: describe(err) }, 'OpenID provider unreachable during sign-in');
      return oidcProblems.unavailable();
    }
    const reason = describe(err);
    this.logger.warn({ issuer: this.settings.issuer, code, reason }, 'OpenID sign-in refused');
    return oidcProblems.failed(reason);
  }
}

/** The error's message and its cause's, which says which check failed (e.g. the "aud" claim). */
function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  if (err instanceof client.AuthorizationResponseError)
    return `the provider answered ${err.error}${err.error_description ? ` (${err.error_description})` : ''}`;
  const cause = err.cause instanceof Error && err.cause.message !== err.message ? `: ${err.cause.message}` : '';
  return `${err.message}${cause}`;
}
