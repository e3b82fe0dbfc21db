// Tenant members and invitations (migration 3). A member is known by e-mail; an invitation
// becomes a membership when the invited person signs in (acceptInvitations, issue 20).
// The invitation row is also the mailer's queue: rows with mailed_at NULL are still to send.
import { randomUUID } from 'node:crypto';
import type { SqlClient } from '../db/sql.js';
import { sqlErrorCode } from '../db/sql.js';
import type { TenantInvitation, TenantMember, TenantRole } from './types.js';

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

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Lower-cased, trimmed e-mail address; throws when it is not one. */
export function normalizeEmail(input: string): string {
  const e = input.trim().toLowerCase();
  if (e.length > 320 || !EMAIL.test(e)) throw new Error(`"${input}" is not an e-mail address`);
  return e;
}

/** Thrown when an open invitation for that address exists already. */
export class AlreadyInvitedError extends Error {}

export class MembersStore {
  constructor(private readonly db: SqlClient) {}

  async listMembers(tenantId: string): Promise<TenantMember[]> {
    const { rows } = await this.db.query<MemberRow>('SELECT * FROM tenant_members WHERE tenant_id = $1 ORDER BY added_at, email', [tenantId]);
    return rows.map(toMember);
  }

  async getMember(tenantId: string, email: string): Promise<TenantMember | null> {
    const { rows } = await this.db.query<MemberRow>('SELECT * FROM tenant_members WHERE tenant_id = $1 AND email = $2', [tenantId, normalizeEmail(email)]);
    return rows[0] ? toMember(rows[0]) : null;
  }

  /** Adds or updates a membership (e.g. the signed-in user who created the tenant becomes its owner). */
  async upsertMember(m: { tenantId: string; email: string; role: TenantRole; userId?: string | null }): Promise<TenantMember> {
    const { rows } = await this.db.query<MemberRow>(
      `INSERT INTO tenant_members (tenant_id, email, role, user_id) VALUES ($1, $2, $3, $4)
       ON CONFLICT (tenant_id, email) DO UPDATE SET role = EXCLUDED.role, user_id = COALESCE(EXCLUDED.user_id, tenant_members.user_id)
       RETURNING *`,
      [m.tenantId, normalizeEmail(m.email), m.role, m.userId ?? null],
    );
    return toMember(rows[0]);
  }

  /**
   * Removes a member; refuses (returns 'last_owner') to remove a tenant's last owner, so a
   * tenant always keeps someone who can manage it. Runs in one transaction.
   */
  async removeMember(tenantId: string, email: string): Promise<TenantMember | null | 'last_owner'> {
    const address = normalizeEmail(email);
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

  /** Each tenant the address belongs to, with its role there. */
  async rolesOf(email: string): Promise<Map<string, TenantRole>> {
    const { rows } = await this.db.query<MemberRow>('SELECT * FROM tenant_members WHERE email = $1', [normalizeEmail(email)]);
    return new Map(rows.map((r) => [r.tenant_id, r.role]));
  }

  async createInvitation(i: { tenantId: string; email: string; role: TenantRole; invitedBy: string }): Promise<TenantInvitation> {
    try {
      const { rows } = await this.db.query<InvitationRow>(
        'INSERT INTO tenant_invitations (id, tenant_id, email, role, invited_by) VALUES ($1, $2, $3, $4, $5) RETURNING *',
        [randomUUID(), i.tenantId, normalizeEmail(i.email), i.role, i.invitedBy],
      );
      return toInvitation(rows[0]);
    } catch (err) {
      if (sqlErrorCode(err) === '23505') throw new AlreadyInvitedError(`${normalizeEmail(i.email)} already has an open invitation to this tenant`);
      throw err;
    }
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

  /** Revokes an open invitation; null when there is no open one with that id in the tenant. */
  async revokeInvitation(tenantId: string, id: string): Promise<TenantInvitation | null> {
    const { rows } = await this.db.query<InvitationRow>(
      `UPDATE tenant_invitations SET revoked_at = now()
        WHERE id = $1 AND tenant_id = $2 AND accepted_at IS NULL AND revoked_at IS NULL RETURNING *`,
      [id, tenantId],
    );
    return rows[0] ? toInvitation(rows[0]) : null;
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
   * A signed-in person's open invitations become memberships (the higher role wins when they
   * are already a member). Returns the tenants joined.
   */
  async acceptInvitations(email: string, userId: string): Promise<TenantMember[]> {
    const address = normalizeEmail(email);
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
