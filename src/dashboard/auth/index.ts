// The dashboard's sign-in, wired: who is signed in (DashboardAuth, for the pages), the same
// sessions for the management API (a SessionResolver), and the local operator's one-time link.
import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import type { RequestContext } from '../../http/route.js';
import type { FailureLimits } from '../../identity/attempt-limiter.js';
import type { RateCounters } from '../../jobs/types.js';
import { operatorEmailSet, sessionPrincipal, type SessionResolver } from '../../manage/principal.js';
import { DashboardSessionsStore } from '../../tenancy/dashboard-sessions-store.js';
import type { MembersStore } from '../../tenancy/members-store.js';
import type { OperatorKeysStore } from '../../tenancy/operator-keys-store.js';
import { SignInStore } from '../../tenancy/sign-in-store.js';
import type { SqlClient } from '../../db/sql.js';
import type { DashboardAuth } from '../types.js';
import { dashboardCookies } from './cookies.js';
import { LocalOperatorSignIn } from './local-operator.js';
import { dashboardBasePath, safeNextPath } from './next-path.js';
import { OidcSignIn } from './oidc.js';
import { OidcFlow } from './oidc-flow.js';
import { authRoutes } from './routes.js';
import { Sessions } from './sessions.js';

export interface DashboardAuthOptions {
  config: Pick<Config, 'dashboardUrl' | 'oidc' | 'operatorEmails' | 'sessionIdleMinutes' | 'sessionMaxHours'>;
  db: SqlClient;
  members: MembersStore;
  operatorKeys: OperatorKeysStore;
  /** The node's rate counters (failed operator-key sign-ins are limited with them). */
  counters: RateCounters;
  /** Key of the sessions' CSRF tokens: the same on every node (derived from the master key). */
  csrfKey: Buffer;
  logger: Logger;
  failureLimits?: Partial<FailureLimits>;
  /** Test clock. */
  now?: () => number;
}

export interface DashboardAuthService extends DashboardAuth {
  /** The path of {dashboard_url} ('/dashboard' by default). */
  basePath: string;
  /** The signed-in session behind a management API request (its session cookie). */
  resolveSession: SessionResolver;
  /** A new one-time local operator sign-in link (a full URL; 15 minutes, one use). */
  createSignInLink(): Promise<string>;
}

export function createDashboardAuth(o: DashboardAuthOptions): DashboardAuthService {
  const { config } = o;
  const basePath = dashboardBasePath(config.dashboardUrl);
  const cookies = dashboardCookies(config.dashboardUrl);
  const idleMs = config.sessionIdleMinutes * 60_000;
  const maxMs = config.sessionMaxHours * 3_600_000;
  const operatorEmails = operatorEmailSet(config.operatorEmails);
  const users = new DashboardSessionsStore(o.db);
  const signIns = new SignInStore(o.db);
  const sessions = new Sessions({
    store: users,
    members: o.members,
    operatorEmails: config.operatorEmails,
    cookies,
    idleMs,
    maxMs,
    csrfKey: o.csrfKey,
    now: o.now,
  });
  const local = new LocalOperatorSignIn({ store: signIns, operatorKeys: o.operatorKeys, counters: o.counters, failureLimits: o.failureLimits, now: o.now });
  const redirectUri = `${config.dashboardUrl}/auth/callback`;
  const flow = config.oidc
    ? new OidcFlow({
        oidc: new OidcSignIn({ ...config.oidc, redirectUri }, o.logger),
        requests: signIns,
        users,
        members: o.members,
        cookies,
        redirectUri,
        now: o.now,
      })
    : null;

  return {
    basePath,
    routes: authRoutes({
      basePath,
      dashboardOrigin: new URL(config.dashboardUrl).origin,
      sessions,
      principalOf: (caller) => sessionPrincipal(caller, o.members, operatorEmails),
      flow,
      local,
      idleMs,
      maxMs,
    }),
    signedIn: (ctx: RequestContext) => sessions.signedIn(ctx),
    checkCsrf: (session, presented) => sessions.checkCsrf(session, presented),
    loginUrl: (next: string) => {
      const back = safeNextPath(next, basePath);
      return `${basePath}/auth/login${back ? `?next=${encodeURIComponent(back)}` : ''}`;
    },
    resolveSession: async (ctx) => (await sessions.resolve(ctx))?.caller ?? null,
    createSignInLink: async () => `${config.dashboardUrl}/auth/local?token=${await local.createLinkToken()}`,
  };
}
