import { PostgresSqlClient } from '../../src/db/sql.js';
import { openControlPlaneStore } from '../../src/tenancy/sql-store.js';
import { createTempDatabase } from '../helpers/pg.js';
import { mailSuite } from './mail-suite.js';

mailSuite('PostgreSQL', async () => {
  const db = await createTempDatabase();
  const store = await openControlPlaneStore({ databaseUrl: db.url, dataDir: '/nonexistent' });
  return {
    store,
    // Another node: its own pool on the same database.
    secondClient: async () => {
      const client = PostgresSqlClient.open(db.url);
      return { db: client, close: () => client.close() };
    },
    async dispose() {
      await store.close();
      await db.drop();
    },
  };
});
