// Endpoints of the token host ({auth_url}): the client_credentials token endpoint, the JWKS
// and the discovery documents (OpenID Connect and RFC 8414 locations).
import { Type } from '@sinclair/typebox';
import type { RateCounters } from '../jobs/types.js';
import type { Reply, RouteDef } from '../http/route.js';
import { oauthErrorResponses } from '../http/openapi.js';
import type { ControlPlaneStore } from '../tenancy/types.js';
import type { FailureLimits } from './attempt-limiter.js';
import { ClientAuthenticator, readClientCredentials } from './client-auth.js';
import { TOKEN_ALG, type KeyRing } from './keyring.js';
import { OAuthError, oauthErrorFromProblem, oauthErrors } from './oauth-errors.js';
import { DependencyUnavailableError } from '../errors/dependency-unavailable.js';
import { FORM_CONTENT_TYPE, TOKEN_FORM_MAX_BYTES, readTokenForm } from './token-form.js';
import { API_SCOPE, TokenService } from './token-service.js';

export interface IdentityRouteDeps {
  store: ControlPlaneStore;
  keyring: KeyRing;
  counters: RateCounters;
  /** The configured {auth_url}, without a trailing slash. */
  authUrl: string;
  failureLimits?: Partial<FailureLimits>;
}

export const GRANT_TYPE = 'client_credentials';
export const AUTH_METHODS = ['client_secret_basic', 'client_secret_post'] as const;

/** Path part of the auth URL ('' or '/prefix'), under which the token host's routes live. */
export function authPathPrefix(authUrl: string): string {
  return new URL(authUrl).pathname.replace(/\/+$/, '');
}

export function authEndpoints(authUrl: string) {
  const base = authUrl.replace(/\/+$/, '');
  return {
    issuer: base,
    token: `${base}/connect/token`,
    jwks: `${base}/.well-known/jwks.json`,
    openidConfiguration: `${base}/.well-known/openid-configuration`,
  };
}

const TOKEN_REQUEST_FIELDS =
  `Form fields (RFC 6749 §4.4.2): \`grant_type\` (required, \`${GRANT_TYPE}\`); \`client_id\` and \`client_secret\` ` +
  `(client_secret_post; omit with HTTP Basic); \`scope\` (space-separated, only \`${API_SCOPE}\`, the default). ` +
  `Other fields are ignored (RFC 6749 §3.2). At most ${TOKEN_FORM_MAX_BYTES} bytes.`;

const TokenResponse = Type.Object({
  access_token: Type.String({ description: 'JWT (ES256) for `Authorization: Bearer`.' }),
  token_type: Type.Literal('Bearer'),
  expires_in: Type.Integer({ description: 'Seconds until the token expires (900).', example: 900 }),
  scope: Type.String({ example: API_SCOPE }),
});

const Jwks = Type.Object({ keys: Type.Array(Type.Record(Type.String(), Type.Unknown())) });
const Discovery = Type.Record(Type.String(), Type.Unknown(), { description: 'Authorization server metadata (OpenID Connect Discovery 1.0 / RFC 8414).' });

export function discoveryDocument(authUrl: string): Record<string, unknown> {
  const e = authEndpoints(authUrl);
  return {
    issuer: e.issuer,
    token_endpoint: e.token,
    jwks_uri: e.jwks,
    grant_types_supported: [GRANT_TYPE],
    response_types_supported: ['token'],
    token_endpoint_auth_methods_supported: [...AUTH_METHODS],
    scopes_supported: [API_SCOPE],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [TOKEN_ALG],
    claims_supported: [
      'iss',
      'sub',
      'tenantid',
      'appId',
      'licenseRegionCode',
      'dbCode',
      'allowed_domain_1',
      'allowed_domain_2',
      'allowed_domain_3',
      'entitlements',
      'iat',
      'exp',
      'jti',
    ],
  };
}

function oauthReply(err: OAuthError): Reply {
  return { status: err.status, headers: { ...err.headers, Pragma: 'no-cache' }, json: err.body() };
}

export function identityRoutes(deps: IdentityRouteDeps): RouteDef[] {
  const prefix = authPathPrefix(deps.authUrl);
  const issuer = authEndpoints(deps.authUrl).issuer;
  const clients = new ClientAuthenticator({ store: deps.store, counters: deps.counters, limits: deps.failureLimits, now: deps.keyring.now });
  const tokens = new TokenService({ store: deps.store, keyring: deps.keyring, issuer });
  const discovery = discoveryDocument(deps.authUrl);

  const token: RouteDef<Record<string, never>> = {
    method: 'POST',
    path: `${prefix}/connect/token`,
    operationId: 'requestAccessToken',
    summary: 'Request an access token (OAuth 2.0 client_credentials)',
    description:
      `Client authentication by \`client_secret_post\` (client_id and client_secret in the form) or \`client_secret_basic\` ` +
      `(HTTP Basic). The token is valid for 15 minutes: cache it and renew it near expiry. Refusals are RFC 6749 §5.2 errors ` +
      `(\`{"error", "error_description"}\`), listed per status below.`,
    tags: ['Authentication'],
    auth: 'public',
    server: 'auth',
    // Raw, parsed by readTokenForm: the front would refuse a bad body with a problem document.
    body: { kind: 'raw', description: TOKEN_REQUEST_FIELDS, contentTypes: [FORM_CONTENT_TYPE] },
    responses: {
      200: { description: 'Access token issued.', schema: TokenResponse },
      ...oauthErrorResponses(),
    },
    // 405 (and any other refusal by the front) in this endpoint's format.
    errorReply: (problem) => oauthReply(oauthErrorFromProblem(problem)),
    handler: async (ctx) => {
      try {
        const form = await readTokenForm(ctx.headers['content-type'], ctx.bodyStream);
        const grantType = form.grant_type;
        if (typeof grantType !== 'string' || grantType === '') throw oauthErrors.invalidRequest('grant_type is required; use client_credentials');
        if (grantType !== GRANT_TYPE) throw oauthErrors.unsupportedGrantType(grantType);
        const scope = TokenService.grantedScope(typeof form.scope === 'string' ? form.scope : undefined);
        const creds = readClientCredentials(form, ctx.headers.authorization);
        const app = await clients.authenticate(creds, ctx.remoteAddress);
        const issued = await tokens.issue(app, scope);
        return {
          status: 200,
          headers: { Pragma: 'no-cache' },
          json: { access_token: issued.accessToken, token_type: 'Bearer', expires_in: issued.expiresIn, scope: issued.scope },
        };
      } catch (err) {
        if (err instanceof OAuthError) return oauthReply(err);
        // The same outage the API answers with a 503 problem, in this endpoint's own error format.
        if (err instanceof DependencyUnavailableError) return oauthReply(oauthErrors.temporarilyUnavailable(err.message));
        throw err;
      }
    },
  };

  const jwks: RouteDef = {
    method: 'GET',
    path: `${prefix}/.well-known/jwks.json`,
    operationId: 'getJsonWebKeySet',
    summary: 'Public keys that verify access tokens (JWKS)',
    tags: ['Authentication'],
    auth: 'public',
    server: 'auth',
    responses: { 200: { description: 'JSON Web Key Set.', schema: Jwks, contentType: 'application/jwk-set+json' } },
    handler: async () => ({ status: 200, json: deps.keyring.jwks(), contentType: 'application/jwk-set+json' }),
  };

  const discoveryRoute = (path: string, operationId: string, summary: string): RouteDef => ({
    method: 'GET',
    path: `${prefix}${path}`,
    operationId,
    summary,
    tags: ['Authentication'],
    auth: 'public',
    server: 'auth',
    responses: { 200: { description: 'Authorization server metadata.', schema: Discovery } },
    handler: async () => ({ status: 200, json: discovery }),
  });

  return [
    token,
    jwks,
    discoveryRoute('/.well-known/openid-configuration', 'getOpenIdConfiguration', 'OpenID Connect discovery document'),
    discoveryRoute('/.well-known/oauth-authorization-server', 'getOAuthServerMetadata', 'OAuth 2.0 authorization server metadata (RFC 8414)'),
  ];
}
