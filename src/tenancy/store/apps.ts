// Apps in SQL: create, read (by id or client id), list, and their settings: enabled,
// allowed domains, plan, secret hash, storage config.
import { randomUUID } from 'node:crypto';
import { normalizeAllowedDomains } from '../domains.js';
import type { SqlClient } from '../../db/sql.js';
import { NotFoundError, type App, type NewApp } from '../types.js';
import { iso, requireText, rethrow, type Ts } from './checks.js';
import type { StorageConfigRow } from './storage-configs.js';

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

export async function createApp(db: SqlClient, a: NewApp): Promise<App> {
  const id = a.id ?? randomUUID();
  const domains = normalizeAllowedDomains(a.allowedDomains ?? []);
  try {
    const { rows } = await db.query<AppRow>(
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

export async function getApp(db: SqlClient, id: string): Promise<App | null> {
  const { rows } = await db.query<AppRow>('SELECT * FROM apps WHERE id = $1', [id]);
  return rows[0] ? toApp(rows[0]) : null;
}

export async function getAppByClientId(db: SqlClient, clientId: string): Promise<App | null> {
  const { rows } = await db.query<AppRow>('SELECT * FROM apps WHERE client_id = $1', [clientId]);
  return rows[0] ? toApp(rows[0]) : null;
}

export async function listApps(db: SqlClient, tenantId?: string): Promise<App[]> {
  const { rows } =
    tenantId === undefined
      ? await db.query<AppRow>('SELECT * FROM apps ORDER BY created_at, id')
      : await db.query<AppRow>('SELECT * FROM apps WHERE tenant_id = $1 ORDER BY created_at, id', [tenantId]);
  return rows.map(toApp);
}

async function updateApp(db: SqlClient, id: string, setSql: string, value: unknown, refs: Record<string, [string, string | null]> = {}): Promise<App> {
  try {
    const { rows } = await db.query<AppRow>(`UPDATE apps SET ${setSql} WHERE id = $1 RETURNING *`, [id, value]);
    if (!rows[0]) throw new NotFoundError('app', id);
    return toApp(rows[0]);
  } catch (err) {
    rethrow(err, refs);
  }
}

export async function setAppEnabled(db: SqlClient, id: string, enabled: boolean): Promise<App> {
  return updateApp(db, id, 'enabled = $2', Boolean(enabled));
}

export async function setAppDomains(db: SqlClient, id: string, domains: string[]): Promise<App> {
  return updateApp(db, id, 'allowed_domains = $2', normalizeAllowedDomains(domains));
}

export async function assignPlan(db: SqlClient, appId: string, planId: string | null): Promise<App> {
  return updateApp(db, appId, 'plan_id = $2', planId, { plan_id: ['plan', planId] });
}

export async function setAppSecretHash(db: SqlClient, appId: string, secretHash: string): Promise<App> {
  return updateApp(db, appId, 'secret_hash = $2', requireText(secretHash, 'secret hash'));
}

export async function setAppStorageConfig(db: SqlClient, appId: string, storageConfigId: string | null): Promise<App> {
  return db.transaction(async (tx) => {
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
