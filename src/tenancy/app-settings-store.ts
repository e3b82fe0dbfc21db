// App fields the original control-plane store has no setter for (name, license region,
// database code), deleting an app, and listing a tenant's storage configs. Reads go back
// through ControlPlaneStore so every caller sees one App shape.
import type { SqlClient } from '../db/sql.js';
import { NotFoundError, type App, type ControlPlaneStore, type StorageConfig } from './types.js';

type Ts = Date | string;

export class AppSettingsStore {
  constructor(
    private readonly db: SqlClient,
    private readonly store: ControlPlaneStore,
  ) {}

  private async set(appId: string, column: 'name' | 'license_region' | 'db_code', value: string | null): Promise<App> {
    const { rows } = await this.db.query<{ id: string }>(`UPDATE apps SET ${column} = $2 WHERE id = $1 RETURNING id`, [appId, value]);
    if (!rows[0]) throw new NotFoundError('app', appId);
    return (await this.store.getApp(appId))!;
  }

  setName(appId: string, name: string): Promise<App> {
    if (name.trim() === '') throw new Error('app name must not be empty');
    return this.set(appId, 'name', name.trim());
  }

  /** null clears it (the app then gets no tokens). */
  setLicenseRegion(appId: string, region: string | null): Promise<App> {
    return this.set(appId, 'license_region', region?.trim() || null);
  }

  /** null clears it (the app then gets no tokens). */
  setDbCode(appId: string, dbCode: string | null): Promise<App> {
    return this.set(appId, 'db_code', dbCode?.trim() || null);
  }

  /**
   * Deletes an app: its credentials stop working at once. Its usage stays in the ledger
   * (billing history; migration 3 dropped the ledger's reference to apps); holds of jobs
   * still running are dropped with it. Returns the app as it was, or null.
   */
  async deleteApp(appId: string): Promise<App | null> {
    const app = await this.store.getApp(appId);
    if (!app) return null;
    return this.db.transaction(async (tx) => {
      await tx.query('DELETE FROM usage_holds WHERE app_id = $1', [appId]);
      const { rows } = await tx.query<{ id: string }>('DELETE FROM apps WHERE id = $1 RETURNING id', [appId]);
      return rows[0] ? app : null;
    });
  }

  /** A tenant's storage configs, oldest first. */
  async listStorageConfigs(tenantId: string): Promise<StorageConfig[]> {
    const { rows } = await this.db.query<{ id: string; created_at: Ts }>(
      'SELECT id, created_at FROM storage_configs WHERE tenant_id = $1 ORDER BY created_at, id',
      [tenantId],
    );
    const configs = await Promise.all(rows.map((r) => this.store.getStorageConfig(r.id)));
    return configs.filter((c): c is StorageConfig => c !== null);
  }
}
