// Tenant members: list (with open invitations), invite by e-mail, remove a member, revoke an
// invitation. Members read; owners (and operators) change. The e-mail to the invited person
// is the mailer's: it reads the invitations whose mailedAt is null (and gets an event).
import { Type } from '@sinclair/typebox';
import type { RouteDef } from '../../http/route.js';
import { problem } from '../../http/problem.js';
import { canonicalEmail } from '../../mail/address.js';
import { AlreadyInvitedError } from '../../tenancy/members-store.js';
import type { TenantRole } from '../../tenancy/types.js';
import { manageErrors, manageRoute, ok, ownedTenant, visibleTenant, type ManageDeps } from './kit.js';
import { Id, InvitationSchema, MemberSchema, RoleSchema, TenantIdParams } from './schemas.js';

const Invite = Type.Object({ email: Type.String({ format: 'email', maxLength: 320 }), role: RoleSchema }, { additionalProperties: false });

const MembersList = Type.Object({ members: Type.Array(MemberSchema), invitations: Type.Array(InvitationSchema) });

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
      description: 'The invitation becomes a membership when the invited person signs in with that address. The e-mail is sent by the mailer.',
      tags: ['members'],
      params: TenantIdParams,
      body: Invite,
      responses: {
        201: { description: 'The invitation.', schema: InvitationSchema },
      },
      errors: ['owner_required', 'tenant_not_found', 'already_member', 'already_invited'],
      handler: async ({ principal, params, body, audit }) => {
        const tenant = await ownedTenant(deps, principal, params.tenantId, 'invite members');
        const email = canonicalEmail(body.email);
        const existing = await deps.members.getMember(tenant.id, email);
        if (existing && existing.role === body.role)
          throw problem('already_member', `${email} is already ${body.role === 'owner' ? 'an owner' : 'a member'} of this tenant.`);
        let invitation;
        try {
          invitation = await deps.members.createInvitation({ tenantId: tenant.id, email, role: body.role, invitedBy: principal.id });
        } catch (err) {
          if (err instanceof AlreadyInvitedError) throw problem('already_invited', `${err.message}; revoke it first to change the role.`);
          throw err;
        }
        await audit({ action: 'member.invite', tenantId: tenant.id, objectType: 'invitation', objectId: invitation.id, diff: { email, role: body.role } });
        await deps.events?.invitationCreated?.(invitation);
        return ok(invitation, 201);
      },
    }),
    manageRoute<{ tenantId: string; email: string }>(deps, {
      method: 'DELETE',
      path: '/tenants/:tenantId/members/:email',
      operationId: 'removeMember',
      summary: 'Remove a member (owners only; the last owner stays)',
      tags: ['members'],
      params: Type.Object({ tenantId: Id('Tenant id.'), email: Type.String({ minLength: 3, maxLength: 320, description: "The member's e-mail address." }) }),
      responses: {
        200: { description: 'The removed membership.', schema: MemberSchema },
      },
      errors: ['owner_required', 'tenant_not_found', 'member_not_found', 'last_owner'],
      handler: async ({ principal, params, audit }) => {
        const tenant = await ownedTenant(deps, principal, params.tenantId, 'remove members');
        let email: string;
        try {
          email = canonicalEmail(params.email);
        } catch {
          throw manageErrors.notFound('member', params.email);
        }
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
      summary: 'Revoke an open invitation (owners only)',
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
