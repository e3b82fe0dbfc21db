// Access token issuance: the spec's Token rules, checked against the control-plane store on
// every request (so disabling an app, deactivating a tenant or retiring a plan takes effect
// for new tokens at once), and the claims of the token.
import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import type { App, ControlPlaneStore } from '../tenancy/types.js';
import { TOKEN_ALG, type KeyRing } from './keyring.js';
import { oauthErrors } from './oauth-errors.js';

export const API_SCOPE = 'Service.API';

export interface Entitlements {
  maxDocumentUnitsPerMonth: number;
  advancedPdfExtraction: boolean;
  ocrPdfExtraction: boolean;
}

/** The claims of an access token, exactly (header: alg ES256, kid, typ JWT). */
export interface AccessTokenClaims {
  iss: string;
  sub: string;
  tenantid: string;
  appId: string;
  licenseRegionCode: string;
  dbCode: string;
  allowed_domain_1?: string;
  allowed_domain_2?: string;
  allowed_domain_3?: string;
  entitlements?: Entitlements;
  iat: number;
  exp: number;
  jti: string;
}

export interface IssuedToken {
  accessToken: string;
  expiresIn: number;
  scope: string;
  claims: AccessTokenClaims;
  kid: string;
}

export interface TokenServiceOptions {
  store: ControlPlaneStore;
  keyring: KeyRing;
  /** The configured {auth_url}; becomes `iss`. */
  issuer: string;
}

export class TokenService {
  constructor(private readonly opts: TokenServiceOptions) {}

  /**
   * Checks scope: omitted or empty means Service.API; any other value is refused.
   * Returns the granted scope string.
   */
  static grantedScope(requested: string | undefined): string {
    if (requested === undefined || requested.trim() === '') return API_SCOPE;
    const scopes = requested.split(' ').filter(Boolean);
    for (const s of scopes) if (s !== API_SCOPE) throw oauthErrors.invalidScope(s, API_SCOPE);
    return API_SCOPE;
  }

  /** Token rules 2–5: throws OAuthError unauthorized_client naming the reason. Returns the entitlements claim. */
  async checkIssuance(app: App): Promise<Entitlements | undefined> {
    const { store } = this.opts;
    if (!app.enabled) throw oauthErrors.unauthorizedClient('the app is disabled');
    const tenant = await store.getTenant(app.tenantId);
    if (!tenant) throw oauthErrors.unauthorizedClient("the app's tenant does not exist");
    if (tenant.state !== 'Active') throw oauthErrors.unauthorizedClient(`the tenant is not active (state: ${tenant.state})`);
    if (!app.licenseRegion) throw oauthErrors.unauthorizedClient('the app has no license region');
    if (!app.dbCode) throw oauthErrors.unauthorizedClient('the app has no database code');
    if (app.planId === null) return undefined;
    const plan = await store.getPlan(app.planId);
    if (!plan) throw oauthErrors.unauthorizedClient("the app's plan does not exist");
    if (plan.status === 'retired') throw oauthErrors.unauthorizedClient("the app's plan is retired");
    return {
      maxDocumentUnitsPerMonth: plan.maxDocumentUnitsPerMonth,
      advancedPdfExtraction: plan.advancedPdfExtraction,
      ocrPdfExtraction: plan.ocrPdfExtraction,
    };
  }

  /** Applies the issuance rules to an authenticated app and signs its access token. */
  async issue(app: App, scope: string = API_SCOPE): Promise<IssuedToken> {
    const entitlements = await this.checkIssuance(app);
    const { keyring, issuer } = this.opts;
    const { kid, key } = await keyring.signingKey();
    const iat = Math.floor(keyring.now() / 1000);
    const lifetime = keyring.tokenLifetimeSeconds;
    const claims: AccessTokenClaims = {
      iss: issuer,
      sub: app.clientId,
      tenantid: app.tenantId,
      appId: app.id,
      licenseRegionCode: app.licenseRegion!,
      dbCode: app.dbCode!,
      iat,
      exp: iat + lifetime,
      jti: randomUUID(),
    };
    const domains = app.allowedDomains.filter((d) => typeof d === 'string' && d !== '').slice(0, 3);
    domains.forEach((d, i) => {
      claims[`allowed_domain_${i + 1}` as 'allowed_domain_1'] = d;
    });
    if (entitlements) claims.entitlements = entitlements;
    const accessToken = await new SignJWT({ ...claims }).setProtectedHeader({ alg: TOKEN_ALG, kid, typ: 'JWT' }).sign(key);
    return { accessToken, expiresIn: lifetime, scope, claims, kid };
  }
}
