// Usage per app per month from the ledger (the units charged to jobs, to the unit), against
// the plan's quota; per tenant, one line per app (deleted apps' charges included).
import { NO_PLAN_LIMITS } from '../../tenancy/plan-limits.js';
import { Type } from '@sinclair/typebox';
import type { RouteDef } from '../../http/route.js';
import type { App, ControlPlaneStore, UsageCharge } from '../../tenancy/types.js';
import { currentMonth } from '../../tenancy/month.js';
import { manageRoute, ok, visibleApp, visibleTenant, type ManageDeps } from './kit.js';
import { AppIdParams, MONTH_PATTERN, TenantIdParams, UsageSchema } from './schemas.js';

const MonthQuery = Type.Object(
  { month: Type.Optional(Type.String({ pattern: MONTH_PATTERN, description: 'YYYY-MM (UTC); default: the current month.' })) },
  { additionalProperties: false },
);

export interface UsageReport {
  appId: string;
  tenantId: string;
  month: string;
  unitsUsed: number;
  quota: number | null;
  planId: string | null;
  documents: number;
  byFormat: Record<string, number>;
}

/** One app's month from its ledger lines (the app may be deleted: then no plan). */
export async function usageReport(
  store: ControlPlaneStore,
  appId: string,
  tenantId: string,
  app: App | null,
  month: string,
  charges: UsageCharge[],
): Promise<UsageReport> {
  const plan = app?.planId ? await store.getPlan(app.planId) : null;
  const byFormat: Record<string, number> = {};
  let unitsUsed = 0;
  for (const c of charges) {
    byFormat[c.format] = (byFormat[c.format] ?? 0) + c.units;
    unitsUsed += c.units;
  }
  return {
    appId,
    tenantId,
    month,
    unitsUsed,
    // Deleted apps are held to nothing any more; an app without a plan to the no-plan limit.
    quota: app ? (plan?.maxDocumentUnitsPerMonth ?? NO_PLAN_LIMITS.maxDocumentUnitsPerMonth) : null,
    planId: plan?.id ?? null,
    documents: charges.length,
    byFormat,
  };
}

export function usageRoutes(deps: ManageDeps): RouteDef[] {
  return [
    manageRoute<{ appId: string }, { month?: string }>(deps, {
      method: 'GET',
      path: '/apps/:appId/usage',
      operationId: 'getAppUsage',
      summary: 'Document Units an app was charged in a month, against its plan quota',
      tags: ['usage'],
      params: AppIdParams,
      query: MonthQuery,
      responses: { 200: { description: 'The month.', schema: UsageSchema } },
      errors: ['app_not_found'],
      handler: async ({ principal, params, query }) => {
        const app = await visibleApp(deps, principal, params.appId);
        const month = query.month ?? currentMonth();
        return ok(await usageReport(deps.store, app.id, app.tenantId, app, month, await deps.store.listUsage({ appId: app.id, month })));
      },
    }),
    manageRoute<{ tenantId: string }, { month?: string }>(deps, {
      method: 'GET',
      path: '/tenants/:tenantId/usage',
      operationId: 'getTenantUsage',
      summary: "A tenant's month: one line per app that has an app record or was charged",
      tags: ['usage'],
      params: TenantIdParams,
      query: MonthQuery,
      responses: {
        200: {
          description: 'The month per app.',
          schema: Type.Object({ tenantId: Type.String(), month: Type.String(), unitsUsed: Type.Integer(), apps: Type.Array(UsageSchema) }),
        },
      },
      errors: ['tenant_not_found'],
      handler: async ({ principal, params, query }) => {
        const tenant = await visibleTenant(deps, principal, params.tenantId);
        const month = query.month ?? currentMonth();
        const [apps, charges] = await Promise.all([deps.store.listApps(tenant.id), deps.store.listUsage({ tenantId: tenant.id, month })]);
        const ids = [...new Set([...apps.map((a) => a.id), ...charges.map((c) => c.appId)])];
        const lines = await Promise.all(
          ids.map((id) =>
            usageReport(
              deps.store,
              id,
              tenant.id,
              apps.find((a) => a.id === id) ?? null,
              month,
              charges.filter((c) => c.appId === id),
            ),
          ),
        );
        return ok({ tenantId: tenant.id, month, unitsUsed: lines.reduce((n, l) => n + l.unitsUsed, 0), apps: lines });
      },
    }),
  ];
}
