import { liveStatusSuite } from './live-status-suite.js';

// PostgreSQL (a throw-away database) for the control plane, Redis (a unique prefix) for jobs.
liveStatusSuite('distributed');
