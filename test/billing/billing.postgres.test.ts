import { openControlPlaneStore } from '../../src/tenancy/sql-store.js';
import { createTempDatabase } from '../helpers/pg.js';
import { billingSuite } from './billing-suite.js';

billingSuite('PostgreSQL', async () => {
  const db = await createTempDatabase();
  const store = await openControlPlaneStore({ databaseUrl: db.url, dataDir: '/nonexistent' });
  return {
    store,
    async dispose() {
      await store.close();
      await db.drop();
    },
  };
});
