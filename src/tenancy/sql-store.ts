// ControlPlaneStore over SQL: PGlite in ${dataDir}/pglite by default, PostgreSQL when a
// postgres:// URL is configured. Same SQL text on both engines. Each table's queries are in
// store/ (tenants, plans, apps, storage configs, signing keys, usage); this class hands them
// its connection.
import { join } from 'node:path';
import { migrate } from './migrations.js';
import { isPostgresUrl, PGliteSqlClient, PostgresSqlClient, type SqlClient } from '../db/sql.js';
import type {
  App,
  ControlPlaneStore,
  NewApp,
  NewPlan,
  NewStorageConfig,
  NewTenant,
  Plan,
  PlanChanges,
  QuotaCheck,
  SigningKey,
  StorageConfig,
  Tenant,
  TenantState,
  UnitHold,
  UsageCharge,
} from './types.js';
import * as apps from './store/apps.js';
import * as plans from './store/plans.js';
import * as signingKeys from './store/signing-keys.js';
import * as storageConfigs from './store/storage-configs.js';
import * as tenants from './store/tenants.js';
import * as usage from './store/usage.js';

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

  createTenant(t: NewTenant): Promise<Tenant> {
    return tenants.createTenant(this.db, t);
  }
  getTenant(id: string): Promise<Tenant | null> {
    return tenants.getTenant(this.db, id);
  }
  listTenants(): Promise<Tenant[]> {
    return tenants.listTenants(this.db);
  }
  setTenantState(id: string, state: TenantState): Promise<Tenant> {
    return tenants.setTenantState(this.db, id, state);
  }

  createPlan(p: NewPlan): Promise<Plan> {
    return plans.createPlan(this.db, p);
  }
  getPlan(id: string): Promise<Plan | null> {
    return plans.getPlan(this.db, id);
  }
  listPlans(): Promise<Plan[]> {
    return plans.listPlans(this.db);
  }
  updatePlan(id: string, changes: PlanChanges): Promise<Plan> {
    return plans.updatePlan(this.db, id, changes);
  }
  retirePlan(id: string): Promise<Plan> {
    return plans.retirePlan(this.db, id);
  }

  createApp(a: NewApp): Promise<App> {
    return apps.createApp(this.db, a);
  }
  getApp(id: string): Promise<App | null> {
    return apps.getApp(this.db, id);
  }
  getAppByClientId(clientId: string): Promise<App | null> {
    return apps.getAppByClientId(this.db, clientId);
  }
  listApps(tenantId?: string): Promise<App[]> {
    return apps.listApps(this.db, tenantId);
  }
  setAppEnabled(id: string, enabled: boolean): Promise<App> {
    return apps.setAppEnabled(this.db, id, enabled);
  }
  setAppDomains(id: string, domains: string[]): Promise<App> {
    return apps.setAppDomains(this.db, id, domains);
  }
  assignPlan(appId: string, planId: string | null): Promise<App> {
    return apps.assignPlan(this.db, appId, planId);
  }
  setAppSecretHash(appId: string, secretHash: string): Promise<App> {
    return apps.setAppSecretHash(this.db, appId, secretHash);
  }
  setAppStorageConfig(appId: string, storageConfigId: string | null): Promise<App> {
    return apps.setAppStorageConfig(this.db, appId, storageConfigId);
  }

  createStorageConfig(c: NewStorageConfig): Promise<StorageConfig> {
    return storageConfigs.createStorageConfig(this.db, c);
  }
  getStorageConfig(id: string): Promise<StorageConfig | null> {
    return storageConfigs.getStorageConfig(this.db, id);
  }

  insertSigningKey(k: SigningKey): Promise<void> {
    return signingKeys.insertSigningKey(this.db, k);
  }
  /** Oldest first. */
  listSigningKeys(): Promise<SigningKey[]> {
    return signingKeys.listSigningKeys(this.db);
  }
  /** Retiring an already retired key keeps its first retirement time. */
  retireSigningKey(kid: string, at: string): Promise<void> {
    return signingKeys.retireSigningKey(this.db, kid, at);
  }

  chargeUsage(c: UsageCharge): Promise<boolean> {
    return usage.chargeUsage(this.db, c);
  }
  unitsUsed(appId: string, month: string): Promise<number> {
    return usage.unitsUsed(this.db, appId, month);
  }
  unitsCommitted(appId: string, month: string): Promise<number> {
    return usage.unitsCommitted(this.db, appId, month);
  }
  reserveUnits(h: UnitHold): Promise<QuotaCheck> {
    return usage.reserveUnits(this.db, h);
  }
  settleUsage(c: UsageCharge & { quota: number }): Promise<QuotaCheck> {
    return usage.settleUsage(this.db, c);
  }
  releaseUnits(chargeKey: string): Promise<void> {
    return usage.releaseUnits(this.db, chargeKey);
  }
  listUsage(filter: { tenantId?: string; appId?: string; month?: string }): Promise<UsageCharge[]> {
    return usage.listUsage(this.db, filter);
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
