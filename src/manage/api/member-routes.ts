// Tenant members: list (with open invitations), invite by e-mail, change a member's role,
// remove a member, revoke an invitation. Members read; owners (and operators) change. Someone
// who is a member already is not invited again: their role is changed at once, by an owner,
// with PATCH …/members/{email} (the last owner stays one). An invitation's e-mail is queued
// with it and withdrawn when it is revoked unsent; the mailer sends it (and gets an event).
// Invitations are limited per tenant and per address (request-limits.ts), e-mails per address
// (every inviter, operators too); a refusal is audited.
import { Type } from '@sinclair/typebox';
import type { RouteDef } from '../../http/route.js';
import { problem } from '../../http/problem.js';
import { canonicalEmailOrNull } from '../../mail/address.js';
import { RecipientMailLimitError } from '../../mail/outbox-store.js';
import { AlreadyInvitedError } from '../../tenancy/members-store.js';
import type { TenantInvitation, TenantRole } from '../../tenancy/types.js';
import { emailParameter, manageErrors, manageRoute, ok, ownedTenant, visibleTenant, type ManageDeps } from './kit.js';
import { counterId, DAY, describeWait, HOUR, limitReached, mailLimitReached, MANAGE_LIMITS, takeSlot, type CounterSlot } from './request-limits.js';
import { Id, InvitationSchema, MemberSchema, RoleSchema, TenantIdParams } from './schemas.js';

const Invite = Type.Object(
  {
    email: Type.String({ minLength: 3, maxLength: 320, description: 'Compared and stored in one canonical form: NFKC, lower case.' }),
    role: RoleSchema,
  },
  { additionalProperties: false },
);

const MembersList = Type.Object({ members: Type.Array(MemberSchema), invitations: Type.Array(InvitationSchema) });

const MemberParams = Type.Object({
  tenantId: Id('Tenant id.'),
  email: Type.String({ minLength: 3, maxLength: 320, description: "The member's e-mail address." }),
});
const RoleChange = Type.Object({ role: RoleSchema }, { additionalProperties: false });

const article = (role: TenantRole) => (role === 'owner' ? 'an owner' : 'a member');

export function memberRoutes(deps: ManageDeps): RouteDef[] {
  return [
    manageRoute<{ tenantId: string }>(deps, {
      method: 'GET',
      path: '/tenants/:tenantId/members',
      operationId: 'listMembers',
      summary: "List a tenant's members and open invitations",
      tags: ['members'],
      params: TenantIdParams,
      responses: { 200: { description: 'Members and open invitations.', schema: MembersList } },
      errors: ['tenant_not_found'],
      handler: async ({ principal, params }) => {
        const tenant = await visibleTenant(deps, principal, params.tenantId);
        const [members, invitations] = await Promise.all([deps.members.listMembers(tenant.id), deps.members.listOpenInvitations(tenant.id)]);
        return ok({ members, invitations });
      },
    }),
    manageRoute<{ tenantId: string }, Record<string, never>, { email: string; role: TenantRole }>(deps, {
      method: 'POST',
      path: '/tenants/:tenantId/invitations',
      operationId: 'inviteMember',
      summary: 'Invite someone by e-mail as owner or member (owners only)',
      description:
        "The invitation becomes a membership when the invited person signs in with that address. The e-mail is sent by the mailer. Someone who is a member already is refused (409 already_member): change a member's role with PATCH /tenants/{tenantId}/members/{email}.",
      tags: ['members'],
      params: TenantIdParams,
      body: Invite,
      responses: {
        201: { description: 'The invitation.', schema: InvitationSchema },
      },
      errors: ['owner_required', 'tenant_not_found', 'already_member', 'already_invited', 'rate_limited'],
      handler: async ({ principal, params, body, audit }) => {
        const tenant = await ownedTenant(deps, principal, params.tenantId, 'invite members');
        const email = emailParameter('email', body.email);
        const existing = await deps.members.getMember(tenant.id, email);
        if (existing)
          throw problem(
            'already_member',
            existing.role === body.role
              ? `${email} is already ${article(existing.role)} of this tenant.`
              : `${email} is already ${article(existing.role)} of this tenant; to make them ${article(body.role)}, change their role (the members page, or PATCH /manage/v1/tenants/${tenant.id}/members/${encodeURIComponent(email)}) instead of inviting them.`,
            { role: existing.role },
          );
        const refuse = async (refusal: ReturnType<typeof limitReached>) => {
          await audit({
            action: 'member.invite.refused',
            tenantId: tenant.id,
            objectType: 'invitation',
            objectId: null,
            diff: { reason: refusal.detail, ...refusal.extras, email, role: body.role },
          });
          return refusal;
        };
        const slots: CounterSlot[] = [];
        const releaseAll = () => Promise.all(slots.map((s) => s.release()));
        if (!principal.isOperator) {
          const perTenant = MANAGE_LIMITS.invitationsPerTenantPerHour;
          const hour = await takeSlot(deps.counters, `manage:invitations:tenant:${counterId(tenant.id)}`, perTenant, HOUR);
          if ('retryAfter' in hour)
            throw await refuse(
              limitReached(
                'invitationsPerTenantPerHour',
                perTenant,
                `This tenant has sent ${perTenant} invitations this hour, the most a tenant may; invite again in ${describeWait(hour.retryAfter)}.`,
                hour.retryAfter,
              ),
            );
          slots.push(hour);
          const perAddress = MANAGE_LIMITS.invitationsPerRecipientPerDay;
          const day = await takeSlot(deps.counters, `manage:invitations:to:${counterId(email)}`, perAddress, DAY);
          if ('retryAfter' in day) {
            await releaseAll();
            throw await refuse(
              limitReached(
                'invitationsPerRecipientPerDay',
                perAddress,
                `${email} has been invited ${perAddress} times today, from every tenant together, the most one address may be invited in a day; invite them again in ${describeWait(day.retryAfter)}.`,
                day.retryAfter,
              ),
            );
          }
          slots.push(day);
        }
        let invitation: TenantInvitation;
        try {
          invitation = await deps.members.createInvitation({ tenantId: tenant.id, email, role: body.role, invitedBy: principal.id });
        } catch (err) {
          await releaseAll();
          if (err instanceof AlreadyInvitedError) throw problem('already_invited', `${err.message}; revoke it first to change the role.`);
          if (err instanceof RecipientMailLimitError) throw await refuse(mailLimitReached(err));
          throw err;
        }
        await audit({ action: 'member.invite', tenantId: tenant.id, objectType: 'invitation', objectId: invitation.id, diff: { email, role: body.role } });
        await deps.events?.invitationCreated?.(invitation);
        return ok(invitation, 201);
      },
    }),
    manageRoute<{ tenantId: string; email: string }, Record<string, never>, { role: TenantRole }>(deps, {
      method: 'PATCH',
      path: '/tenants/:tenantId/members/:email',
      operationId: 'changeMemberRole',
      summary: "Change a member's role, at once (owners only; the last owner stays one)",
      description: 'Audited as member.role with the role before and after. Setting the role a member has already changes nothing and is not audited.',
      tags: ['members'],
      params: MemberParams,
      body: RoleChange,
      responses: {
        200: { description: 'The membership as it is now.', schema: MemberSchema },
      },
      errors: ['owner_required', 'tenant_not_found', 'member_not_found', 'last_owner'],
      handler: async ({ principal, params, body, audit }) => {
        const tenant = await ownedTenant(deps, principal, params.tenantId, "change members' roles");
        const email = canonicalEmailOrNull(params.email);
        if (email === null) throw manageErrors.notFound('member', params.email);
        const changed = await deps.members.setRole(tenant.id, email, body.role);
        if (changed === null) throw manageErrors.notFound('member', email);
        if (changed === 'last_owner') throw problem('last_owner', `${email} is the tenant's last owner; make someone else an owner first.`);
        const { before, after } = changed;
        if (before.role !== after.role)
          await audit({
            action: 'member.role',
            tenantId: tenant.id,
            objectType: 'member',
            objectId: email,
            diff: { role: { from: before.role, to: after.role } },
          });
        return ok(after);
      },
    }),
    manageRoute<{ tenantId: string; email: string }>(deps, {
      method: 'DELETE',
      path: '/tenants/:tenantId/members/:email',
      operationId: 'removeMember',
      summary: 'Remove a member (owners only; the last owner stays)',
      tags: ['members'],
      params: MemberParams,
      responses: {
        200: { description: 'The removed membership.', schema: MemberSchema },
      },
      errors: ['owner_required', 'tenant_not_found', 'member_not_found', 'last_owner'],
      handler: async ({ principal, params, audit }) => {
        const tenant = await ownedTenant(deps, principal, params.tenantId, 'remove members');
        const email = canonicalEmailOrNull(params.email);
        if (email === null) throw manageErrors.notFound('member', params.email);
        const removed = await deps.members.removeMember(tenant.id, email);
        if (removed === null) throw manageErrors.notFound('member', email);
        if (removed === 'last_owner') throw problem('last_owner', `${email} is the tenant's last owner; make someone else an owner first.`);
        await audit({ action: 'member.remove', tenantId: tenant.id, objectType: 'member', objectId: email, diff: { role: removed.role } });
        return ok(removed);
      },
    }),
    manageRoute<{ tenantId: string; invitationId: string }>(deps, {
      method: 'DELETE',
      path: '/tenants/:tenantId/invitations/:invitationId',
      operationId: 'revokeInvitation',
      summary: 'Revoke an open invitation; its e-mail, if not sent yet, is withdrawn (owners only)',
      tags: ['members'],
      params: Type.Object({ tenantId: Id('Tenant id.'), invitationId: Id('Invitation id.') }),
      responses: {
        200: { description: 'The revoked invitation.', schema: InvitationSchema },
      },
      errors: ['owner_required', 'tenant_not_found', 'invitation_not_found'],
      handler: async ({ principal, params, audit }) => {
        const tenant = await ownedTenant(deps, principal, params.tenantId, 'revoke invitations');
        const revoked = await deps.members.revokeInvitation(tenant.id, params.invitationId);
        if (!revoked) throw manageErrors.notFound('invitation', params.invitationId);
        await audit({
          action: 'member.revoke-invitation',
          tenantId: tenant.id,
          objectType: 'invitation',
          objectId: revoked.id,
          diff: { email: revoked.email },
        });
        return ok(revoked);
      },
    }),
  ];
}
