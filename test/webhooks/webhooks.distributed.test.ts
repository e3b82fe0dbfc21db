import { webhooksSuite } from './webhooks-suite.js';

webhooksSuite('distributed');
