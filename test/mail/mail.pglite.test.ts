import { freshPGliteStore } from '../tenancy/fixtures.js';
import { mailSuite } from './mail-suite.js';

mailSuite('PGlite', async () => {
  const store = await freshPGliteStore();
  return { store, dispose: () => store.close() };
});
