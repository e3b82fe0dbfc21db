// The management audit log (migration 3): who changed what, when, from where. Append-only;
// read newest first in pages (cursor: the id of the last entry of the previous page).
import type { SqlClient } from '../db/sql.js';
import type { AuditEntry, NewAuditEntry } from './types.js';

type Ts = Date | string;
interface Row {
  id: number | string;
  at: Ts;
  actor_kind: string;
  actor_id: string;
  actor_email: string | null;
  tenant_id: string | null;
  action: string;
  object_type: string;
  object_id: string | null;
  diff: Record<string, unknown> | string;
  client_address: string | null;
  request_id: string | null;
}
const toEntry = (r: Row): AuditEntry => ({
  id: String(r.id),
  at: (r.at instanceof Date ? r.at : new Date(r.at)).toISOString(),
  actor: { kind: r.actor_kind, id: r.actor_id, email: r.actor_email },
  tenantId: r.tenant_id,
  action: r.action,
  objectType: r.object_type,
  objectId: r.object_id,
  diff: typeof r.diff === 'string' ? (JSON.parse(r.diff) as Record<string, unknown>) : r.diff,
  clientAddress: r.client_address,
  requestId: r.request_id,
});

export interface AuditPage {
  entries: AuditEntry[];
  /** Pass as `before` for the next (older) page; null on the last page. */
  next: string | null;
}

export class AuditStore {
  constructor(private readonly db: SqlClient) {}

  async append(e: NewAuditEntry): Promise<AuditEntry> {
    const { rows } = await this.db.query<Row>(
      `INSERT INTO audit_log (actor_kind, actor_id, actor_email, tenant_id, action, object_type, object_id, diff, client_address, request_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $10) RETURNING *`,
      [e.actor.kind, e.actor.id, e.actor.email, e.tenantId, e.action, e.objectType, e.objectId, JSON.stringify(e.diff), e.clientAddress, e.requestId],
    );
    return toEntry(rows[0]);
  }

  /** Newest first; `tenantIds` limits to those tenants' entries; `before` continues a listing. */
  async list(opts: { tenantIds?: readonly string[]; before?: string; limit: number }): Promise<AuditPage> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (opts.tenantIds !== undefined) {
      params.push([...opts.tenantIds]);
      where.push(`tenant_id = ANY($${params.length}::text[])`);
    }
    if (opts.before !== undefined) {
      params.push(opts.before);
      where.push(`id < $${params.length}::bigint`);
    }
    params.push(opts.limit + 1);
    const { rows } = await this.db.query<Row>(
      `SELECT * FROM audit_log ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT $${params.length}`,
      params,
    );
    const entries = rows.slice(0, opts.limit).map(toEntry);
    return { entries, next: rows.length > opts.limit ? entries[entries.length - 1].id : null };
  }
}
