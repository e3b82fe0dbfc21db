import { liveStatusSuite } from './live-status-suite.js';

liveStatusSuite('embedded');
