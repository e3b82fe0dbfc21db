// `docparse admin app …`: create (credentials printed once), enable, disable, domains, plan,
// secret rotation, list. Where an app's documents are stored is storage.ts.
import type { AdminCommand, CommandContext } from '../command-table.js';
import type { AppWithSecret } from '../admin-api.js';
import { appLines, emit, table } from '../command-output.js';
import { required, splitList, str } from '../command-values.js';
import { mustApp, mustTenant, usablePlan } from './lookups.js';
import { SECRET_NOTICE } from '../../manage/api/app-routes.js';

export { SECRET_NOTICE };

function emitCredentials(ctx: CommandContext, { app, clientSecret }: AppWithSecret, heading: string): void {
  emit(ctx, { app, clientId: app.clientId, clientSecret, notice: SECRET_NOTICE }, [
    heading,
    ...appLines(app),
    '',
    `  client id:     ${app.clientId}`,
    `  client secret: ${clientSecret}`,
    '',
    SECRET_NOTICE,
  ]);
}

export const appCommands: AdminCommand[] = [
  {
    name: 'app create',
    usage: 'app create --tenant TENANT_ID --name NAME --region REGION --db-code CODE [--domains a,b,c] [--plan PLAN]',
    summary: 'create an app and print its client credentials once',
    options: {
      tenant: { type: 'string' },
      name: { type: 'string' },
      region: { type: 'string' },
      'db-code': { type: 'string' },
      domains: { type: 'string' },
      plan: { type: 'string' },
    },
    positionals: 0,
    async run(ctx) {
      const tenantId = required(ctx.values, 'tenant');
      const name = required(ctx.values, 'name');
      const region = required(ctx.values, 'region');
      const dbCode = required(ctx.values, 'db-code');
      const domains = splitList(str(ctx.values, 'domains') ?? '');
      const tenant = await mustTenant(ctx.api, tenantId);
      const planRef = str(ctx.values, 'plan');
      const plan = planRef !== undefined && planRef !== 'none' ? await usablePlan(ctx.api, planRef) : null;
      const created = await ctx.api.createApp({
        tenantId: tenant.id,
        name,
        licenseRegion: region,
        dbCode,
        allowedDomains: domains,
        planId: plan?.id ?? null,
      });
      emitCredentials(ctx, created, 'Created app.');
      if (!ctx.json && tenant.state !== 'Active') {
        ctx.out(`Note: tenant ${tenant.id} is ${tenant.state}; tokens are refused until it is activated.`);
      }
    },
  },
  {
    name: 'app enable',
    usage: 'app enable APP_ID',
    summary: 'enable an app',
    options: {},
    positionals: 1,
    async run(ctx) {
      const app = await ctx.api.setAppEnabled(ctx.positionals[0], true);
      emit(ctx, app, ['App enabled.', ...appLines(app)]);
    },
  },
  {
    name: 'app disable',
    usage: 'app disable APP_ID',
    summary: 'disable an app (no new tokens)',
    options: {},
    positionals: 1,
    async run(ctx) {
      const app = await ctx.api.setAppEnabled(ctx.positionals[0], false);
      emit(ctx, app, ['App disabled; it can no longer get tokens.', ...appLines(app)]);
    },
  },
  {
    name: 'app set-domains',
    usage: "app set-domains APP_ID a,b,c   (at most 3 host[:port] entries; '' clears)",
    summary: 'replace the allowed domains of an app',
    options: {},
    positionals: 2,
    async run(ctx) {
      const app = await ctx.api.updateApp(ctx.positionals[0], { allowedDomains: splitList(ctx.positionals[1]) });
      emit(ctx, app, ['Allowed domains updated.', ...appLines(app)]);
    },
  },
  {
    name: 'app assign-plan',
    usage: 'app assign-plan APP_ID PLAN|none',
    summary: 'assign a usable plan to an app (by id or name), or remove it',
    options: {},
    positionals: 2,
    async run(ctx) {
      const [appId, ref] = ctx.positionals;
      await mustApp(ctx.api, appId);
      const plan = ref === 'none' ? null : await usablePlan(ctx.api, ref);
      const app = await ctx.api.updateApp(appId, { planId: plan?.id ?? null });
      emit(ctx, app, [plan ? `Plan "${plan.name}" assigned.` : 'Plan removed; the app gets basic extraction without entitlements.', ...appLines(app)]);
    },
  },
  {
    name: 'app rotate-secret',
    usage: 'app rotate-secret APP_ID',
    summary: 'replace the client secret (the old one stops working now) and print the new one once',
    options: {},
    positionals: 1,
    async run(ctx) {
      const appId = ctx.positionals[0];
      await mustApp(ctx.api, appId);
      emitCredentials(ctx, await ctx.api.rotateSecret(appId), 'Client secret rotated; the previous secret no longer works.');
    },
  },
  {
    name: 'app list',
    usage: 'app list [--tenant TENANT_ID]',
    summary: 'list apps',
    options: { tenant: { type: 'string' } },
    positionals: 0,
    async run(ctx) {
      const list = await ctx.api.listApps(str(ctx.values, 'tenant'));
      emit(
        ctx,
        list,
        list.length === 0
          ? ['No apps.']
          : table([
              ['ID', 'TENANT', 'NAME', 'CLIENT ID', 'REGION', 'ENABLED', 'PLAN'],
              ...list.map((a) => [a.id, a.tenantId, a.name, a.clientId, a.licenseRegion ?? '-', a.enabled ? 'yes' : 'no', a.planId ?? 'none']),
            ]),
      );
    },
  },
];
