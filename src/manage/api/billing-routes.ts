// Billing on the management API: usage per app, family and day with each app's quota
// remaining; a tenant's monthly statement (JSON, or CSV with Accept: text/csv or ?format=csv);
// the usage lines as CSV. Whoever may see the tenant may read them (members, owners, operators);
// anyone else gets 404, as for every tenant object.
import { Type } from '@sinclair/typebox';
import { problems } from '../../http/problem.js';
import type { Reply, RequestContext, RouteDef } from '../../http/route.js';
import { manageRoute, ok, visibleTenant, type ManageDeps } from './kit.js';
import { MONTH_PATTERN, TenantIdParams } from './schemas.js';
import type { BillingStore } from '../../tenancy/billing-store.js';
import { currentMonth } from '../../tenancy/month.js';
import { statementCsv, usageCsv, usageLinesCsv } from './billing-csv.js';

const Format = Type.Union([Type.Literal('json'), Type.Literal('csv')], { description: 'csv: the same figures as text/csv (so does Accept: text/csv).' });
const Nullable = <T extends ReturnType<typeof Type.String>>(s: T) => Type.Union([s, Type.Null()]);

const Plan = Type.Union([Type.Object({ id: Type.String(), name: Type.String(), quota: Type.Integer() }), Type.Null()]);
const AppQuotaSchema = Type.Object({
  appId: Type.String(),
  appName: Nullable(Type.String({ description: 'Null for an app deleted since; its charges stay billed.' })),
  plan: Plan,
  quota: Type.Union([Type.Integer(), Type.Null()], {
    description: "Document Units a month the app is held to: its plan's, or the limit of every app without a plan; null for a deleted app.",
  }),
  unitsCharged: Type.Integer(),
  remaining: Type.Union([Type.Integer(), Type.Null()], {
    description: 'Quota minus units charged this month (holds of jobs in progress aside); null for a deleted app.',
  }),
});
const FamilyUnits = Type.Record(Type.String(), Type.Integer(), { description: 'Units per format family (pdf, office, email, sql, gis, cad, csv, parquet).' });

export const TenantUsageSchema = Type.Object({
  tenantId: Type.String(),
  month: Type.String(),
  granularity: Type.Union([Type.Literal('month'), Type.Literal('day')]),
  items: Type.Array(
    Type.Object({
      appId: Type.String(),
      family: Type.String(),
      day: Nullable(Type.String({ description: 'UTC date the units were charged (granularity=day).' })),
      units: Type.Integer(),
      documents: Type.Integer(),
    }),
  ),
  quotas: Type.Array(AppQuotaSchema),
  totals: Type.Object({ units: Type.Integer(), documents: Type.Integer() }),
});

export const StatementSchema = Type.Object({
  tenant: Type.Object({ id: Type.String(), name: Type.String(), state: Type.String() }),
  month: Type.String(),
  generatedAt: Type.String({ format: 'date-time' }),
  apps: Type.Array(Type.Intersect([AppQuotaSchema, Type.Object({ documents: Type.Integer(), byFamily: FamilyUnits, overageUnits: Type.Literal(0) })])),
  totals: Type.Object({ units: Type.Integer(), documents: Type.Integer(), byFamily: FamilyUnits }),
  overage: Type.Object({ units: Type.Literal(0), note: Type.String() }),
});

/** CSV when asked by ?format=csv or an Accept header that names text/csv. */
function wantsCsv(ctx: RequestContext, format: string | undefined): boolean {
  if (format !== undefined) return format === 'csv';
  return /(^|,)\s*text\/csv\b/i.test(ctx.headers.accept ?? '');
}

const csvReply = (text: string, filename: string): Reply => ({
  status: 200,
  text,
  contentType: 'text/csv; charset=utf-8',
  headers: { 'content-disposition': `attachment; filename="${filename}"` },
});

export function billingRoutes(deps: ManageDeps, billing: BillingStore): RouteDef[] {
  return [
    manageRoute<{ tenantId: string }, { month?: string; granularity?: 'month' | 'day'; format?: 'json' | 'csv' }>(deps, {
      method: 'GET',
      path: '/tenants/:tenantId/usage/by-family',
      operationId: 'getTenantUsageByFamily',
      summary: 'Units charged per app and format family (per UTC day with granularity=day), and each app’s quota remaining',
      tags: ['billing'],
      params: TenantIdParams,
      query: Type.Object(
        {
          month: Type.Optional(Type.String({ pattern: MONTH_PATTERN, description: 'YYYY-MM (UTC); default: the current month.' })),
          granularity: Type.Optional(Type.Union([Type.Literal('month'), Type.Literal('day')], { description: 'day: one figure per app, family and day.' })),
          format: Type.Optional(Format),
        },
        { additionalProperties: false },
      ),
      responses: { 200: { description: 'The figures (text/csv when asked).', schema: TenantUsageSchema } },
      errors: ['tenant_not_found'],
      handler: async ({ ctx, principal, params, query }) => {
        const tenant = await visibleTenant(deps, principal, params.tenantId);
        const month = query.month ?? currentMonth();
        const usage = await billing.usage(tenant.id, month, query.granularity ?? 'month');
        return wantsCsv(ctx, query.format) ? csvReply(usageCsv(usage), `usage-${tenant.id}-${month}.csv`) : ok(usage);
      },
    }),
    manageRoute<{ tenantId: string; month: string }, { format?: 'json' | 'csv' }>(deps, {
      method: 'GET',
      path: '/tenants/:tenantId/statements/:month',
      operationId: 'getStatement',
      summary: "A tenant's monthly statement: units per app and family, each app's plan, overage (none: the quota is hard)",
      tags: ['billing'],
      // The month's format is checked in the handler, after the caller is authenticated: a
      // request without credentials learns nothing, not even that its month is malformed.
      params: Type.Object({
        tenantId: Type.String({ minLength: 1, maxLength: 200 }),
        month: Type.String({ minLength: 1, maxLength: 64, description: 'YYYY-MM (UTC).' }),
      }),
      query: Type.Object({ format: Type.Optional(Format) }, { additionalProperties: false }),
      responses: {
        200: { description: 'The statement; with Accept: text/csv or ?format=csv, one CSV record per app and family.', schema: StatementSchema },
      },
      errors: ['tenant_not_found'],
      handler: async ({ ctx, principal, params, query }) => {
        const tenant = await visibleTenant(deps, principal, params.tenantId);
        if (!new RegExp(MONTH_PATTERN).test(params.month)) throw problems.invalidParameter('month', 'The month must be YYYY-MM.');
        const statement = await billing.statement(tenant.id, params.month);
        return wantsCsv(ctx, query.format) ? csvReply(statementCsv(statement), `statement-${tenant.id}-${params.month}.csv`) : ok(statement);
      },
    }),
    manageRoute<{ tenantId: string }, { month?: string }>(deps, {
      method: 'GET',
      path: '/tenants/:tenantId/usage.csv',
      operationId: 'exportTenantUsageLines',
      summary: 'Every charge of a month as CSV (the ledger lines: time, app, document, format, family, units)',
      tags: ['billing'],
      params: TenantIdParams,
      query: Type.Object(
        { month: Type.Optional(Type.String({ pattern: MONTH_PATTERN, description: 'YYYY-MM (UTC); default: the current month.' })) },
        { additionalProperties: false },
      ),
      responses: { 200: { description: 'The usage lines.', contentType: 'text/csv', schema: Type.String() } },
      errors: ['tenant_not_found'],
      handler: async ({ principal, params, query }) => {
        const tenant = await visibleTenant(deps, principal, params.tenantId);
        const month = query.month ?? currentMonth();
        return csvReply(usageLinesCsv(await billing.usageLines({ tenantId: tenant.id, month })), `usage-lines-${tenant.id}-${month}.csv`);
      },
    }),
  ];
}
