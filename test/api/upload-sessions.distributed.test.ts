import { uploadSessionsSuite } from './upload-sessions-suite.js';

// PostgreSQL (a throw-away database) for the control plane, Redis (a unique prefix) for jobs.
uploadSessionsSuite('distributed');
