// `docparse admin usage` and `statement`: Document Units charged in a month, per app or per
// tenant, against plan quotas; a tenant's monthly statement. As text, JSON or CSV.
import { statementLines, usageCsv } from '../../manage/api/billing-csv.js';
import type { AdminCommand } from '../command-table.js';
import { emit, emitCsv, table } from '../command-output.js';
import { monthOption, required, str, UsageError } from '../command-values.js';
import { mustApp, mustTenant } from './lookups.js';

export const usageCommands: AdminCommand[] = [
  {
    name: 'usage',
    usage: 'usage --app APP_ID | --tenant TENANT_ID  [--month YYYY-MM] [--csv] [--by-day]   (default: the current UTC month)',
    summary: 'Document Units used in a month against the plan quota; --csv prints the usage lines (every charge)',
    options: { app: { type: 'string' }, tenant: { type: 'string' }, month: { type: 'string' }, csv: { type: 'boolean' }, 'by-day': { type: 'boolean' } },
    positionals: 0,
    async run(ctx) {
      const appId = str(ctx.values, 'app');
      const tenantId = str(ctx.values, 'tenant');
      if ((appId === undefined) === (tenantId === undefined)) throw new UsageError('give --app or --tenant (one of them)');
      const month = monthOption(ctx.values);
      const byDay = ctx.values['by-day'] === true;
      const csv = ctx.values.csv === true;
      if (tenantId !== undefined) {
        await mustTenant(ctx.api, tenantId);
        if (csv) {
          emitCsv(ctx, byDay ? usageCsv(await ctx.api.tenantUsage(tenantId, month, 'day')) : await ctx.api.tenantUsageLinesCsv(tenantId, month));
          return;
        }
        const u = await ctx.api.tenantUsage(tenantId, month, byDay ? 'day' : 'month');
        emit(ctx, u, [
          `Tenant ${tenantId} used ${u.totals.units} Document Units in ${month} (${u.totals.documents} documents).`,
          ...u.quotas.map(
            (q) =>
              `  app ${q.appId}${q.appName === null ? ' (deleted)' : ` "${q.appName}"`}: ${q.unitsCharged}` +
              (q.quota === null ? '' : ` of ${q.quota} (${q.remaining} remaining)`) +
              (q.plan ? '' : q.quota === null ? ' (no plan)' : ' (no plan: the no-plan limit)'),
          ),
          ...(u.items.length
            ? [
                '',
                ...table([
                  ['DAY', 'APP', 'FAMILY', 'UNITS', 'DOCUMENTS'],
                  ...u.items.map((f) => [f.day ?? month, f.appId, f.family, String(f.units), String(f.documents)]),
                ]),
              ]
            : []),
        ]);
        return;
      }
      const app = await mustApp(ctx.api, appId!);
      if (csv) {
        emitCsv(ctx, await ctx.api.appUsageLinesCsv(app, month));
        return;
      }
      const u = await ctx.api.appUsage(app, month);
      const remaining = u.quota === null ? null : Math.max(0, u.quota - u.unitsUsed);
      emit(
        ctx,
        {
          appId: app.id,
          tenantId: app.tenantId,
          month,
          unitsUsed: u.unitsUsed,
          quota: u.quota,
          planId: u.planId,
          documents: u.documents,
          byFormat: u.byFormat,
        },
        [
          `App ${app.id} used ${u.unitsUsed} Document Units in ${month}` +
            (u.quota === null
              ? ' (no plan assigned).'
              : ` of ${u.quota} (${u.planId === null ? 'no plan assigned: the no-plan limit' : `plan "${u.planName}"`}); ${remaining} remaining.`),
          `  documents:    ${u.documents}`,
          ...Object.entries(u.byFormat)
            .sort(([a], [b]) => a.localeCompare(b))
            .map(([format, units]) => `  ${format.padEnd(12)}  ${units}`),
        ],
      );
    },
  },
  {
    name: 'statement',
    usage: 'statement --tenant TENANT_ID [--month YYYY-MM] [--csv]   (default: the current UTC month)',
    summary: "a tenant's monthly statement: units per app and format family, each app's plan, overage (none: the quota is hard)",
    options: { tenant: { type: 'string' }, month: { type: 'string' }, csv: { type: 'boolean' } },
    positionals: 0,
    async run(ctx) {
      const tenantId = required(ctx.values, 'tenant');
      const month = monthOption(ctx.values);
      if (ctx.values.csv === true) emitCsv(ctx, await ctx.api.statementCsv(tenantId, month));
      else {
        const s = await ctx.api.statement(tenantId, month);
        emit(ctx, s, statementLines(s));
      }
    },
  },
];
