// Identity: token issuance ({auth_url}/connect/token, JWKS, discovery) and API token
// verification, wired from the control-plane store, the master-key sealer and rate counters.
import type { Logger } from 'pino';
import type { Sealer } from '../crypto/sealed.js';
import type { Principal, RequestContext, RouteDef } from '../http/route.js';
import type { RateCounters } from '../jobs/types.js';
import type { ControlPlaneStore } from '../tenancy/types.js';
import type { FailureLimits } from './attempt-limiter.js';
import { KeyRing, type KeyRingOptions } from './keyring.js';
import { identityRoutes } from './routes.js';
import { decoySecretHash } from './secrets.js';
import { TokenVerifier } from './verifier.js';

export interface IdentityOptions {
  store: ControlPlaneStore;
  sealer: Sealer;
  /** The configured {auth_url} (config.authUrl); the issuer of every token. */
  authUrl: string;
  counters: RateCounters;
  logger: Logger;
  /** Cache verified tokens until they expire (default true; off for benchmarks). */
  cache?: boolean;
  cacheSize?: number;
  /** Failed client-authentication limits (default per 60 s: 10 per client id and address, 30 per address, 100 per client id). */
  failureLimits?: Partial<FailureLimits>;
  /** Key-ring tuning and test clock. */
  keyring?: Omit<KeyRingOptions, 'store' | 'sealer' | 'logger'>;
}

export interface Identity {
  /** Token endpoint, JWKS and discovery routes (auth 'public', server 'auth'). */
  routes: RouteDef[];
  /** Pass to `new HttpServer({ authenticate })`: verifies bearer tokens and the browser origin. */
  authenticate: (ctx: RequestContext) => Promise<Principal>;
  keyring: KeyRing;
  verifier: TokenVerifier;
  /** Resolves when a signing key is usable (for readiness checks); rejects otherwise. */
  ready(): Promise<void>;
}

export async function createIdentity(opts: IdentityOptions): Promise<Identity> {
  const authUrl = opts.authUrl.replace(/\/+$/, '');
  const keyring = new KeyRing({ ...opts.keyring, store: opts.store, sealer: opts.sealer, logger: opts.logger });
  await Promise.all([keyring.init(), decoySecretHash()]);
  const verifier = new TokenVerifier({ keyring, issuer: authUrl, cache: opts.cache, cacheSize: opts.cacheSize });
  return {
    routes: identityRoutes({ store: opts.store, keyring, counters: opts.counters, authUrl, failureLimits: opts.failureLimits }),
    authenticate: verifier.authenticate,
    keyring,
    verifier,
    ready: async () => {
      await keyring.signingKey();
    },
  };
}

export { KeyRing } from './keyring.js';
export { TokenService, API_SCOPE } from './token-service.js';
export { TokenVerifier, authProblems } from './verifier.js';
export { identityRoutes, discoveryDocument, authEndpoints } from './routes.js';
export { rotateSigningKey, listSigningKeys } from './admin-keys.js';
export { isAllowedOrigin } from './domains.js';
