// Billing figures, read from the usage ledger and nothing else: what a job was charged is what
// a tenant is billed, to the unit. Usage per app, format family and (optionally) day; quota
// remaining per app; the monthly statement. Holds of jobs in progress are not charges and are
// left out everywhere here.
import { NO_PLAN_LIMITS } from './plan-limits.js';
import { FORMATS } from '../formats/registry.js';
import type { SqlClient } from '../db/sql.js';
import type { UsageRow } from './store/usage.js';
import { NotFoundError, type TenantState } from './types.js';

const MONTH = /^\d{4}-(0[1-9]|1[0-2])$/;

/** A format family (src/formats/registry.ts), or 'other' for a format it no longer lists. */
export type BillingFamily = string;

export function familyOf(format: string): BillingFamily {
  return FORMATS[format]?.family ?? 'other';
}

export function assertMonth(month: string): void {
  if (!MONTH.test(month)) throw new Error(`month must be YYYY-MM, got "${month}"`);
}

export type Granularity = 'month' | 'day';

/** Units charged to one app for one family (and one day, by day). */
export interface UsageFigure {
  appId: string;
  family: BillingFamily;
  /** UTC date the units were charged (YYYY-MM-DD); null when summed over the month. */
  day: string | null;
  units: number;
  /** Charges (completed job runs) behind the units. */
  documents: number;
}

/** An app's standing against its plan in a month. */
export interface AppQuota {
  appId: string;
  /** Null for an app deleted since (its charges stay billed). */
  appName: string | null;
  plan: { id: string; name: string; quota: number } | null;
  /** The monthly quota the app is held to: its plan's, or the no-plan limit; null for a deleted app. */
  quota: number | null;
  unitsCharged: number;
  /** quota − units charged, never below 0; null for a deleted app. */
  remaining: number | null;
}

export interface TenantUsage {
  tenantId: string;
  month: string;
  granularity: Granularity;
  items: UsageFigure[];
  quotas: AppQuota[];
  totals: { units: number; documents: number };
}

export interface StatementApp extends AppQuota {
  documents: number;
  byFamily: Record<BillingFamily, number>;
  /** Always 0: the quota is a hard limit, units beyond it are refused, never charged. */
  overageUnits: 0;
}

export interface Statement {
  tenant: { id: string; name: string; state: TenantState };
  month: string;
  generatedAt: string;
  apps: StatementApp[];
  totals: { units: number; documents: number; byFamily: Record<BillingFamily, number> };
  overage: { units: 0; note: string };
}

/** One ledger row, as exported. */
export interface UsageLine {
  chargedAt: string;
  /** UTC date of chargedAt. */
  day: string;
  month: string;
  tenantId: string;
  appId: string;
  documentId: string;
  format: string;
  family: BillingFamily;
  units: number;
  chargeKey: string;
}

export const OVERAGE_NOTE = 'none: the monthly quota is a hard limit (work beyond it is refused, never charged)';

interface AppPlanRow {
  id: string;
  name: string;
  plan_id: string | null;
  plan_name: string | null;
  quota: number | string | null;
}

type Ts = Date | string;
const iso = (v: Ts) => (v instanceof Date ? v : new Date(v)).toISOString();

const byKey = <T>(rows: T[], key: (r: T) => string) => rows.sort((a, b) => key(a).localeCompare(key(b)));

export class BillingStore {
  constructor(private readonly db: SqlClient) {}

  /** Units per app × family (× UTC day) charged in a month. */
  async usage(tenantId: string, month: string, granularity: Granularity = 'month'): Promise<TenantUsage> {
    assertMonth(month);
    const day = granularity === 'day' ? "to_char(charged_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')" : 'NULL::text';
    const { rows } = await this.db.query<{ app_id: string; format: string; day: string | null; units: number | string; documents: number | string }>(
      `SELECT app_id, format, ${day} AS day, SUM(units) AS units, count(*) AS documents
         FROM usage_ledger WHERE tenant_id = $1 AND month = $2
        GROUP BY 1, 2, 3`,
      [tenantId, month],
    );
    const figures = new Map<string, UsageFigure>();
    for (const r of rows) {
      const family = familyOf(r.format);
      const k = `${r.app_id}\u0000${family}\u0000${r.day ?? ''}`;
      const f = figures.get(k) ?? { appId: r.app_id, family, day: r.day, units: 0, documents: 0 };
      f.units += Number(r.units);
      f.documents += Number(r.documents);
      figures.set(k, f);
    }
    const items = byKey([...figures.values()], (f) => `${f.day ?? ''}\u0000${f.appId}\u0000${f.family}`);
    const quotas = await this.quotas(tenantId, month);
    return {
      tenantId,
      month,
      granularity,
      items,
      quotas,
      totals: { units: items.reduce((s, f) => s + f.units, 0), documents: items.reduce((s, f) => s + f.documents, 0) },
    };
  }

  /** Each app of the tenant (and each deleted one with charges this month) against its plan. */
  async quotas(tenantId: string, month: string): Promise<AppQuota[]> {
    assertMonth(month);
    const [apps, charged] = await Promise.all([
      this.db.query<AppPlanRow>(
        `SELECT a.id, a.name, a.plan_id, p.name AS plan_name, p.max_document_units_per_month AS quota
           FROM apps a LEFT JOIN plans p ON p.id = a.plan_id
          WHERE a.tenant_id = $1`,
        [tenantId],
      ),
      this.db.query<{ app_id: string; units: number | string }>(
        'SELECT app_id, SUM(units) AS units FROM usage_ledger WHERE tenant_id = $1 AND month = $2 GROUP BY app_id',
        [tenantId, month],
      ),
    ]);
    const units = new Map(charged.rows.map((r) => [r.app_id, Number(r.units)]));
    const known = new Map(apps.rows.map((a) => [a.id, a]));
    const ids = new Set([...known.keys(), ...units.keys()]);
    const list = [...ids].map((id): AppQuota => {
      const a = known.get(id);
      const plan = a?.plan_id ? { id: a.plan_id, name: a.plan_name ?? '', quota: Number(a.quota) } : null;
      const unitsCharged = units.get(id) ?? 0;
      const quota = a ? (plan?.quota ?? NO_PLAN_LIMITS.maxDocumentUnitsPerMonth) : null;
      return { appId: id, appName: a?.name ?? null, plan, quota, unitsCharged, remaining: quota === null ? null : Math.max(0, quota - unitsCharged) };
    });
    return byKey(list, (q) => `${q.appName ?? '\uffff'}\u0000${q.appId}`);
  }

  /** The tenant's statement for a month: units per app and family, each app's plan, no overage. */
  async statement(tenantId: string, month: string, now: Date = new Date()): Promise<Statement> {
    assertMonth(month);
    const { rows } = await this.db.query<{ id: string; name: string; state: TenantState }>('SELECT id, name, state FROM tenants WHERE id = $1', [tenantId]);
    if (!rows[0]) throw new NotFoundError('tenant', tenantId);
    const usage = await this.usage(tenantId, month, 'month');
    const apps: StatementApp[] = usage.quotas.map((q) => ({ ...q, documents: 0, byFamily: {}, overageUnits: 0 }));
    const app = new Map(apps.map((a) => [a.appId, a]));
    const totals: Statement['totals'] = { units: 0, documents: 0, byFamily: {} };
    for (const f of usage.items) {
      const a = app.get(f.appId)!;
      a.byFamily[f.family] = (a.byFamily[f.family] ?? 0) + f.units;
      a.documents += f.documents;
      totals.units += f.units;
      totals.documents += f.documents;
      totals.byFamily[f.family] = (totals.byFamily[f.family] ?? 0) + f.units;
    }
    return {
      tenant: { id: rows[0].id, name: rows[0].name, state: rows[0].state },
      month,
      generatedAt: now.toISOString(),
      apps,
      totals,
      overage: { units: 0, note: OVERAGE_NOTE },
    };
  }

  /** Ledger rows of a tenant (or one app) in a month, oldest first: the CSV export's lines. */
  async usageLines(filter: { tenantId?: string; appId?: string; month: string }): Promise<UsageLine[]> {
    assertMonth(filter.month);
    if (filter.tenantId === undefined && filter.appId === undefined) throw new Error('usage lines need a tenant or an app');
    const where = ['month = $1'];
    const params: unknown[] = [filter.month];
    for (const [column, value] of [
      ['tenant_id', filter.tenantId],
      ['app_id', filter.appId],
    ] as const) {
      if (value === undefined) continue;
      params.push(value);
      where.push(`${column} = $${params.length}`);
    }
    const { rows } = await this.db.query<UsageRow & { charged_at: Ts }>(
      `SELECT charge_key, tenant_id, app_id, document_id, month, format, units, charged_at
         FROM usage_ledger WHERE ${where.join(' AND ')} ORDER BY charged_at, charge_key`,
      params,
    );
    return rows.map((r) => {
      const chargedAt = iso(r.charged_at);
      return {
        chargedAt,
        day: chargedAt.slice(0, 10),
        month: r.month,
        tenantId: r.tenant_id,
        appId: r.app_id,
        documentId: r.document_id,
        format: r.format,
        family: familyOf(r.format),
        units: Number(r.units),
        chargeKey: r.charge_key,
      };
    });
  }
}
