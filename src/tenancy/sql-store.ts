// ControlPlaneStore over SQL: PGlite in ${dataDir}/pglite by default, PostgreSQL when a
// postgres:// URL is configured. Same SQL text on both engines.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { enqueueTenantActiveEmail } from '../mail/tenant-mail.js';
import { normalizeAllowedDomains } from './domains.js';
import { migrate } from './migrations.js';
import { isPostgresUrl, PGliteSqlClient, PostgresSqlClient, sqlErrorCode, type SqlClient, type SqlError } from './sql.js';
import {
  NotFoundError,
  type App,
  type ControlPlaneStore,
  type NewApp,
  type NewPlan,
  type NewStorageConfig,
  type NewTenant,
  type Plan,
  type SigningKey,
  type StorageConfig,
  type Tenant,
  type TenantState,
  type UsageCharge,
  type UnitHold,
  type QuotaCheck,
} from './types.js';

const TENANT_STATES: readonly TenantState[] = ['Pending Activation', 'Active', 'Deactivated'];
const MONTH = /^\d{4}-(0[1-9]|1[0-2])$/;

type Ts = Date | string;

interface TenantRow {
  id: string;
  name: string;
  state: TenantState;
  contact_email: string | null;
  created_at: Ts;
  activated_at: Ts | null;
}
interface PlanRow {
  id: string;
  name: string;
  status: 'usable' | 'retired';
  max_document_units_per_month: number | string;
  advanced_pdf_extraction: boolean;
  ocr_pdf_extraction: boolean;
  max_file_size_bytes: number | string;
  max_concurrent_jobs: number | string;
  max_bytes_per_second: number | string;
  created_at: Ts;
}
interface AppRow {
  id: string;
  tenant_id: string;
  name: string;
  license_region: string | null;
  client_id: string;
  secret_hash: string;
  db_code: string | null;
  allowed_domains: string[];
  enabled: boolean;
  plan_id: string | null;
  storage_config_id: string | null;
  created_at: Ts;
}
interface StorageConfigRow {
  id: string;
  tenant_id: string;
  provider: string;
  endpoint: string | null;
  region: string;
  bucket: string;
  prefix: string;
  access_key_id: string;
  secret_access_key_sealed: string;
  force_path_style: boolean;
  created_at: Ts;
}
interface SigningKeyRow {
  kid: string;
  alg: 'ES256';
  public_jwk: Record<string, unknown> | string;
  private_key_sealed: string;
  created_at: Ts;
  retired_at: Ts | null;
}
interface UsageRow {
  charge_key: string;
  tenant_id: string;
  app_id: string;
  document_id: string;
  month: string;
  format: string;
  units: number | string;
}

function iso(v: Ts): string {
  return (v instanceof Date ? v : new Date(v)).toISOString();
}
function isoOrNull(v: Ts | null): string | null {
  return v === null ? null : iso(v);
}

const toTenant = (r: TenantRow): Tenant => ({
  id: r.id,
  name: r.name,
  state: r.state,
  contactEmail: r.contact_email,
  createdAt: iso(r.created_at),
  activatedAt: isoOrNull(r.activated_at),
});
const toPlan = (r: PlanRow): Plan => ({
  id: r.id,
  name: r.name,
  status: r.status,
  maxDocumentUnitsPerMonth: Number(r.max_document_units_per_month),
  advancedPdfExtraction: r.advanced_pdf_extraction,
  ocrPdfExtraction: r.ocr_pdf_extraction,
  maxFileSizeBytes: Number(r.max_file_size_bytes),
  maxConcurrentJobs: Number(r.max_concurrent_jobs),
  maxBytesPerSecond: Number(r.max_bytes_per_second),
  createdAt: iso(r.created_at),
});
const toApp = (r: AppRow): App => ({
  id: r.id,
  tenantId: r.tenant_id,
  name: r.name,
  licenseRegion: r.license_region,
  clientId: r.client_id,
  secretHash: r.secret_hash,
  dbCode: r.db_code,
  allowedDomains: [...r.allowed_domains],
  enabled: r.enabled,
  planId: r.plan_id,
  storageConfigId: r.storage_config_id,
  createdAt: iso(r.created_at),
});
const toStorageConfig = (r: StorageConfigRow): StorageConfig => ({
  id: r.id,
  tenantId: r.tenant_id,
  provider: r.provider,
  endpoint: r.endpoint,
  region: r.region,
  bucket: r.bucket,
  prefix: r.prefix,
  accessKeyId: r.access_key_id,
  secretAccessKeySealed: r.secret_access_key_sealed,
  forcePathStyle: r.force_path_style,
  createdAt: iso(r.created_at),
});
const toSigningKey = (r: SigningKeyRow): SigningKey => ({
  kid: r.kid,
  alg: r.alg,
  publicJwk: typeof r.public_jwk === 'string' ? (JSON.parse(r.public_jwk) as Record<string, unknown>) : r.public_jwk,
  privateKeySealed: r.private_key_sealed,
  createdAt: iso(r.created_at),
  retiredAt: isoOrNull(r.retired_at),
});
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
async function quotaFit(tx: SqlClient, appId: string, month: string, chargeKey: string, units: number, quota: number): Promise<{ charged: boolean; check: QuotaCheck }> {
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

function requireText(value: string, what: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw new Error(`${what} must not be empty`);
  return value.trim();
}
function requireNonNegInt(value: number, what: string): number {
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`${what} must be a non-negative integer, got ${value}`);
  return value;
}
function requirePosInt(value: number, what: string): number {
  if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`${what} must be a positive integer, got ${value}`);
  return value;
}

/** Maps constraint violations to errors a caller can act on; rethrows anything else. */
function rethrow(err: unknown, refs: Record<string, [string, string | null | undefined]> = {}, uniques: Record<string, string> = {}): never {
  const code = sqlErrorCode(err);
  const constraint = (err as SqlError).constraint ?? '';
  if (code === '23503') {
    for (const [fragment, [what, id]] of Object.entries(refs)) {
      if (constraint.includes(fragment) && id) throw new NotFoundError(what, id);
    }
  }
  if (code === '23505') {
    for (const [fragment, message] of Object.entries(uniques)) {
      if (constraint.includes(fragment)) throw new Error(message);
    }
  }
  throw err;
}

export class SqlControlPlaneStore implements ControlPlaneStore {
  /** The underlying connection; other control-plane modules may share it. */
  constructor(readonly db: SqlClient) {}

  async migrate(): Promise<void> {
    await migrate(this.db);
  }

  async ping(): Promise<void> {
    await this.db.query('SELECT 1');
  }

  async close(): Promise<void> {
    return this.db.close();
  }

  // ------------------------------------------------------------ tenants

  async createTenant(t: NewTenant): Promise<Tenant> {
    const id = t.id ?? randomUUID();
    const name = requireText(t.name, 'tenant name');
    try {
      const { rows } = await this.db.query<TenantRow>(
        'INSERT INTO tenants (id, name, contact_email) VALUES ($1, $2, $3) RETURNING *',
        [id, name, t.contactEmail?.trim() || null],
      );
      return toTenant(rows[0]);
    } catch (err) {
      rethrow(err, {}, { tenants_pkey: `tenant ${id} already exists` });
    }
  }

  async getTenant(id: string): Promise<Tenant | null> {
    const { rows } = await this.db.query<TenantRow>('SELECT * FROM tenants WHERE id = $1', [id]);
    return rows[0] ? toTenant(rows[0]) : null;
  }

  async listTenants(): Promise<Tenant[]> {
    const { rows } = await this.db.query<TenantRow>('SELECT * FROM tenants ORDER BY created_at, id');
    return rows.map(toTenant);
  }

  async setTenantState(id: string, state: TenantState): Promise<Tenant> {
    if (!TENANT_STATES.includes(state)) throw new Error(`unknown tenant state "${state}"; expected one of ${TENANT_STATES.join(', ')}`);
    return this.db.transaction(async (tx) => {
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

  // ------------------------------------------------------------ plans

  async createPlan(p: NewPlan): Promise<Plan> {
    const id = p.id ?? randomUUID();
    const values = [
      id,
      requireText(p.name, 'plan name'),
      requireNonNegInt(p.maxDocumentUnitsPerMonth, 'maxDocumentUnitsPerMonth'),
      Boolean(p.advancedPdfExtraction),
      Boolean(p.ocrPdfExtraction),
      requirePosInt(p.maxFileSizeBytes, 'maxFileSizeBytes'),
      requirePosInt(p.maxConcurrentJobs, 'maxConcurrentJobs'),
      requirePosInt(p.maxBytesPerSecond, 'maxBytesPerSecond'),
    ];
    try {
      const { rows } = await this.db.query<PlanRow>(
        `INSERT INTO plans (id, name, max_document_units_per_month, advanced_pdf_extraction, ocr_pdf_extraction,
                            max_file_size_bytes, max_concurrent_jobs, max_bytes_per_second)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *`,
        values,
      );
      return toPlan(rows[0]);
    } catch (err) {
      rethrow(err, {}, { plans_pkey: `plan ${id} already exists` });
    }
  }

  async getPlan(id: string): Promise<Plan | null> {
    const { rows } = await this.db.query<PlanRow>('SELECT * FROM plans WHERE id = $1', [id]);
    return rows[0] ? toPlan(rows[0]) : null;
  }

  async listPlans(): Promise<Plan[]> {
    const { rows } = await this.db.query<PlanRow>('SELECT * FROM plans ORDER BY created_at, id');
    return rows.map(toPlan);
  }

  async retirePlan(id: string): Promise<Plan> {
    const { rows } = await this.db.query<PlanRow>(
      `UPDATE plans SET status = 'retired', retired_at = COALESCE(retired_at, now()) WHERE id = $1 RETURNING *`,
      [id],
    );
    if (!rows[0]) throw new NotFoundError('plan', id);
    return toPlan(rows[0]);
  }

  // ------------------------------------------------------------ apps

  async createApp(a: NewApp): Promise<App> {
    const id = a.id ?? randomUUID();
    const domains = normalizeAllowedDomains(a.allowedDomains ?? []);
    try {
      const { rows } = await this.db.query<AppRow>(
        `INSERT INTO apps (id, tenant_id, name, license_region, client_id, secret_hash, db_code, allowed_domains, enabled, plan_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING *`,
        [
          id,
          a.tenantId,
          requireText(a.name, 'app name'),
          a.licenseRegion?.trim() || null,
          requireText(a.clientId, 'client id'),
          requireText(a.secretHash, 'secret hash'),
          a.dbCode?.trim() || null,
          domains,
          a.enabled ?? true,
          a.planId ?? null,
        ],
      );
      return toApp(rows[0]);
    } catch (err) {
      rethrow(
        err,
        { tenant_id: ['tenant', a.tenantId], plan_id: ['plan', a.planId] },
        { apps_pkey: `app ${id} already exists`, client_id: `client id ${a.clientId} is already in use` },
      );
    }
  }

  async getApp(id: string): Promise<App | null> {
    const { rows } = await this.db.query<AppRow>('SELECT * FROM apps WHERE id = $1', [id]);
    return rows[0] ? toApp(rows[0]) : null;
  }

  async getAppByClientId(clientId: string): Promise<App | null> {
    const { rows } = await this.db.query<AppRow>('SELECT * FROM apps WHERE client_id = $1', [clientId]);
    return rows[0] ? toApp(rows[0]) : null;
  }

  async listApps(tenantId?: string): Promise<App[]> {
    const { rows } =
      tenantId === undefined
        ? await this.db.query<AppRow>('SELECT * FROM apps ORDER BY created_at, id')
        : await this.db.query<AppRow>('SELECT * FROM apps WHERE tenant_id = $1 ORDER BY created_at, id', [tenantId]);
    return rows.map(toApp);
  }

  private async updateApp(id: string, setSql: string, value: unknown, refs: Record<string, [string, string | null]> = {}): Promise<App> {
    try {
      const { rows } = await this.db.query<AppRow>(`UPDATE apps SET ${setSql} WHERE id = $1 RETURNING *`, [id, value]);
      if (!rows[0]) throw new NotFoundError('app', id);
      return toApp(rows[0]);
    } catch (err) {
      rethrow(err, refs);
    }
  }

  async setAppEnabled(id: string, enabled: boolean): Promise<App> {
    return this.updateApp(id, 'enabled = $2', Boolean(enabled));
  }

  async setAppDomains(id: string, domains: string[]): Promise<App> {
    return this.updateApp(id, 'allowed_domains = $2', normalizeAllowedDomains(domains));
  }

  async assignPlan(appId: string, planId: string | null): Promise<App> {
    return this.updateApp(appId, 'plan_id = $2', planId, { plan_id: ['plan', planId] });
  }

  async setAppSecretHash(appId: string, secretHash: string): Promise<App> {
    return this.updateApp(appId, 'secret_hash = $2', requireText(secretHash, 'secret hash'));
  }

  async setAppStorageConfig(appId: string, storageConfigId: string | null): Promise<App> {
    return this.db.transaction(async (tx) => {
      const app = await tx.query<AppRow>('SELECT * FROM apps WHERE id = $1 FOR UPDATE', [appId]);
      if (!app.rows[0]) throw new NotFoundError('app', appId);
      if (storageConfigId !== null) {
        const cfg = await tx.query<StorageConfigRow>('SELECT * FROM storage_configs WHERE id = $1', [storageConfigId]);
        if (!cfg.rows[0]) throw new NotFoundError('storage config', storageConfigId);
        if (cfg.rows[0].tenant_id !== app.rows[0].tenant_id) {
          throw new Error(`storage config ${storageConfigId} belongs to another tenant than app ${appId}`);
        }
      }
      const { rows } = await tx.query<AppRow>('UPDATE apps SET storage_config_id = $2 WHERE id = $1 RETURNING *', [appId, storageConfigId]);
      return toApp(rows[0]);
    });
  }

  // ------------------------------------------------------------ storage configs

  async createStorageConfig(c: NewStorageConfig): Promise<StorageConfig> {
    const id = c.id ?? randomUUID();
    try {
      const { rows } = await this.db.query<StorageConfigRow>(
        `INSERT INTO storage_configs (id, tenant_id, provider, endpoint, region, bucket, prefix, access_key_id,
                                      secret_access_key_sealed, force_path_style)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING *`,
        [
          id,
          c.tenantId,
          c.provider,
          c.endpoint,
          c.region,
          requireText(c.bucket, 'bucket'),
          c.prefix ?? '',
          c.accessKeyId,
          c.secretAccessKeySealed,
          c.forcePathStyle,
        ],
      );
      return toStorageConfig(rows[0]);
    } catch (err) {
      if (sqlErrorCode(err) === '23514' && String((err as SqlError).constraint).includes('provider')) {
        throw new Error(`unknown storage provider "${c.provider}"; expected s3, minio, r2, gcs-s3, wasabi or other-s3`);
      }
      rethrow(err, { tenant_id: ['tenant', c.tenantId] }, { storage_configs_pkey: `storage config ${id} already exists` });
    }
  }

  async getStorageConfig(id: string): Promise<StorageConfig | null> {
    const { rows } = await this.db.query<StorageConfigRow>('SELECT * FROM storage_configs WHERE id = $1', [id]);
    return rows[0] ? toStorageConfig(rows[0]) : null;
  }

  // ------------------------------------------------------------ signing keys

  async insertSigningKey(k: SigningKey): Promise<void> {
    try {
      await this.db.query(
        `INSERT INTO signing_keys (kid, alg, public_jwk, private_key_sealed, created_at, retired_at)
         VALUES ($1, $2, $3::jsonb, $4, $5::timestamptz, $6::timestamptz)`,
        [k.kid, k.alg, JSON.stringify(k.publicJwk), k.privateKeySealed, k.createdAt, k.retiredAt],
      );
    } catch (err) {
      rethrow(err, {}, { signing_keys_pkey: `signing key ${k.kid} already exists` });
    }
  }

  /** Oldest first. */
  async listSigningKeys(): Promise<SigningKey[]> {
    const { rows } = await this.db.query<SigningKeyRow>('SELECT * FROM signing_keys ORDER BY created_at, kid');
    return rows.map(toSigningKey);
  }

  /** Retiring an already retired key keeps its first retirement time. */
  async retireSigningKey(kid: string, at: string): Promise<void> {
    const { rows } = await this.db.query<{ kid: string }>(
      'UPDATE signing_keys SET retired_at = COALESCE(retired_at, $2::timestamptz) WHERE kid = $1 RETURNING kid',
      [kid, at],
    );
    if (!rows[0]) throw new NotFoundError('signing key', kid);
  }

  // ------------------------------------------------------------ usage

  async chargeUsage(c: UsageCharge): Promise<boolean> {
    if (!MONTH.test(c.month)) throw new Error(`usage month must be YYYY-MM, got "${c.month}"`);
    requireNonNegInt(c.units, 'units');
    try {
      const { rows } = await this.db.query<{ charge_key: string }>(
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

  async unitsUsed(appId: string, month: string): Promise<number> {
    const { rows } = await this.db.query<{ units: number | string }>(
      'SELECT COALESCE(SUM(units), 0) AS units FROM usage_ledger WHERE app_id = $1 AND month = $2',
      [appId, month],
    );
    return Number(rows[0]?.units ?? 0);
  }

  async unitsCommitted(appId: string, month: string): Promise<number> {
    const { rows } = await this.db.query<{ units: number | string }>(
      `SELECT (SELECT COALESCE(SUM(units), 0) FROM usage_ledger WHERE app_id = $1 AND month = $2)
            + (SELECT COALESCE(SUM(units), 0) FROM usage_holds WHERE app_id = $1 AND month = $2 AND expires_at > now()) AS units`,
      [appId, month],
    );
    return Number(rows[0]?.units ?? 0);
  }

  async reserveUnits(h: UnitHold): Promise<QuotaCheck> {
    if (!MONTH.test(h.month)) throw new Error(`usage month must be YYYY-MM, got "${h.month}"`);
    requireNonNegInt(h.units, 'units');
    return this.db.transaction(async (tx) => {
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

  async settleUsage(c: UsageCharge & { quota: number }): Promise<QuotaCheck> {
    if (!MONTH.test(c.month)) throw new Error(`usage month must be YYYY-MM, got "${c.month}"`);
    requireNonNegInt(c.units, 'units');
    return this.db.transaction(async (tx) => {
      const fit = await quotaFit(tx, c.appId, c.month, c.chargeKey, c.units, c.quota);
      if (!fit.charged && fit.check.ok) await new SqlControlPlaneStore(tx).chargeUsage(c);
      await tx.query('DELETE FROM usage_holds WHERE charge_key = $1', [c.chargeKey]);
      return fit.check;
    });
  }

  async releaseUnits(chargeKey: string): Promise<void> {
    await this.db.query('DELETE FROM usage_holds WHERE charge_key = $1', [chargeKey]);
  }

  async listUsage(filter: { tenantId?: string; appId?: string; month?: string }): Promise<UsageCharge[]> {
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
    const { rows } = await this.db.query<UsageRow>(
      `SELECT * FROM usage_ledger ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY charged_at, charge_key`,
      params,
    );
    return rows.map(toUsage);
  }
}

export interface ControlPlaneStoreConfig {
  /** Unset or empty: embedded PGlite in `${dataDir}/pglite`. `postgres://` or `postgresql://`: PostgreSQL. */
  databaseUrl?: string;
  dataDir: string;
}

/** Applies pending migrations on a connection of their own, without the request timeouts. */
async function migratePostgres(url: string): Promise<void> {
  const db = PostgresSqlClient.open(url, { max: 1, timeouts: null });
  try {
    await migrate(db);
  } finally {
    await db.close().catch(() => {});
  }
}

/**
 * Opens the configured engine and applies pending migrations. PostgreSQL: the store's pool
 * has request timeouts (sql.ts REQUEST_TIMEOUTS), so requests answer 503 within about a
 * second while the server is unreachable; migrations run before it, without them.
 */
export async function openControlPlaneStore(cfg: ControlPlaneStoreConfig): Promise<SqlControlPlaneStore> {
  const url = cfg.databaseUrl?.trim();
  if (url && !isPostgresUrl(url)) {
    throw new Error('database URL must start with postgres:// or postgresql:// (leave it unset for the embedded database)');
  }
  if (url) {
    await migratePostgres(url);
    return new SqlControlPlaneStore(PostgresSqlClient.open(url));
  }
  const db = await PGliteSqlClient.open(join(cfg.dataDir, 'pglite'));
  const store = new SqlControlPlaneStore(db);
  try {
    await store.migrate();
  } catch (err) {
    await db.close().catch(() => {});
    throw err;
  }
  return store;
}
