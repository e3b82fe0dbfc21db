import { webhooksSuite } from './webhooks-suite.js';

webhooksSuite('embedded');
