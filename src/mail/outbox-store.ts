// The mail outbox (migration 4) over a SqlClient: enqueue in the caller's transaction, list and
// show for operators, and the sender's side — claim due rows under a lease, stamp them sent or
// schedule the next attempt. Claims are atomic across nodes (FOR UPDATE SKIP LOCKED inside one
// UPDATE … RETURNING), so two senders never hold the same row.
import { randomUUID } from 'node:crypto';
import type { SqlClient } from '../db/sql.js';
import type { MailMessage } from './templates.js';

type Ts = Date | string;
const iso = (v: Ts) => (v instanceof Date ? v : new Date(v)).toISOString();
const isoOrNull = (v: Ts | null) => (v === null ? null : iso(v));

interface OutboxRow {
  id: string;
  dedupe_key: string;
  template: string;
  params: Record<string, unknown> | string;
  recipients: string[];
  tenant_id: string | null;
  created_at: Ts;
  attempts: number | string;
  next_attempt_at: Ts;
  last_error: string | null;
  sent_at: Ts | null;
  message_id: string | null;
}

export interface OutboxMail {
  id: string;
  dedupeKey: string;
  message: MailMessage;
  recipients: string[];
  tenantId: string | null;
  createdAt: string;
  /** Delivery attempts so far (a claimed row counts its attempt before it is made). */
  attempts: number;
  nextAttemptAt: string;
  lastError: string | null;
  sentAt: string | null;
  /** The Message-ID the SMTP server accepted. */
  messageId: string | null;
}

export interface NewOutboxMail {
  /** Identifies the event the e-mail is about; a second enqueue with the same key is a no-op. */
  dedupeKey: string;
  message: MailMessage;
  recipients: string[];
  tenantId: string | null;
}

const toMail = (r: OutboxRow): OutboxMail => ({
  id: r.id,
  dedupeKey: r.dedupe_key,
  message: { template: r.template, params: typeof r.params === 'string' ? JSON.parse(r.params) : r.params } as MailMessage,
  recipients: [...r.recipients],
  tenantId: r.tenant_id,
  createdAt: iso(r.created_at),
  attempts: Number(r.attempts),
  nextAttemptAt: iso(r.next_attempt_at),
  lastError: r.last_error,
  sentAt: isoOrNull(r.sent_at),
  messageId: r.message_id,
});

const COLUMNS = 'id, dedupe_key, template, params, recipients, tenant_id, created_at, attempts, next_attempt_at, last_error, sent_at, message_id';

/**
 * Writes one e-mail to the outbox, in db's transaction when db is one. Returns its id, or null
 * when an e-mail for the same event is there already (or there is nobody to send it to).
 */
export async function enqueueMail(db: SqlClient, m: NewOutboxMail): Promise<string | null> {
  const recipients = [...new Set(m.recipients.map((r) => r.trim().toLowerCase()).filter(Boolean))];
  if (recipients.length === 0) return null;
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO mail_outbox (id, dedupe_key, template, params, recipients, tenant_id)
     VALUES ($1, $2, $3, $4::jsonb, $5, $6)
     ON CONFLICT (dedupe_key) DO NOTHING
     RETURNING id`,
    [randomUUID(), m.dedupeKey, m.message.template, JSON.stringify(m.message.params), recipients, m.tenantId],
  );
  return rows[0]?.id ?? null;
}

export class OutboxStore {
  constructor(private readonly db: SqlClient) {}

  /** Newest first. */
  async list(filter: { pendingOnly?: boolean; tenantId?: string; limit?: number } = {}): Promise<OutboxMail[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (filter.pendingOnly) where.push('sent_at IS NULL');
    if (filter.tenantId !== undefined) {
      params.push(filter.tenantId);
      where.push(`tenant_id = $${params.length}`);
    }
    params.push(filter.limit ?? 100);
    const { rows } = await this.db.query<OutboxRow>(
      `SELECT ${COLUMNS} FROM mail_outbox ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
        ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
      params,
    );
    return rows.map(toMail);
  }

  async get(id: string): Promise<OutboxMail | null> {
    const { rows } = await this.db.query<OutboxRow>(`SELECT ${COLUMNS} FROM mail_outbox WHERE id = $1`, [id]);
    return rows[0] ? toMail(rows[0]) : null;
  }

  /**
   * Takes up to `limit` unsent rows that are due and not leased by a live sender, leases them to
   * `owner` for leaseSeconds and counts the attempt. A row stays with its owner until it is
   * stamped sent or failed, or the lease runs out (the owner died mid-send).
   */
  async claimDue(owner: string, opts: { limit: number; leaseSeconds: number }): Promise<OutboxMail[]> {
    const { rows } = await this.db.query<OutboxRow>(
      `UPDATE mail_outbox
          SET lease_owner = $1, lease_until = now() + make_interval(secs => $2::double precision), attempts = attempts + 1
        WHERE id IN (SELECT id FROM mail_outbox
                      WHERE sent_at IS NULL AND next_attempt_at <= now() AND (lease_until IS NULL OR lease_until < now())
                      ORDER BY next_attempt_at, created_at
                      LIMIT $3
                      FOR UPDATE SKIP LOCKED)
          AND sent_at IS NULL AND (lease_until IS NULL OR lease_until < now())
        RETURNING ${COLUMNS}`,
      [owner, opts.leaseSeconds, opts.limit],
    );
    return rows.map(toMail).sort((a, b) => a.nextAttemptAt.localeCompare(b.nextAttemptAt) || a.createdAt.localeCompare(b.createdAt));
  }

  /** The SMTP server accepted the message. False when the lease was lost meanwhile. */
  async markSent(id: string, owner: string, messageId: string | null): Promise<boolean> {
    const { rows } = await this.db.query<{ id: string }>(
      `UPDATE mail_outbox SET sent_at = now(), message_id = $3, last_error = NULL, lease_owner = NULL, lease_until = NULL
        WHERE id = $1 AND lease_owner = $2 AND sent_at IS NULL RETURNING id`,
      [id, owner, messageId],
    );
    return rows.length > 0;
  }

  /** The attempt failed: keep the reason and try again after retryInMs. */
  async markFailed(id: string, owner: string, reason: string, retryInMs: number): Promise<void> {
    await this.db.query(
      `UPDATE mail_outbox
          SET last_error = $3, next_attempt_at = now() + make_interval(secs => $4::double precision), lease_owner = NULL, lease_until = NULL
        WHERE id = $1 AND lease_owner = $2 AND sent_at IS NULL`,
      [id, owner, reason.slice(0, 2000), retryInMs / 1000],
    );
  }
}
