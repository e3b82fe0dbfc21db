import { vi } from 'vitest';
import { manageApiSuite } from './api-suite.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });
manageApiSuite('embedded');
