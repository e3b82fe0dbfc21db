// Tenants: create (→ Pending Activation), list, get; activate, deactivate, reactivate
// (operators only). A user who creates a tenant becomes its owner; a tenant an operator
// creates with a contact e-mail gets an owner invitation for that address.
import { Type } from '@sinclair/typebox';
import type { RouteDef } from '../../http/route.js';
import { problem } from '../../http/problem.js';
import type { Tenant, TenantState } from '../../tenancy/types.js';
import { manageRoute, ok, requireOperator, visibleTenant, type ManageDeps } from './kit.js';
import { DisplayName, list, TenantIdParams, TenantSchema } from './schemas.js';

const CreateTenant = Type.Object(
  {
    name: DisplayName("The tenant's name (shown in e-mails, quoted and shortened)."),
    contactEmail: Type.Optional(
      Type.String({ format: 'email', maxLength: 320, description: "Invited as the tenant's first owner when an operator creates it." }),
    ),
  },
  { additionalProperties: false },
);

type Transition = { action: 'activate' | 'deactivate' | 'reactivate'; from: TenantState[]; to: TenantState; summary: string };
const TRANSITIONS: Transition[] = [
  { action: 'activate', from: ['Pending Activation'], to: 'Active', summary: 'Activate a pending tenant (its apps can get tokens; its owners are e-mailed)' },
  { action: 'deactivate', from: ['Pending Activation', 'Active'], to: 'Deactivated', summary: 'Deactivate a tenant (its apps get no new tokens)' },
  { action: 'reactivate', from: ['Deactivated'], to: 'Active', summary: 'Reactivate a deactivated tenant' },
];

export function tenantRoutes(deps: ManageDeps): RouteDef[] {
  const routes: RouteDef[] = [
    manageRoute<Record<string, never>, Record<string, never>, { name: string; contactEmail?: string }>(deps, {
      method: 'POST',
      path: '/tenants',
      operationId: 'createTenant',
      summary: 'Create a tenant (state Pending Activation: its apps get no tokens until an operator activates it)',
      tags: ['tenants'],
      body: CreateTenant,
      responses: { 201: { description: 'Created.', schema: TenantSchema } },
      handler: async ({ principal, body, audit }) => {
        const tenant = await deps.store.createTenant({ name: body.name, contactEmail: body.contactEmail ?? null });
        if (principal.kind === 'user' && principal.email) {
          await deps.members.upsertMember({ tenantId: tenant.id, email: principal.email, role: 'owner', userId: principal.userId });
        } else if (body.contactEmail) {
          const invitation = await deps.members.createInvitation({ tenantId: tenant.id, email: body.contactEmail, role: 'owner', invitedBy: principal.id });
          await deps.events?.invitationCreated?.(invitation);
        }
        await audit({
          action: 'tenant.create',
          tenantId: tenant.id,
          objectType: 'tenant',
          objectId: tenant.id,
          diff: { name: tenant.name, contactEmail: tenant.contactEmail },
        });
        return ok(tenant, 201);
      },
    }),
    manageRoute(deps, {
      method: 'GET',
      path: '/tenants',
      operationId: 'listTenants',
      summary: 'List tenants (operators: all; others: their own)',
      tags: ['tenants'],
      responses: { 200: { description: 'The tenants.', schema: list(TenantSchema) } },
      handler: async ({ principal }) => {
        const all = await deps.store.listTenants();
        return ok({ items: principal.isOperator ? all : all.filter((t) => principal.tenantRoles.has(t.id)) });
      },
    }),
    manageRoute<{ tenantId: string }>(deps, {
      method: 'GET',
      path: '/tenants/:tenantId',
      operationId: 'getTenant',
      summary: 'Get a tenant',
      tags: ['tenants'],
      params: TenantIdParams,
      responses: { 200: { description: 'The tenant.', schema: TenantSchema } },
      errors: ['tenant_not_found'],
      handler: async ({ principal, params }) => ok(await visibleTenant(deps, principal, params.tenantId)),
    }),
  ];
  for (const t of TRANSITIONS) {
    routes.push(
      manageRoute<{ tenantId: string }>(deps, {
        method: 'POST',
        path: `/tenants/:tenantId/${t.action}`,
        operationId: `${t.action}Tenant`,
        summary: `${t.summary} — operators only`,
        tags: ['tenants'],
        params: TenantIdParams,
        responses: {
          200: { description: 'The tenant in its new state (unchanged when it was there already).', schema: TenantSchema },
        },
        errors: ['operator_required', 'tenant_not_found', 'invalid_state'],
        handler: async ({ principal, params, audit }) => {
          const before = await visibleTenant(deps, principal, params.tenantId);
          requireOperator(principal, `${t.action} tenants`);
          if (before.state === t.to) return ok(before);
          if (!t.from.includes(before.state)) {
            const hint = before.state === 'Deactivated' ? ' Use reactivate.' : '';
            throw problem('invalid_state', `Tenant ${before.id} is ${before.state}; ${t.action} applies to a tenant that is ${t.from.join(' or ')}.${hint}`);
          }
          const after: Tenant = await deps.store.setTenantState(before.id, t.to);
          await audit({
            action: `tenant.${t.action}`,
            tenantId: after.id,
            objectType: 'tenant',
            objectId: after.id,
            diff: { state: { from: before.state, to: after.state } },
          });
          if (t.action === 'activate') await deps.events?.tenantActivated?.(after);
          return ok(after);
        },
      }),
    );
  }
  return routes;
}
