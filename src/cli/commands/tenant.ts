// `docparse admin tenant …`: create, activate, deactivate, list.
import type { AdminCommand } from '../command-table.js';
import { emit, table, tenantLines } from '../command-output.js';
import { required, str } from '../command-values.js';

export const tenantCommands: AdminCommand[] = [
  {
    name: 'tenant create',
    usage: 'tenant create --name NAME [--email EMAIL]',
    summary: 'create a tenant (starts as Pending Activation)',
    options: { name: { type: 'string' }, email: { type: 'string' } },
    positionals: 0,
    async run(ctx) {
      const t = await ctx.api.createTenant(required(ctx.values, 'name'), str(ctx.values, 'email') ?? null);
      emit(ctx, t, ['Created tenant.', ...tenantLines(t)]);
    },
  },
  {
    name: 'tenant activate',
    usage: 'tenant activate TENANT_ID',
    summary: 'activate a tenant (its apps can get tokens)',
    options: {},
    positionals: 1,
    async run(ctx) {
      const t = await ctx.api.activateTenant(ctx.positionals[0]);
      emit(ctx, t, ['Tenant is active.', ...tenantLines(t)]);
    },
  },
  {
    name: 'tenant deactivate',
    usage: 'tenant deactivate TENANT_ID',
    summary: 'deactivate a tenant (its apps can no longer get tokens)',
    options: {},
    positionals: 1,
    async run(ctx) {
      const t = await ctx.api.deactivateTenant(ctx.positionals[0]);
      emit(ctx, t, ['Tenant is deactivated; its apps can no longer get tokens.', ...tenantLines(t)]);
    },
  },
  {
    name: 'tenant list',
    usage: 'tenant list',
    summary: 'list tenants',
    options: {},
    positionals: 0,
    async run(ctx) {
      const list = await ctx.api.listTenants();
      emit(
        ctx,
        list,
        list.length === 0 ? ['No tenants.'] : table([['ID', 'STATE', 'NAME', 'EMAIL'], ...list.map((t) => [t.id, t.state, t.name, t.contactEmail ?? '-'])]),
      );
    },
  },
];
