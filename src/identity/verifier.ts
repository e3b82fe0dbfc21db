// API authentication: the bearer token of every protected request is verified (ES256 only,
// our issuer, a key from the keyring) and turned into a Principal; then the browser-context
// check against the token's allowed domains. Verified tokens are cached until they expire,
// so a client polling with one token pays for one signature verification, not one per call.
import { errors, jwtVerify, type JWTPayload } from 'jose';
import type { Principal, RequestContext } from '../http/route.js';
import { problem, type ProblemError } from '../http/problem.js';
import { browserSource, isAllowedOrigin } from './domains.js';
import { TOKEN_ALG, type KeyRing } from './keyring.js';

export const REALM = 'docparse';

export interface VerifierOptions {
  keyring: KeyRing;
  /** The configured {auth_url}; tokens must carry it as `iss`. */
  issuer: string;
  /** Cache verified tokens (default true). Off: every request verifies the signature. */
  cache?: boolean;
  /** Most tokens kept in the cache (10 000). */
  cacheSize?: number;
  /** Tolerance for iat/nbf against this node's clock, seconds (30). `exp` is applied strictly. */
  clockToleranceSeconds?: number;
}

const quote = (s: string) => s.replace(/["\\]/g, '');

export const authProblems = {
  missingToken: () =>
    problem(
      'missing_token',
      'Send an access token in the Authorization header: "Authorization: Bearer <token>".',
      {},
      { 'WWW-Authenticate': `Bearer realm="${REALM}"` },
    ),
  invalidToken: (why: string) =>
    problem(
      'invalid_token',
      `The access token is not valid: ${why}.`,
      {},
      {
        'WWW-Authenticate': `Bearer realm="${REALM}", error="invalid_token", error_description="${quote(why)}"`,
      },
    ),
  tokenExpired: () =>
    problem(
      'token_expired',
      'The access token has expired; request a new one from the token endpoint.',
      {},
      {
        'WWW-Authenticate': `Bearer realm="${REALM}", error="invalid_token", error_description="the access token expired"`,
      },
    ),
  domainNotAllowed: (header: string, value: string) =>
    problem('domain_not_allowed', `The request's ${header === 'origin' ? 'Origin' : 'Referer'} is not in the app's allowed domains.`, {
      [header]: value.slice(0, 256),
    }),
};

/** Bounded LRU of verified tokens: token string → principal (valid until principal.exp). */
class TokenCache {
  private readonly map = new Map<string, Principal>();
  constructor(private readonly max: number) {}

  get(token: string): Principal | undefined {
    const p = this.map.get(token);
    if (p) {
      // Move to the most-recent end.
      this.map.delete(token);
      this.map.set(token, p);
    }
    return p;
  }

  set(token: string, p: Principal): void {
    this.map.delete(token);
    this.map.set(token, p);
    while (this.map.size > this.max) this.map.delete(this.map.keys().next().value!);
  }

  delete(token: string): void {
    this.map.delete(token);
  }

  get size(): number {
    return this.map.size;
  }
}

const isStr = (v: unknown): v is string => typeof v === 'string' && v !== '';
const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);

/** Claims → Principal; null when a claim is missing or of the wrong type. */
function toPrincipal(p: JWTPayload): Principal | null {
  const c = p as Record<string, unknown>;
  if (!isStr(c.sub) || !isStr(c.tenantid) || !isStr(c.appId) || !isStr(c.licenseRegionCode) || !isStr(c.dbCode) || !isInt(c.exp)) return null;
  const allowedDomains: string[] = [];
  for (const name of ['allowed_domain_1', 'allowed_domain_2', 'allowed_domain_3']) {
    const v = c[name];
    if (v === undefined) continue;
    if (!isStr(v)) return null;
    allowedDomains.push(v);
  }
  let entitlements: Principal['entitlements'] = null;
  if (c.entitlements !== undefined) {
    const e = c.entitlements as Record<string, unknown> | null;
    if (
      typeof e !== 'object' ||
      e === null ||
      !isInt(e.maxDocumentUnitsPerMonth) ||
      typeof e.advancedPdfExtraction !== 'boolean' ||
      typeof e.ocrPdfExtraction !== 'boolean'
    ) {
      return null;
    }
    entitlements = {
      maxDocumentUnitsPerMonth: e.maxDocumentUnitsPerMonth,
      advancedPdfExtraction: e.advancedPdfExtraction,
      ocrPdfExtraction: e.ocrPdfExtraction,
    };
  }
  return {
    tenantId: c.tenantid,
    appId: c.appId,
    clientId: c.sub,
    licenseRegionCode: c.licenseRegionCode,
    dbCode: c.dbCode,
    allowedDomains,
    entitlements,
    exp: c.exp,
  };
}

const BEARER = /^bearer[ \t]+([A-Za-z0-9\-._~+/]+=*)[ \t]*$/i;
const MAX_TOKEN_LENGTH = 8192;

/** The token of an Authorization header; 401 missing_token or invalid_token when there is none or it is malformed. */
function bearerToken(auth: string | undefined): string {
  if (auth === undefined || !/^bearer(?:[ \t]|$)/i.test(auth.trimStart())) throw authProblems.missingToken();
  const m = BEARER.exec(auth.trim());
  if (!m) {
    if (/^bearer\s*$/i.test(auth.trim())) throw authProblems.missingToken();
    throw authProblems.invalidToken('malformed Authorization header');
  }
  return m[1];
}

export class TokenVerifier {
  private readonly keyring: KeyRing;
  private readonly issuer: string;
  private readonly cache: TokenCache | null;
  private readonly tolerance: number;

  constructor(opts: VerifierOptions) {
    this.keyring = opts.keyring;
    this.issuer = opts.issuer;
    this.cache = opts.cache === false ? null : new TokenCache(opts.cacheSize ?? 10_000);
    this.tolerance = opts.clockToleranceSeconds ?? 30;
  }

  get cacheSize(): number {
    return this.cache?.size ?? 0;
  }

  /** The HTTP server's hook for 'bearer' routes. Throws ProblemError on refusal. */
  authenticate = async (ctx: Pick<RequestContext, 'headers'>): Promise<Principal> => {
    const auth = ctx.headers.authorization;
    // Most requests repeat a token verified here before, as "Bearer <token>": found before any parsing.
    const principal = (auth?.startsWith('Bearer ') && this.cached(auth.slice(7))) || (await this.verify(bearerToken(auth)));
    const source = browserSource(ctx.headers);
    if (source && !isAllowedOrigin(source.value, principal.allowedDomains)) {
      throw authProblems.domainNotAllowed(source.header, source.value);
    }
    return principal;
  };

  /** The principal of a token verified before, unless it has expired since (then 401); undefined when not in the cache. */
  private cached(token: string): Principal | undefined {
    const cached = this.cache?.get(token);
    if (!cached) return undefined;
    if (cached.exp > Math.floor(this.keyring.now() / 1000)) return cached;
    this.cache!.delete(token);
    throw authProblems.tokenExpired();
  }

  /** Verifies a token (or finds it in the cache) and returns its principal. */
  async verify(token: string): Promise<Principal> {
    const cached = this.cached(token);
    if (cached) return cached;
    const nowMs = this.keyring.now();
    const nowSec = Math.floor(nowMs / 1000);
    if (token.length > MAX_TOKEN_LENGTH) throw authProblems.invalidToken('token too long');

    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(
        token,
        async (header) => {
          if (header.alg !== TOKEN_ALG) throw new errors.JOSEAlgNotAllowed('"alg" (Algorithm) Header Parameter value not allowed');
          if (typeof header.kid !== 'string' || header.kid === '') throw new errors.JWKSNoMatchingKey('token has no key id');
          const key = await this.keyring.verificationKey(header.kid);
          if (!key) throw new errors.JWKSNoMatchingKey('no signing key matches the token key id');
          return key;
        },
        {
          issuer: this.issuer,
          algorithms: [TOKEN_ALG],
          requiredClaims: ['exp', 'iat', 'sub'],
          clockTolerance: this.tolerance,
          currentDate: new Date(nowMs),
        },
      ));
    } catch (err) {
      throw this.mapError(err);
    }
    // exp is strict (jose allowed it the tolerance); iat may not lie in the future, and no
    // token of ours lives longer than the configured lifetime.
    const exp = payload.exp!;
    const iat = payload.iat!;
    if (exp <= nowSec) throw authProblems.tokenExpired();
    if (iat > nowSec + this.tolerance) throw authProblems.invalidToken('issued in the future');
    if (exp - iat > this.keyring.tokenLifetimeSeconds) throw authProblems.invalidToken('lifetime longer than the service issues');
    const principal = toPrincipal(payload);
    if (!principal) throw authProblems.invalidToken('claims missing or malformed');
    this.cache?.set(token, principal);
    return principal;
  }

  private mapError(err: unknown): ProblemError {
    if (err instanceof errors.JWTExpired) return authProblems.tokenExpired();
    if (err instanceof errors.JWTClaimValidationFailed)
      return authProblems.invalidToken(`claim ${err.claim} ${err.reason === 'check_failed' ? 'check failed' : err.reason}`);
    if (err instanceof errors.JOSEAlgNotAllowed) return authProblems.invalidToken('signature algorithm not allowed; only ES256');
    if (err instanceof errors.JWKSNoMatchingKey) return authProblems.invalidToken('unknown signing key');
    if (err instanceof errors.JWSSignatureVerificationFailed) return authProblems.invalidToken('signature verification failed');
    if (err instanceof errors.JWTInvalid || err instanceof errors.JWSInvalid || err instanceof errors.JOSENotSupported) {
      return authProblems.invalidToken('malformed token');
    }
    if (err instanceof errors.JOSEError) return authProblems.invalidToken('token rejected');
    throw err;
  }
}
