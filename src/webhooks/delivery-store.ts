// The webhook outbox (migration 8) over a SqlClient — PGlite on an embedded node, the shared
// PostgreSQL in the distributed mode. A finished job's notification is one row, written once
// (unique per job generation, whichever node ended the job); senders claim due rows under a
// lease in one UPDATE … FOR UPDATE SKIP LOCKED, so one notification is sent by one node at a
// time, and stamp them delivered or schedule the next attempt (the mail outbox's pattern).
import { randomUUID } from 'node:crypto';
import type { SqlClient } from '../db/sql.js';
import type { JobRecord } from '../jobs/types.js';
import type { WebhookPayload } from './payload.js';

type Ts = Date | string;
const iso = (v: Ts) => new Date(v).toISOString();
const isoOrNull = (v: Ts | null) => (v === null ? null : iso(v));

interface Row {
  id: string;
  tenant_id: string;
  app_id: string;
  document_id: string;
  generation: string;
  callback_url: string;
  payload: WebhookPayload | string;
  window_started_at: Ts;
  attempts: number | string;
  next_attempt_at: Ts;
  last_attempt_at: Ts | null;
  last_status_code: number | string | null;
  last_error: string | null;
  delivered_at: Ts | null;
  gave_up_at: Ts | null;
}

export interface WebhookDelivery {
  /** The webhook-id header. */
  id: string;
  tenantId: string;
  appId: string;
  documentId: string;
  generation: string;
  callbackUrl: string;
  payload: WebhookPayload;
  windowStartedAt: string;
  /** Attempts so far (a claimed row counts its attempt before it is made). */
  attempts: number;
  nextAttemptAt: string;
  lastAttemptAt: string | null;
  lastStatusCode: number | null;
  lastError: string | null;
  deliveredAt: string | null;
  /** Set when the retry window ended without a 2xx answer. */
  gaveUpAt: string | null;
}

const COLUMNS =
  'id, tenant_id, app_id, document_id, generation, callback_url, payload, window_started_at, attempts, next_attempt_at, last_attempt_at, last_status_code, last_error, delivered_at, gave_up_at';

const toDelivery = (r: Row): WebhookDelivery => ({
  id: r.id,
  tenantId: r.tenant_id,
  appId: r.app_id,
  documentId: r.document_id,
  generation: r.generation,
  callbackUrl: r.callback_url,
  payload: typeof r.payload === 'string' ? (JSON.parse(r.payload) as WebhookPayload) : r.payload,
  windowStartedAt: iso(r.window_started_at),
  attempts: Number(r.attempts),
  nextAttemptAt: iso(r.next_attempt_at),
  lastAttemptAt: isoOrNull(r.last_attempt_at),
  lastStatusCode: r.last_status_code === null ? null : Number(r.last_status_code),
  lastError: r.last_error,
  deliveredAt: isoOrNull(r.delivered_at),
  gaveUpAt: isoOrNull(r.gave_up_at),
});

export class WebhookDeliveryStore {
  constructor(private readonly db: SqlClient) {}

  /** Records the notification of a finished job; a second call for the same generation is a no-op. */
  async enqueue(job: JobRecord & { callbackUrl: string }, payload: WebhookPayload): Promise<void> {
    await this.db.query(
      `INSERT INTO webhook_deliveries (id, tenant_id, app_id, document_id, generation, callback_url, payload)
       VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb)
       ON CONFLICT (tenant_id, document_id, generation) DO NOTHING`,
      [`msg_${randomUUID().replace(/-/g, '')}`, job.tenantId, job.appId, job.documentId, job.generation, job.callbackUrl, JSON.stringify(payload)],
    );
  }

  async get(tenantId: string, documentId: string, generation: string): Promise<WebhookDelivery | null> {
    const { rows } = await this.db.query<Row>(`SELECT ${COLUMNS} FROM webhook_deliveries WHERE tenant_id = $1 AND document_id = $2 AND generation = $3`, [
      tenantId,
      documentId,
      generation,
    ]);
    return rows[0] ? toDelivery(rows[0]) : null;
  }

  /**
   * Sends the job's notification again, now, with a new retry window: the row is made anew when
   * there is none (its job ended before it could be written), else reset (same webhook-id).
   */
  async replay(job: JobRecord & { callbackUrl: string }, payload: WebhookPayload): Promise<WebhookDelivery> {
    await this.enqueue(job, payload);
    const { rows } = await this.db.query<Row>(
      `UPDATE webhook_deliveries
          SET next_attempt_at = now(), window_started_at = now(), delivered_at = NULL, gave_up_at = NULL
        WHERE tenant_id = $1 AND document_id = $2 AND generation = $3
        RETURNING ${COLUMNS}`,
      [job.tenantId, job.documentId, job.generation],
    );
    return toDelivery(rows[0]);
  }

  /** Takes up to `limit` due rows no live sender holds, leases them to `owner` and counts the attempt. */
  async claimDue(owner: string, opts: { limit: number; leaseSeconds: number }): Promise<WebhookDelivery[]> {
    // The due rows are picked (and locked) once, in the CTE: a LIMIT in an UPDATE's WHERE … IN
    // subquery can be evaluated again when a concurrent claim touched a row (EvalPlanQual), and
    // then hands one sender more rows than its limit.
    const { rows } = await this.db.query<Row>(
      `WITH due AS (
         SELECT id FROM webhook_deliveries
          WHERE delivered_at IS NULL AND gave_up_at IS NULL AND next_attempt_at <= now()
            AND (lease_until IS NULL OR lease_until < now())
          ORDER BY next_attempt_at
          LIMIT $3
          FOR UPDATE SKIP LOCKED)
       UPDATE webhook_deliveries w
          SET lease_owner = $1, lease_until = now() + make_interval(secs => $2::double precision), attempts = w.attempts + 1, last_attempt_at = now()
         FROM due
        WHERE w.id = due.id
        RETURNING ${COLUMNS.split(', ')
          .map((c) => `w.${c}`)
          .join(', ')}`,
      [owner, opts.leaseSeconds, opts.limit],
    );
    return rows.map(toDelivery);
  }

  /** The receiver answered 2xx. False when the lease was lost meanwhile. */
  async markDelivered(id: string, owner: string, statusCode: number): Promise<boolean> {
    const { rows } = await this.db.query(
      `UPDATE webhook_deliveries SET delivered_at = now(), last_status_code = $3, last_error = NULL, lease_owner = NULL, lease_until = NULL
        WHERE id = $1 AND lease_owner = $2 RETURNING id`,
      [id, owner, statusCode],
    );
    return rows.length > 0;
  }

  /** The attempt failed: keep what happened, then try again after retryInMs, or give up (retryInMs null). */
  async markFailed(id: string, owner: string, failure: { statusCode: number | null; error: string }, retryInMs: number | null): Promise<void> {
    await this.db.query(
      `UPDATE webhook_deliveries
          SET last_status_code = $3, last_error = $4, lease_owner = NULL, lease_until = NULL,
              next_attempt_at = CASE WHEN $5::double precision IS NULL THEN next_attempt_at ELSE now() + make_interval(secs => $5::double precision) END,
              gave_up_at = CASE WHEN $5::double precision IS NULL THEN now() ELSE NULL END
        WHERE id = $1 AND lease_owner = $2`,
      [id, owner, failure.statusCode, failure.error.slice(0, 1000), retryInMs === null ? null : retryInMs / 1000],
    );
  }

  /** Gives claimed rows back untried (a stopping sender): their attempt is not counted. */
  async release(ids: string[], owner: string): Promise<void> {
    if (ids.length === 0) return;
    await this.db.query(
      `UPDATE webhook_deliveries SET lease_owner = NULL, lease_until = NULL, attempts = greatest(attempts - 1, 0)
        WHERE id = ANY($1::text[]) AND lease_owner = $2`,
      [ids, owner],
    );
  }

  /** Forgets rows older than `seconds` (their jobs have expired): the retention of the outbox. */
  async deleteOlderThan(seconds: number): Promise<number> {
    const { rows } = await this.db.query(
      `DELETE FROM webhook_deliveries WHERE created_at < now() - make_interval(secs => $1::double precision)
         AND (delivered_at IS NOT NULL OR gave_up_at IS NOT NULL) RETURNING id`,
      [seconds],
    );
    return rows.length;
  }
}
