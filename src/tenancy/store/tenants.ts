// Tenants in SQL: create, read, list, and state changes (becoming Active e-mails the owners
// in the same transaction).
import { randomUUID } from 'node:crypto';
import { enqueueTenantActiveEmail } from '../tenant-mail.js';
import type { SqlClient } from '../../db/sql.js';
import { NotFoundError, type NewTenant, type Tenant, type TenantState } from '../types.js';
import { iso, isoOrNull, requireText, rethrow, type Ts } from './checks.js';

const TENANT_STATES: readonly TenantState[] = ['Pending Activation', 'Active', 'Deactivated'];

interface TenantRow {
  id: string;
  name: string;
  state: TenantState;
  contact_email: string | null;
  created_at: Ts;
  activated_at: Ts | null;
}

const toTenant = (r: TenantRow): Tenant => ({
  id: r.id,
  name: r.name,
  state: r.state,
  contactEmail: r.contact_email,
  createdAt: iso(r.created_at),
  activatedAt: isoOrNull(r.activated_at),
});

export async function createTenant(db: SqlClient, t: NewTenant): Promise<Tenant> {
  const id = t.id ?? randomUUID();
  const name = requireText(t.name, 'tenant name');
  try {
    const { rows } = await db.query<TenantRow>('INSERT INTO tenants (id, name, contact_email) VALUES ($1, $2, $3) RETURNING *', [
      id,
      name,
      t.contactEmail?.trim() || null,
    ]);
    return toTenant(rows[0]);
  } catch (err) {
    rethrow(err, {}, { tenants_pkey: `tenant ${id} already exists` });
  }
}

export async function getTenant(db: SqlClient, id: string): Promise<Tenant | null> {
  const { rows } = await db.query<TenantRow>('SELECT * FROM tenants WHERE id = $1', [id]);
  return rows[0] ? toTenant(rows[0]) : null;
}

export async function listTenants(db: SqlClient): Promise<Tenant[]> {
  const { rows } = await db.query<TenantRow>('SELECT * FROM tenants ORDER BY created_at, id');
  return rows.map(toTenant);
}

export async function setTenantState(db: SqlClient, id: string, state: TenantState): Promise<Tenant> {
  if (!TENANT_STATES.includes(state)) throw new Error(`unknown tenant state "${state}"; expected one of ${TENANT_STATES.join(', ')}`);
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<TenantRow & { previous_state: TenantState }>(
      `UPDATE tenants
          SET activated_at = CASE WHEN $2::text = 'Active' AND tenants.state <> 'Active' THEN now() ELSE tenants.activated_at END,
              state = $2::text
         FROM (SELECT id, state FROM tenants WHERE id = $1 FOR UPDATE) AS before
        WHERE tenants.id = before.id
        RETURNING tenants.*, before.state AS previous_state`,
      [id, state],
    );
    if (!rows[0]) throw new NotFoundError('tenant', id);
    const tenant = toTenant(rows[0]);
    // Becoming Active e-mails the owners; the outbox row commits with the state or not at all.
    if (tenant.state === 'Active') await enqueueTenantActiveEmail(tx, tenant, rows[0].previous_state);
    return tenant;
  });
}
