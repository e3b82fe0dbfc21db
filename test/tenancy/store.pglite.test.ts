import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openControlPlaneStore } from '../../src/tenancy/sql-store.js';
import { freshPGliteStore } from './fixtures.js';
import { controlPlaneStoreSuite } from './store-suite.js';

controlPlaneStoreSuite('PGlite (in memory)', async () => {
  const store = await freshPGliteStore();
  return { store, dispose: () => store.close() };
});

describe('openControlPlaneStore without a database URL', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  it('persists in <dataDir>/pglite and keeps data across reopen', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'dp-cp-'));
    dirs.push(dataDir);

    const first = await openControlPlaneStore({ dataDir });
    const tenant = await first.createTenant({ name: 'Persisted' });
    await first.setTenantState(tenant.id, 'Active');
    await first.close();

    const second = await openControlPlaneStore({ dataDir, databaseUrl: '' });
    try {
      const again = await second.getTenant(tenant.id);
      expect(again).toMatchObject({ id: tenant.id, name: 'Persisted', state: 'Active' });
      const { rows } = await second.db.query<{ n: number }>('SELECT count(*)::int AS n FROM schema_migrations');
      expect(rows[0].n).toBeGreaterThan(0);
    } finally {
      await second.close();
    }
  });

  it('refuses a URL it cannot use, without leaking it', async () => {
    const err = await openControlPlaneStore({ dataDir: '/nonexistent', databaseUrl: 'mysql://root:hunter2@db/x' }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/postgres:\/\//);
    expect((err as Error).message).not.toContain('hunter2');
  });
});
