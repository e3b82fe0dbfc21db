// Which tenant events become e-mails, and to whom. Each is written to the outbox (never sent
// from here): the activation e-mail in the transaction that makes the tenant Active (owners
// over their daily e-mails are left out), an invitation's e-mail in the transaction that
// creates it (refused with it when its address is over), withdrawn when it is revoked.
import type { SqlClient } from '../db/sql.js';
import type { TenantInvitation, TenantState } from './types.js';
import { enqueueMail, withdrawMail, type OutboxMail } from '../mail/outbox-store.js';
import type { OutboxHooks } from '../mail/sender.js';

interface ActivatedTenant {
  id: string;
  name: string;
  contactEmail: string | null;
  /** When it became Active; one e-mail per activation. */
  activatedAt: string | null;
}

/** The tenant's owners; the contact e-mail when it has none yet (e.g. an owner invited, not signed in). */
async function tenantOwnerAddresses(db: SqlClient, tenant: ActivatedTenant): Promise<string[]> {
  const { rows } = await db.query<{ email: string }>("SELECT email FROM tenant_members WHERE tenant_id = $1 AND role = 'owner' ORDER BY added_at, email", [
    tenant.id,
  ]);
  if (rows.length > 0) return rows.map((r) => r.email);
  return tenant.contactEmail ? [tenant.contactEmail] : [];
}

/**
 * Called where a tenant's state changes (ControlPlaneStore.setTenantState), in its transaction:
 * entering Active from another state queues the activation e-mail to its owners. Returns the
 * outbox id, or null when nothing was queued (no transition, or nobody to write to).
 */
export async function enqueueTenantActiveEmail(tx: SqlClient, tenant: ActivatedTenant, previousState: TenantState): Promise<string | null> {
  if (previousState === 'Active') return null;
  return enqueueMail(tx, {
    dedupeKey: `tenant-active:${tenant.id}:${tenant.activatedAt ?? ''}`,
    message: { template: 'tenant-active', params: { tenantId: tenant.id, tenantName: tenant.name, reactivated: previousState === 'Deactivated' } },
    recipients: await tenantOwnerAddresses(tx, tenant),
    tenantId: tenant.id,
  });
}

const invitationKey = (invitationId: string) => `invitation:${invitationId}`;

/**
 * Queues the e-mail of one invitation (at most once per invitation). With overLimit 'refuse'
 * (a new invitation) an address over its daily e-mails throws RecipientMailLimitError; with
 * 'leave-out' nothing is queued then (enqueueOpenInvitationEmails tries again later).
 */
export async function enqueueInvitationEmail(
  db: SqlClient,
  invitation: Pick<TenantInvitation, 'id' | 'tenantId' | 'email' | 'role'>,
  overLimit: 'leave-out' | 'refuse',
): Promise<string | null> {
  const { rows } = await db.query<{ name: string }>('SELECT name FROM tenants WHERE id = $1', [invitation.tenantId]);
  if (!rows[0]) return null;
  return enqueueMail(db, {
    dedupeKey: invitationKey(invitation.id),
    message: {
      template: 'tenant-invitation',
      params: { invitationId: invitation.id, tenantId: invitation.tenantId, tenantName: rows[0].name, email: invitation.email, role: invitation.role },
    },
    recipients: [invitation.email],
    tenantId: invitation.tenantId,
    overLimit,
  });
}

/** Withdraws the e-mail of a revoked invitation if it is not sent yet. */
export async function withdrawInvitationEmail(db: SqlClient, invitationId: string): Promise<boolean> {
  return withdrawMail(db, invitationKey(invitationId));
}

/**
 * Queues an e-mail for every open invitation that has none in the outbox yet (invitations
 * written before their e-mail was queued with them, or straight into the table), through the
 * same per-address limit; safe to run on every node at once. Returns how many were queued.
 */
export async function enqueueOpenInvitationEmails(db: SqlClient, batch = 100): Promise<number> {
  const { rows } = await db.query<{ id: string; tenant_id: string; email: string; role: TenantInvitation['role'] }>(
    `SELECT i.id, i.tenant_id, i.email, i.role
       FROM tenant_invitations i
      WHERE i.mailed_at IS NULL AND i.accepted_at IS NULL AND i.revoked_at IS NULL
        AND NOT EXISTS (SELECT 1 FROM mail_outbox o WHERE o.dedupe_key = 'invitation:' || i.id)
      ORDER BY i.created_at, i.id
      LIMIT $1`,
    [batch],
  );
  let queued = 0;
  for (const r of rows) {
    const id = await enqueueInvitationEmail(db, { id: r.id, tenantId: r.tenant_id, email: r.email, role: r.role }, 'leave-out');
    if (id) queued++;
  }
  return queued;
}

/** After the SMTP server accepted an e-mail: an invitation's mailedAt says when. */
export async function recordDelivery(db: SqlClient, mail: OutboxMail): Promise<void> {
  if (mail.message.template !== 'tenant-invitation') return;
  await db.query('UPDATE tenant_invitations SET mailed_at = COALESCE(mailed_at, now()) WHERE id = $1', [mail.message.params.invitationId]);
}

/** The outbox sender's hooks for tenant e-mails: invitations queued before each pass, mailedAt stamped on delivery. */
export const tenantMailHooks: OutboxHooks = { beforePass: enqueueOpenInvitationEmails, delivered: recordDelivery };
