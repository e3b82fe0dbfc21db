// The dashboard on a node: its sign-in routes and its pages, under the path of {dashboard_url}.
// The pages act through the management API's own routes, with the deps that API was built with.
import type { Logger } from 'pino';
import type { RouteDef } from '../http/route.js';
import type { ManageDeps } from '../manage/api/kit.js';
import type { DashboardAuthService } from './auth/index.js';
import { dashboardPageRoutes } from './pages/index.js';
import type { DashboardPageDeps } from './types.js';

export interface MountDashboardOptions {
  http: { add(route: RouteDef): void };
  /** The sign-in (createDashboardAuth): its sessions are the management API's session resolver too. */
  auth: DashboardAuthService;
  manage: ManageDeps;
  manageRoutes: RouteDef[];
  logger: Logger;
}

/** Adds the sign-in routes and the pages' routes to the server. */
export function mountDashboard(o: MountDashboardOptions): void {
  const deps: DashboardPageDeps = { basePath: o.auth.basePath, auth: o.auth, manage: o.manage, manageRoutes: o.manageRoutes, logger: o.logger };
  for (const r of o.auth.routes) o.http.add(r);
  for (const r of dashboardPageRoutes(deps)) o.http.add(r);
}
