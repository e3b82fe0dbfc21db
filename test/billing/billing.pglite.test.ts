import { freshPGliteStore } from '../tenancy/fixtures.js';
import { billingSuite } from './billing-suite.js';

billingSuite('PGlite', async () => {
  const store = await freshPGliteStore();
  return { store, dispose: () => store.close() };
});
