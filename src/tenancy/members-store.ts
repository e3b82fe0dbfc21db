// Tenant members and invitations (migration 3). A member is known by e-mail address, in its
// canonical form (src/mail/address.ts); an invitation becomes a membership when the invited
// person signs in (acceptInvitations, issue 20). An invitation's e-mail is queued in the
// transaction that creates it and withdrawn in the one that revokes it; mailed_at says when
// the SMTP server took it.
import { randomUUID } from 'node:crypto';
import type { SqlClient } from '../db/sql.js';
import { sqlErrorCode } from '../db/sql.js';
import { canonicalEmail } from '../mail/address.js';
import { createTenant } from './store/tenants.js';
import { enqueueInvitationEmail, withdrawInvitationEmail } from './tenant-mail.js';
import type { NewTenant, Tenant, TenantInvitation, TenantMember, TenantRole } from './types.js';

type Ts = Date | string;
const iso = (v: Ts) => (v instanceof Date ? v : new Date(v)).toISOString();
const isoOrNull = (v: Ts | null) => (v === null ? null : iso(v));

interface MemberRow {
  tenant_id: string;
  email: string;
  role: TenantRole;
  user_id: string | null;
  added_at: Ts;
}
interface InvitationRow {
  id: string;
  tenant_id: string;
  email: string;
  role: TenantRole;
  invited_by: string;
  created_at: Ts;
  accepted_at: Ts | null;
  revoked_at: Ts | null;
  mailed_at: Ts | null;
}

const toMember = (r: MemberRow): TenantMember => ({ tenantId: r.tenant_id, email: r.email, role: r.role, userId: r.user_id, addedAt: iso(r.added_at) });
const toInvitation = (r: InvitationRow): TenantInvitation => ({
  id: r.id,
  tenantId: r.tenant_id,
  email: r.email,
  role: r.role,
  invitedBy: r.invited_by,
  createdAt: iso(r.created_at),
  acceptedAt: isoOrNull(r.accepted_at),
  revokedAt: isoOrNull(r.revoked_at),
  mailedAt: isoOrNull(r.mailed_at),
});

/** Thrown when an open invitation for that address exists already. */
export class AlreadyInvitedError extends Error {}

/**
 * A new tenant's first owner: the signed-in user who creates it (refused when they already own
 * maxPendingOwned tenants still Pending Activation), or an address invited to own it.
 */
export type FirstOwner = { member: { email: string; userId: string | null }; maxPendingOwned?: number } | { invite: { email: string; invitedBy: string } };

export type CreatedTenant = { tenant: Tenant; invitation: TenantInvitation | null } | { pendingOwned: number };

export class MembersStore {
  constructor(private readonly db: SqlClient) {}

  async listMembers(tenantId: string): Promise<TenantMember[]> {
    const { rows } = await this.db.query<MemberRow>('SELECT * FROM tenant_members WHERE tenant_id = $1 ORDER BY added_at, email', [tenantId]);
    return rows.map(toMember);
  }

  async getMember(tenantId: string, email: string): Promise<TenantMember | null> {
    const { rows } = await this.db.query<MemberRow>('SELECT * FROM tenant_members WHERE tenant_id = $1 AND email = $2', [tenantId, canonicalEmail(email)]);
    return rows[0] ? toMember(rows[0]) : null;
  }

  /** Adds or updates a membership (e.g. the signed-in user who created the tenant becomes its owner). */
  async upsertMember(m: { tenantId: string; email: string; role: TenantRole; userId?: string | null }): Promise<TenantMember> {
    const { rows } = await this.db.query<MemberRow>(
      `INSERT INTO tenant_members (tenant_id, email, role, user_id) VALUES ($1, $2, $3, $4)
       ON CONFLICT (tenant_id, email) DO UPDATE SET role = EXCLUDED.role, user_id = COALESCE(EXCLUDED.user_id, tenant_members.user_id)
       RETURNING *`,
      [m.tenantId, canonicalEmail(m.email), m.role, m.userId ?? null],
    );
    return toMember(rows[0]);
  }

  /**
   * Removes a member; refuses (returns 'last_owner') to remove a tenant's last owner, so a
   * tenant always keeps someone who can manage it. Runs in one transaction.
   */
  async removeMember(tenantId: string, email: string): Promise<TenantMember | null | 'last_owner'> {
    const address = canonicalEmail(email);
    return this.db.transaction(async (tx) => {
      // Serialises removals within a tenant so two concurrent removals cannot drop both last owners.
      await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`docparse members ${tenantId}`]);
      const { rows } = await tx.query<MemberRow>('SELECT * FROM tenant_members WHERE tenant_id = $1 AND email = $2', [tenantId, address]);
      if (!rows[0]) return null;
      if (rows[0].role === 'owner') {
        const owners = await tx.query<{ n: number | string }>("SELECT count(*) AS n FROM tenant_members WHERE tenant_id = $1 AND role = 'owner'", [tenantId]);
        if (Number(owners.rows[0].n) <= 1) return 'last_owner';
      }
      await tx.query('DELETE FROM tenant_members WHERE tenant_id = $1 AND email = $2', [tenantId, address]);
      return toMember(rows[0]);
    });
  }

  /**
   * Changes a member's role at once; refuses (returns 'last_owner') to make the tenant's last
   * owner a member. Serialised with removals, so the two cannot leave a tenant without owners.
   */
  async setRole(tenantId: string, email: string, role: TenantRole): Promise<{ before: TenantMember; after: TenantMember } | null | 'last_owner'> {
    const address = canonicalEmail(email);
    return this.db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`docparse members ${tenantId}`]);
      const { rows } = await tx.query<MemberRow>('SELECT * FROM tenant_members WHERE tenant_id = $1 AND email = $2', [tenantId, address]);
      if (!rows[0]) return null;
      const before = toMember(rows[0]);
      if (before.role === role) return { before, after: before };
      if (before.role === 'owner') {
        const owners = await tx.query<{ n: number | string }>("SELECT count(*) AS n FROM tenant_members WHERE tenant_id = $1 AND role = 'owner'", [tenantId]);
        if (Number(owners.rows[0].n) <= 1) return 'last_owner';
      }
      const updated = await tx.query<MemberRow>('UPDATE tenant_members SET role = $3 WHERE tenant_id = $1 AND email = $2 RETURNING *', [
        tenantId,
        address,
        role,
      ]);
      return { before, after: toMember(updated.rows[0]) };
    });
  }

  /** Each tenant the address belongs to, with its role there. */
  async rolesOf(email: string): Promise<Map<string, TenantRole>> {
    const { rows } = await this.db.query<MemberRow>('SELECT * FROM tenant_members WHERE email = $1', [canonicalEmail(email)]);
    return new Map(rows.map((r) => [r.tenant_id, r.role]));
  }

  /**
   * Creates an invitation and queues its e-mail, in one transaction: throws AlreadyInvitedError,
   * or RecipientMailLimitError when the address has had its e-mails for the day — then neither
   * exists.
   */
  async createInvitation(i: { tenantId: string; email: string; role: TenantRole; invitedBy: string }): Promise<TenantInvitation> {
    const email = canonicalEmail(i.email);
    try {
      return await this.db.transaction(async (tx) => {
        const { rows } = await tx.query<InvitationRow>(
          'INSERT INTO tenant_invitations (id, tenant_id, email, role, invited_by) VALUES ($1, $2, $3, $4, $5) RETURNING *',
          [randomUUID(), i.tenantId, email, i.role, i.invitedBy],
        );
        const invitation = toInvitation(rows[0]);
        await enqueueInvitationEmail(tx, invitation, 'refuse');
        return invitation;
      });
    } catch (err) {
      if (sqlErrorCode(err) === '23505') throw new AlreadyInvitedError(`${email} already has an open invitation to this tenant`);
      throw err;
    }
  }

  /**
   * Creates a tenant with its first owner in one transaction: a member (the signed-in user
   * creating it; refused — { pendingOwned } — when they already own maxPendingOwned tenants
   * still Pending Activation, counted under a lock on their address so two requests cannot
   * both pass), or an invitation with its e-mail (see createInvitation).
   */
  async createTenant(t: NewTenant, owner: FirstOwner | null): Promise<CreatedTenant> {
    return this.db.transaction(async (tx) => {
      if (owner && 'member' in owner && owner.maxPendingOwned !== undefined) {
        const email = canonicalEmail(owner.member.email);
        await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`docparse tenants owned by ${email}`]);
        const { rows } = await tx.query<{ n: number | string }>(
          `SELECT count(*) AS n FROM tenant_members m JOIN tenants t ON t.id = m.tenant_id
            WHERE m.email = $1 AND m.role = 'owner' AND t.state = 'Pending Activation'`,
          [email],
        );
        const pendingOwned = Number(rows[0].n);
        if (pendingOwned >= owner.maxPendingOwned) return { pendingOwned };
      }
      const tenant = await createTenant(tx, t);
      const members = new MembersStore(tx);
      if (owner && 'member' in owner) {
        await members.upsertMember({ tenantId: tenant.id, email: owner.member.email, role: 'owner', userId: owner.member.userId });
        return { tenant, invitation: null };
      }
      const invitation = owner
        ? await members.createInvitation({ tenantId: tenant.id, email: owner.invite.email, role: 'owner', invitedBy: owner.invite.invitedBy })
        : null;
      return { tenant, invitation };
    });
  }

  /** Open invitations of a tenant (neither accepted nor revoked). */
  async listOpenInvitations(tenantId: string): Promise<TenantInvitation[]> {
    const { rows } = await this.db.query<InvitationRow>(
      'SELECT * FROM tenant_invitations WHERE tenant_id = $1 AND accepted_at IS NULL AND revoked_at IS NULL ORDER BY created_at, id',
      [tenantId],
    );
    return rows.map(toInvitation);
  }

  async getInvitation(id: string): Promise<TenantInvitation | null> {
    const { rows } = await this.db.query<InvitationRow>('SELECT * FROM tenant_invitations WHERE id = $1', [id]);
    return rows[0] ? toInvitation(rows[0]) : null;
  }

  /** Revokes an open invitation and withdraws its e-mail if unsent; null when there is no open one with that id in the tenant. */
  async revokeInvitation(tenantId: string, id: string): Promise<TenantInvitation | null> {
    return this.db.transaction(async (tx) => {
      const { rows } = await tx.query<InvitationRow>(
        `UPDATE tenant_invitations SET revoked_at = now()
          WHERE id = $1 AND tenant_id = $2 AND accepted_at IS NULL AND revoked_at IS NULL RETURNING *`,
        [id, tenantId],
      );
      if (!rows[0]) return null;
      await withdrawInvitationEmail(tx, id);
      return toInvitation(rows[0]);
    });
  }

  /** Invitations still to be e-mailed, oldest first (the mailer's queue). */
  async invitationsToMail(limit = 50): Promise<TenantInvitation[]> {
    const { rows } = await this.db.query<InvitationRow>(
      'SELECT * FROM tenant_invitations WHERE mailed_at IS NULL AND accepted_at IS NULL AND revoked_at IS NULL ORDER BY created_at, id LIMIT $1',
      [limit],
    );
    return rows.map(toInvitation);
  }

  async markInvitationMailed(id: string): Promise<void> {
    await this.db.query('UPDATE tenant_invitations SET mailed_at = COALESCE(mailed_at, now()) WHERE id = $1', [id]);
  }

  /**
   * A signed-in person's open invitations become memberships. Someone who is a member already
   * is not invited (a role is changed with setRole); an invitation from before that rule,
   * accepted by a member, never lowers their role. Returns the tenants joined.
   */
  async acceptInvitations(email: string, userId: string): Promise<TenantMember[]> {
    const address = canonicalEmail(email);
    return this.db.transaction(async (tx) => {
      const { rows } = await tx.query<InvitationRow>(
        'UPDATE tenant_invitations SET accepted_at = now() WHERE email = $1 AND accepted_at IS NULL AND revoked_at IS NULL RETURNING *',
        [address],
      );
      const joined: TenantMember[] = [];
      for (const inv of rows) {
        const m = await tx.query<MemberRow>(
          `INSERT INTO tenant_members (tenant_id, email, role, user_id) VALUES ($1, $2, $3, $4)
           ON CONFLICT (tenant_id, email) DO UPDATE
             SET role = CASE WHEN tenant_members.role = 'owner' THEN 'owner' ELSE EXCLUDED.role END,
                 user_id = EXCLUDED.user_id
           RETURNING *`,
          [inv.tenant_id, address, inv.role, userId],
        );
        joined.push(toMember(m.rows[0]));
      }
      return joined;
    });
  }
}
