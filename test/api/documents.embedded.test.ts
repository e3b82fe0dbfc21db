import { documentsLifecycleSuite, documentsSuite } from './documents-suite.js';

documentsSuite('embedded');
documentsLifecycleSuite('embedded');
