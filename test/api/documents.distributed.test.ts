import { documentsLifecycleSuite, documentsSuite } from './documents-suite.js';

// PostgreSQL (a throw-away database) for the control plane, Redis (a unique prefix) for jobs.
documentsSuite('distributed');
documentsLifecycleSuite('distributed');
