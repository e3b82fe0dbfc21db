// The seam between the dashboard's sign-in (src/dashboard/auth) and its pages
// (src/dashboard/pages): pages only ever see a signed-in user and check CSRF through this.
import type { Logger } from 'pino';
import type { RequestContext, RouteDef } from '../http/route.js';
import type { ManageDeps } from '../manage/api/kit.js';
import type { ManagePrincipal } from '../manage/principal.js';

/** A signed-in dashboard user, resolved from the session cookie of one request. */
export interface SignedIn {
  sessionId: string;
  userId: string;
  email: string;
  /** Display name from the identity provider, when it gave one. */
  name: string | null;
  /** Sent back with every state-changing request (form field `_csrf` or header `X-CSRF-Token`). */
  csrfToken: string;
  /** Who this user is to the management API (tenant roles, operator or not). */
  principal: ManagePrincipal;
}

export interface DashboardAuth {
  /** Sign-in, callback, sign-out (and the local operator sign-in), under `{basePath}/auth/`. */
  routes: RouteDef[];
  /** The signed-in user behind a request, or null (no cookie, unknown, expired or signed out). Renews idle expiry. */
  signedIn(ctx: RequestContext): Promise<SignedIn | null>;
  /** Throws a 403 problem (`csrf_failed`) unless `presented` is this session's CSRF token. */
  checkCsrf(session: SignedIn, presented: string | undefined): void;
  /** Where a request without a session is sent: the sign-in page, returning to `next` afterwards. */
  loginUrl(next: string): string;
}

/** What the pages are built from. */
export interface DashboardPageDeps {
  /** Path the dashboard is served under: the path of {dashboard_url}, e.g. `/dashboard`. */
  basePath: string;
  auth: DashboardAuth;
  /** The deps the management API was built with (stores, billing, regions). */
  manage: ManageDeps;
  /** The management API's own routes: every page action is one of them, invoked in-process. */
  manageRoutes: RouteDef[];
  logger: Logger;
}
