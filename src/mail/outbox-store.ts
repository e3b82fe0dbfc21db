// The mail outbox (migrations 4 and 6) over a SqlClient: enqueue in the caller's transaction
// (at most MAIL_PER_RECIPIENT_PER_DAY e-mails to one address), withdraw one not yet sent, list
// and show for operators, and the sender's side — claim due rows under a lease, stamp them
// sent or schedule the next attempt. Claims are atomic across nodes (FOR UPDATE SKIP LOCKED
// inside one UPDATE … RETURNING), so two senders never hold the same row.
import { randomUUID } from 'node:crypto';
import type { SqlClient } from '../db/sql.js';
import { canonicalEmailOrNull } from './address.js';
import type { MailMessage } from './templates.js';

/**
 * E-mails one address is sent at most in any 24 hours, whatever they are about and whichever
 * tenant they come from (withdrawn ones do not count): nobody can use the service to flood a
 * mailbox, however many tenants or invitations they make.
 */
export const MAIL_PER_RECIPIENT_PER_DAY = 10;

/** An e-mail refused (enqueueMail with overLimit 'refuse') because an address has had its e-mails for the day. */
export class RecipientMailLimitError extends Error {
  constructor(
    readonly address: string,
    /** Seconds until the address may be sent another e-mail. */
    readonly retryAfterSeconds: number,
  ) {
    super(`${address} has been sent ${MAIL_PER_RECIPIENT_PER_DAY} e-mails in the last 24 hours`);
    this.name = 'RecipientMailLimitError';
  }
}

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
  withdrawn_at: Ts | null;
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
  /** When it was withdrawn unsent (e.g. its invitation was revoked); no sender takes it since. */
  withdrawnAt: string | null;
}

export interface NewOutboxMail {
  /** Identifies the event the e-mail is about; a second enqueue with the same key is a no-op. */
  dedupeKey: string;
  message: MailMessage;
  recipients: string[];
  tenantId: string | null;
  /**
   * A recipient who has had MAIL_PER_RECIPIENT_PER_DAY e-mails in the last 24 hours is left out
   * of this one ('leave-out', the default: e.g. an activation e-mail still goes to the other
   * owners), or the whole e-mail is refused with RecipientMailLimitError ('refuse': the caller
   * refuses what the e-mail is about, e.g. an invitation, in the same transaction).
   */
  overLimit?: 'leave-out' | 'refuse';
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
  withdrawnAt: isoOrNull(r.withdrawn_at),
});

const COLUMNS = 'id, dedupe_key, template, params, recipients, tenant_id, created_at, attempts, next_attempt_at, last_error, sent_at, message_id, withdrawn_at';

/**
 * Writes one e-mail to the outbox, in db's transaction when db is one. Returns its id, or null
 * when an e-mail for the same event is there already, or there is nobody (left) to send it to:
 * recipients are taken in their canonical form (address.ts), those without one left out, and
 * so are those over MAIL_PER_RECIPIENT_PER_DAY unless overLimit is 'refuse'.
 */
export async function enqueueMail(db: SqlClient, m: NewOutboxMail): Promise<string | null> {
  const recipients = [...new Set(m.recipients.map(canonicalEmailOrNull).filter((r): r is string => r !== null))].sort();
  if (recipients.length === 0) return null;
  return db.transaction(async (tx) => {
    const queued = await tx.query('SELECT 1 FROM mail_outbox WHERE dedupe_key = $1', [m.dedupeKey]);
    if (queued.rows.length > 0) return null;
    const allowed: string[] = [];
    for (const address of recipients) {
      const wait = await secondsUntilRoomFor(tx, address);
      if (wait === 0) allowed.push(address);
      else if (m.overLimit === 'refuse') throw new RecipientMailLimitError(address, wait);
    }
    if (allowed.length === 0) return null;
    const { rows } = await tx.query<{ id: string }>(
      `INSERT INTO mail_outbox (id, dedupe_key, template, params, recipients, tenant_id)
       VALUES ($1, $2, $3, $4::jsonb, $5, $6)
       ON CONFLICT (dedupe_key) DO NOTHING
       RETURNING id`,
      [randomUUID(), m.dedupeKey, m.message.template, JSON.stringify(m.message.params), allowed, m.tenantId],
    );
    return rows[0]?.id ?? null;
  });
}

/**
 * 0 when `address` may be sent another e-mail now, else the seconds until one of its last 24
 * hours' e-mails ages out. Takes the address's lock for the rest of the transaction (sorted
 * addresses, so two e-mails never wait on each other), so two enqueues cannot both take its
 * last place, on any node.
 */
async function secondsUntilRoomFor(tx: SqlClient, address: string): Promise<number> {
  await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`docparse mail to ${address}`]);
  const { rows } = await tx.query<{ wait: number | string }>(
    `SELECT ceil(extract(epoch FROM created_at + interval '1 day' - now())) AS wait
       FROM mail_outbox
      WHERE recipients @> ARRAY[$1]::text[] AND created_at > now() - interval '1 day' AND withdrawn_at IS NULL
      ORDER BY created_at DESC
      OFFSET $2 LIMIT 1`,
    [address, MAIL_PER_RECIPIENT_PER_DAY - 1],
  );
  return rows[0] ? Math.max(1, Number(rows[0].wait)) : 0;
}

/**
 * Withdraws the e-mail about an event (its dedupe key) if it is not sent yet: no sender claims
 * it from now on (one already handing it to the SMTP server finishes). True when one was.
 */
export async function withdrawMail(db: SqlClient, dedupeKey: string): Promise<boolean> {
  const { rows } = await db.query<{ id: string }>(
    'UPDATE mail_outbox SET withdrawn_at = now() WHERE dedupe_key = $1 AND sent_at IS NULL AND withdrawn_at IS NULL RETURNING id',
    [dedupeKey],
  );
  return rows.length > 0;
}

export class OutboxStore {
  constructor(private readonly db: SqlClient) {}

  /** Newest first. */
  async list(filter: { pendingOnly?: boolean; tenantId?: string; limit?: number } = {}): Promise<OutboxMail[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (filter.pendingOnly) where.push('sent_at IS NULL AND withdrawn_at IS NULL');
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
    // The due rows are picked (and locked) once, in the CTE: a LIMIT in an UPDATE's WHERE … IN
    // subquery can be evaluated again when a concurrent claim touched a row (EvalPlanQual), and
    // then hands one sender more rows than its limit.
    const { rows } = await this.db.query<OutboxRow>(
      `WITH due AS (
         SELECT id FROM mail_outbox
          WHERE sent_at IS NULL AND withdrawn_at IS NULL AND next_attempt_at <= now()
            AND (lease_until IS NULL OR lease_until < now())
          ORDER BY next_attempt_at, created_at
          LIMIT $3
          FOR UPDATE SKIP LOCKED)
       UPDATE mail_outbox m
          SET lease_owner = $1, lease_until = now() + make_interval(secs => $2::double precision), attempts = m.attempts + 1
         FROM due
        WHERE m.id = due.id
        RETURNING ${COLUMNS.split(', ')
          .map((c) => `m.${c}`)
          .join(', ')}`,
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

  /** Gives claimed rows back untried: their lease ends and their attempt is not counted. */
  async release(ids: string[], owner: string): Promise<void> {
    if (ids.length === 0) return;
    await this.db.query(
      `UPDATE mail_outbox SET lease_owner = NULL, lease_until = NULL, attempts = greatest(attempts - 1, 0)
        WHERE id = ANY($1::text[]) AND lease_owner = $2 AND sent_at IS NULL`,
      [ids, owner],
    );
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
