// The usage ledger and quota holds in SQL: charges (idempotent by charge key), units used
// and committed per app and month, holds reserved before the work and settled or released
// after it, every quota decision serialised per app and month across nodes.
import type { SqlClient } from '../../db/sql.js';
import type { QuotaCheck, UnitHold, UsageCharge } from '../types.js';
import { MONTH, requireNonNegInt, requireText, rethrow } from './checks.js';

/** A usage_ledger row as the driver returns it. */
export interface UsageRow {
  charge_key: string;
  tenant_id: string;
  app_id: string;
  document_id: string;
  month: string;
  format: string;
  units: number | string;
}

const toUsage = (r: UsageRow): UsageCharge => ({
  chargeKey: r.charge_key,
  tenantId: r.tenant_id,
  appId: r.app_id,
  documentId: r.document_id,
  month: r.month,
  format: r.format,
  units: Number(r.units),
});

/**
 * Inside a transaction: serialises every quota decision of one app and month (across nodes,
 * by an advisory lock), then tells whether `units` more for `chargeKey` fit, counting what is
 * charged and what other live holds keep. `charged`: the key is in the ledger already.
 */
async function quotaFit(
  tx: SqlClient,
  appId: string,
  month: string,
  chargeKey: string,
  units: number,
  quota: number,
): Promise<{ charged: boolean; check: QuotaCheck }> {
  await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`docparse usage ${appId} ${month}`]);
  const { rows } = await tx.query<{ used: number | string; held: number | string; charged: boolean }>(
    `SELECT (SELECT COALESCE(SUM(units), 0) FROM usage_ledger WHERE app_id = $1 AND month = $2) AS used,
            (SELECT COALESCE(SUM(units), 0) FROM usage_holds WHERE app_id = $1 AND month = $2 AND charge_key <> $3 AND expires_at > now()) AS held,
            EXISTS (SELECT 1 FROM usage_ledger WHERE charge_key = $3) AS charged`,
    [appId, month, chargeKey],
  );
  const used = Number(rows[0].used);
  const held = Number(rows[0].held);
  if (rows[0].charged) return { charged: true, check: { ok: true } };
  if (used + held + units > quota) return { charged: false, check: { ok: false, used, held, quota } };
  return { charged: false, check: { ok: true } };
}

export async function chargeUsage(db: SqlClient, c: UsageCharge): Promise<boolean> {
  if (!MONTH.test(c.month)) throw new Error(`usage month must be YYYY-MM, got "${c.month}"`);
  requireNonNegInt(c.units, 'units');
  try {
    const { rows } = await db.query<{ charge_key: string }>(
      `INSERT INTO usage_ledger (charge_key, tenant_id, app_id, document_id, month, format, units)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (charge_key) DO NOTHING
       RETURNING charge_key`,
      [requireText(c.chargeKey, 'charge key'), c.tenantId, c.appId, c.documentId, c.month, c.format, c.units],
    );
    return rows.length > 0;
  } catch (err) {
    rethrow(err, { tenant_id: ['tenant', c.tenantId], app_id: ['app', c.appId] });
  }
}

/**
 * Records several charges in one statement (the quota keepers' group commit). Returns the
 * charge keys this statement inserted: a key missing from it was charged before (or twice in
 * the batch) and is not charged again.
 */
export async function chargeUsageBatch(db: SqlClient, charges: UsageCharge[]): Promise<Set<string>> {
  if (charges.length === 0) return new Set();
  const params: unknown[] = [];
  const rows = charges.map((c) => {
    if (!MONTH.test(c.month)) throw new Error(`usage month must be YYYY-MM, got "${c.month}"`);
    requireNonNegInt(c.units, 'units');
    params.push(requireText(c.chargeKey, 'charge key'), c.tenantId, c.appId, c.documentId, c.month, c.format, c.units);
    const n = params.length;
    return `($${n - 6}, $${n - 5}, $${n - 4}, $${n - 3}, $${n - 2}, $${n - 1}, $${n})`;
  });
  const { rows: inserted } = await db.query<{ charge_key: string }>(
    `INSERT INTO usage_ledger (charge_key, tenant_id, app_id, document_id, month, format, units)
     VALUES ${rows.join(', ')}
     ON CONFLICT (charge_key) DO NOTHING
     RETURNING charge_key`,
    params,
  );
  return new Set(inserted.map((r) => r.charge_key));
}

/** Whether a charge key is in the ledger (the refusal path of the quota keepers: a job charged before a crash is never refused). */
export async function isCharged(db: SqlClient, chargeKey: string): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM usage_ledger WHERE charge_key = $1', [chargeKey]);
  return rows.length > 0;
}

export async function unitsUsed(db: SqlClient, appId: string, month: string): Promise<number> {
  const { rows } = await db.query<{ units: number | string }>('SELECT COALESCE(SUM(units), 0) AS units FROM usage_ledger WHERE app_id = $1 AND month = $2', [
    appId,
    month,
  ]);
  return Number(rows[0]?.units ?? 0);
}

export async function unitsCommitted(db: SqlClient, appId: string, month: string): Promise<number> {
  const { rows } = await db.query<{ units: number | string }>(
    `SELECT (SELECT COALESCE(SUM(units), 0) FROM usage_ledger WHERE app_id = $1 AND month = $2)
          + (SELECT COALESCE(SUM(units), 0) FROM usage_holds WHERE app_id = $1 AND month = $2 AND expires_at > now()) AS units`,
    [appId, month],
  );
  return Number(rows[0]?.units ?? 0);
}

export async function reserveUnits(db: SqlClient, h: UnitHold): Promise<QuotaCheck> {
  if (!MONTH.test(h.month)) throw new Error(`usage month must be YYYY-MM, got "${h.month}"`);
  requireNonNegInt(h.units, 'units');
  return db.transaction(async (tx) => {
    const fit = await quotaFit(tx, h.appId, h.month, h.chargeKey, h.units, h.quota);
    if (fit.charged || !fit.check.ok) return fit.check;
    await tx.query(
      `INSERT INTO usage_holds (charge_key, tenant_id, app_id, document_id, month, units, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, now() + make_interval(secs => $7))
       ON CONFLICT (charge_key) DO UPDATE SET units = EXCLUDED.units, month = EXCLUDED.month, expires_at = EXCLUDED.expires_at`,
      [h.chargeKey, h.tenantId, h.appId, h.documentId, h.month, h.units, h.holdSeconds],
    );
    return fit.check;
  });
}

export async function settleUsage(db: SqlClient, c: UsageCharge & { quota: number }): Promise<QuotaCheck> {
  if (!MONTH.test(c.month)) throw new Error(`usage month must be YYYY-MM, got "${c.month}"`);
  requireNonNegInt(c.units, 'units');
  return db.transaction(async (tx) => {
    const fit = await quotaFit(tx, c.appId, c.month, c.chargeKey, c.units, c.quota);
    if (!fit.charged && fit.check.ok) await chargeUsage(tx, c);
    await tx.query('DELETE FROM usage_holds WHERE charge_key = $1', [c.chargeKey]);
    return fit.check;
  });
}

export async function releaseUnits(db: SqlClient, chargeKey: string): Promise<void> {
  await db.query('DELETE FROM usage_holds WHERE charge_key = $1', [chargeKey]);
}

export async function listUsage(db: SqlClient, filter: { tenantId?: string; appId?: string; month?: string }): Promise<UsageCharge[]> {
  const where: string[] = [];
  const params: unknown[] = [];
  for (const [column, value] of [
    ['tenant_id', filter.tenantId],
    ['app_id', filter.appId],
    ['month', filter.month],
  ] as const) {
    if (value !== undefined) {
      params.push(value);
      where.push(`${column} = $${params.length}`);
    }
  }
  const { rows } = await db.query<UsageRow>(
    `SELECT * FROM usage_ledger ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY charged_at, charge_key`,
    params,
  );
  return rows.map(toUsage);
}
