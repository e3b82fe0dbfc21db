import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appliedVersions, migrate, migrations } from '../../src/tenancy/migrations.js';
import { PostgresSqlClient } from '../../src/db/sql.js';
import { openControlPlaneStore, SqlControlPlaneStore } from '../../src/tenancy/sql-store.js';
import { createTempDatabase, type TempDatabase } from '../helpers/pg.js';
import { controlPlaneStoreSuite } from './store-suite.js';

controlPlaneStoreSuite('PostgreSQL', async () => {
  const db = await createTempDatabase();
  try {
    const store = await openControlPlaneStore({ databaseUrl: db.url, dataDir: '/nonexistent' });
    return {
      store,
      async dispose() {
        await store.close();
        await db.drop();
      },
    };
  } catch (err) {
    await db.drop();
    throw err;
  }
});

describe('PostgreSQL migrations', () => {
  let db: TempDatabase;
  beforeAll(async () => {
    db = await createTempDatabase();
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('several nodes migrating one empty database at once apply each version exactly once', async () => {
    const clients = Array.from({ length: 4 }, () => PostgresSqlClient.open(db.url, { max: 2 }));
    try {
      const applied = await Promise.all(clients.map((c) => migrate(c)));
      // Exactly one node applied each version; the others found it done.
      expect(applied.flat().sort()).toEqual(migrations.map((m) => m.version).sort());
      expect(await appliedVersions(clients[0])).toEqual(migrations.map((m) => m.version));

      const store = new SqlControlPlaneStore(clients[1]);
      const t = await store.createTenant({ name: 'After race' });
      expect((await new SqlControlPlaneStore(clients[2]).getTenant(t.id))!.state).toBe('Pending Activation');
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
  });

  it('a failing migration rolls back completely and is retried next time', async () => {
    const extra = [...migrations, { version: 9001, name: 'broken', sql: 'CREATE TABLE half_done (x int); SELECT no_such_function();' }];
    const client = PostgresSqlClient.open(db.url);
    try {
      await expect(migrate(client, extra)).rejects.toThrow(/no_such_function/);
      expect(await appliedVersions(client)).not.toContain(9001);
      const { rows } = await client.query<{ t: string | null }>("SELECT to_regclass('half_done')::text AS t");
      expect(rows[0].t).toBeNull();
    } finally {
      await client.close();
    }
  });
});
