// Billing figures as files and text: statements and usage as CSV (RFC 4180, one header row,
// one record per line) and as lines for the CLI. Pure; the figures come from
// src/tenancy/billing-store.ts and are printed as they are, never rounded or recomputed.
import type { Statement, TenantUsage, UsageLine } from '../../tenancy/billing-store.js';

/**
 * One CSV field. Quoted when it holds a separator, quote or line break; text that a
 * spreadsheet would run as a formula (=, +, -, @, tab, CR first) is prefixed with "'".
 */
export function csvField(value: string | number | null): string {
  if (value === null) return '';
  if (typeof value === 'number') return String(value);
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

function csv(header: string[], rows: (string | number | null)[][]): string {
  return [header, ...rows].map((r) => r.map(csvField).join(',')).join('\r\n') + '\r\n';
}

export const STATEMENT_CSV_HEADER = [
  'month',
  'tenant_id',
  'tenant_name',
  'app_id',
  'app_name',
  'plan_id',
  'plan_name',
  'quota',
  'quota_remaining',
  'family',
  'units',
  'documents',
  'overage_units',
];

/**
 * The statement as CSV: one record per app and family; an app without charges has one record
 * with an empty family and 0 units. Summing `units` gives the statement's total.
 */
export function statementCsv(s: Statement): string {
  const rows: (string | number | null)[][] = [];
  for (const a of s.apps) {
    const app = [s.month, s.tenant.id, s.tenant.name, a.appId, a.appName, a.plan?.id ?? null, a.plan?.name ?? null, a.quota, a.remaining];
    const families = Object.keys(a.byFamily).sort();
    if (families.length === 0) rows.push([...app, '', 0, 0, 0]);
    // Documents are counted per app, not per family: given on the app's first record only.
    families.forEach((f, i) => rows.push([...app, f, a.byFamily[f], i === 0 ? a.documents : 0, 0]));
  }
  return csv(STATEMENT_CSV_HEADER, rows);
}

export const USAGE_LINES_CSV_HEADER = ['charged_at', 'day', 'month', 'tenant_id', 'app_id', 'document_id', 'format', 'family', 'units', 'charge_key'];

/** Every charge as one record (the ledger, as exported). */
export function usageLinesCsv(lines: UsageLine[]): string {
  return csv(
    USAGE_LINES_CSV_HEADER,
    lines.map((l) => [l.chargedAt, l.day, l.month, l.tenantId, l.appId, l.documentId, l.format, l.family, l.units, l.chargeKey]),
  );
}

export const USAGE_CSV_HEADER = ['month', 'day', 'tenant_id', 'app_id', 'family', 'units', 'documents'];

/** Usage figures (per app and family, per day when asked) as CSV. */
export function usageCsv(u: TenantUsage): string {
  return csv(
    USAGE_CSV_HEADER,
    u.items.map((f) => [u.month, f.day, u.tenantId, f.appId, f.family, f.units, f.documents]),
  );
}

/** The statement for a terminal. */
export function statementLines(s: Statement): string[] {
  const lines = [
    `Statement ${s.month} for tenant ${s.tenant.id} "${s.tenant.name}" (${s.tenant.state})`,
    `  total:        ${s.totals.units} Document Units, ${s.totals.documents} documents`,
    ...Object.keys(s.totals.byFamily)
      .sort()
      .map((f) => `  ${f.padEnd(12)}  ${s.totals.byFamily[f]}`),
    `  overage:      ${s.overage.note}`,
  ];
  for (const a of s.apps) {
    lines.push(
      '',
      `App ${a.appId} ${a.appName === null ? '(deleted)' : `"${a.appName}"`}`,
      `  plan:         ${a.plan ? `"${a.plan.name}" (${a.plan.quota} units/month)` : a.quota === null ? 'none' : `none (the no-plan limit: ${a.quota} units/month)`}`,
      `  units:        ${a.unitsCharged}` + (a.remaining === null ? '' : ` (${a.remaining} remaining)`),
      `  documents:    ${a.documents}`,
      ...Object.keys(a.byFamily)
        .sort()
        .map((f) => `  ${f.padEnd(12)}  ${a.byFamily[f]}`),
    );
  }
  return lines;
}
