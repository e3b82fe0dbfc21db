// Tenants: create (→ Pending Activation), list, get; activate, deactivate, reactivate
// (operators only). A user who creates a tenant becomes its owner — at most
// MANAGE_LIMITS.pendingTenantsPerUser of theirs Pending Activation at once, and
// tenantsPerUserPerDay a day (request-limits.ts); a tenant an operator creates with a contact
// e-mail gets an owner invitation for that address. A refusal is audited.
import { Type } from '@sinclair/typebox';
import type { RouteDef } from '../../http/route.js';
import { problem } from '../../http/problem.js';
import { RecipientMailLimitError } from '../../mail/outbox-store.js';
import type { CreatedTenant, FirstOwner } from '../../tenancy/members-store.js';
import type { Tenant, TenantState } from '../../tenancy/types.js';
import { emailParameter, manageRoute, ok, requireOperator, visibleTenant, type ManageDeps } from './kit.js';
import {
  counterId,
  DAY,
  describeWait,
  limitReached,
  mailLimitReached,
  MANAGE_LIMITS,
  PENDING_TENANTS_RETRY_AFTER,
  takeSlot,
  type CounterSlot,
} from './request-limits.js';
import { DisplayName, list, TenantIdParams, TenantSchema } from './schemas.js';

const CreateTenant = Type.Object(
  {
    name: DisplayName("The tenant's name (shown in e-mails, quoted and shortened)."),
    contactEmail: Type.Optional(Type.String({ minLength: 3, maxLength: 320, description: "Invited as the tenant's first owner when an operator creates it." })),
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
      errors: ['rate_limited'],
      handler: async ({ principal, body, audit }) => {
        const contactEmail = body.contactEmail === undefined ? null : emailParameter('contactEmail', body.contactEmail);
        const refuse = async (refusal: ReturnType<typeof limitReached>) => {
          await audit({
            action: 'tenant.create.refused',
            tenantId: null,
            objectType: 'tenant',
            objectId: null,
            diff: { reason: refusal.detail, ...refusal.extras, name: body.name },
          });
          return refusal;
        };
        let today: CounterSlot | null = null;
        if (!principal.isOperator) {
          const max = MANAGE_LIMITS.tenantsPerUserPerDay;
          const slot = await takeSlot(deps.counters, `manage:tenants-created:${counterId(principal.id)}`, max, DAY);
          if ('retryAfter' in slot)
            throw await refuse(
              limitReached(
                'tenantsPerUserPerDay',
                max,
                `You have created ${max} tenants today, the most one user may create in a day (UTC); try again in ${describeWait(slot.retryAfter)}.`,
                slot.retryAfter,
              ),
            );
          today = slot;
        }
        const owner: FirstOwner | null =
          principal.kind === 'user' && principal.email
            ? { member: { email: principal.email, userId: principal.userId ?? null }, maxPendingOwned: MANAGE_LIMITS.pendingTenantsPerUser }
            : contactEmail
              ? { invite: { email: contactEmail, invitedBy: principal.id } }
              : null;
        let created: CreatedTenant;
        try {
          created = await deps.members.createTenant({ name: body.name, contactEmail }, owner);
        } catch (err) {
          await today?.release();
          if (err instanceof RecipientMailLimitError) throw await refuse(mailLimitReached(err));
          throw err;
        }
        if ('pendingOwned' in created) {
          await today?.release();
          const max = MANAGE_LIMITS.pendingTenantsPerUser;
          throw await refuse(
            limitReached(
              'pendingTenantsPerUser',
              max,
              `You own ${created.pendingOwned} tenants still Pending Activation, the most one user may; create another once an operator has activated (or deactivated) one of them.`,
              PENDING_TENANTS_RETRY_AFTER,
            ),
          );
        }
        const { tenant, invitation } = created;
        if (invitation) await deps.events?.invitationCreated?.(invitation);
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
