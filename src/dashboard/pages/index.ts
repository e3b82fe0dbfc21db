// The dashboard's pages (issue 20): server-rendered HTML over the management API, with the
// assets they load. mountDashboard (src/dashboard/index.ts) adds these routes to the server.
import type { RouteDef } from '../../http/route.js';
import type { DashboardPageDeps } from '../types.js';
import { appPages } from './apps.js';
import { loadAssets } from './assets.js';
import { auditPages } from './audit.js';
import { memberPages } from './members.js';
import { operatorPages } from './operator.js';
import { createDashboard } from './page-kit.js';
import { planPages } from './plans.js';
import { storagePages } from './storage.js';
import { tenantPages } from './tenants.js';
import { usagePages } from './usage.js';

export function dashboardPageRoutes(deps: DashboardPageDeps): RouteDef[] {
  const base = deps.basePath.replace(/\/+$/, '');
  const assets = loadAssets(base);
  const d = createDashboard(deps, assets.urls);
  return [
    ...assets.routes,
    ...tenantPages(d),
    ...appPages(d),
    ...memberPages(d),
    ...storagePages(d),
    ...usagePages(d),
    ...auditPages(d),
    ...planPages(d),
    ...operatorPages(d),
  ];
}

export { CONTENT_SECURITY_POLICY } from './layout.js';
