// Starts a real docparse node in-process for integration tests, in the embedded mode
// (PGlite + embedded job store) or the distributed mode (PostgreSQL + Redis).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { loadConfig, type Role } from '../../src/config.js';
import { startNode, type RunningNode } from '../../src/node.js';
import { hashSecret, generateClientSecret } from '../../src/identity/secrets.js';
import type { NewPlan } from '../../src/tenancy/types.js';
import { createTempDatabase, type TempDatabase } from './pg.js';
import { planInput } from '../tenancy/fixtures.js';

export type Mode = 'embedded' | 'distributed';
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface TestEnv {
  mode: Mode;
  dataDir: string;
  /** Shared by restarts of the same "cluster". */
  env: Record<string, string>;
  redisPrefix: string;
  db: TempDatabase | null;
}

export async function createTestEnv(mode: Mode, env: Record<string, string> = {}): Promise<TestEnv> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'dp-test-'));
  const db = mode === 'distributed' ? await createTempDatabase() : null;
  const base: Record<string, string> = {
    PORT: '0',
    DOCPARSE_DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    DOCPARSE_WORKER_THREADS: '2',
    DOCPARSE_DEMO_CLIENT_ID: 'demo-client',
    DOCPARSE_DEMO_CLIENT_SECRET: 'demo-secret-0123456789',
    DOCPARSE_SEED_DEMO: 'true',
    // The engines where this machine has them, found as a node started here would find them.
    ...Object.fromEntries(['PATH', 'TESSDATA_PREFIX'].filter((n) => process.env[n]).map((n) => [n, process.env[n]!])),
    ...(db ? { DATABASE_URL: db.url, REDIS_URL: TEST_REDIS_URL, DOCPARSE_MASTER_KEY: randomBytes(32).toString('hex') } : {}),
    ...env,
  };
  return { mode, dataDir, env: base, redisPrefix: `dp-test-${randomUUID().slice(0, 8)}`, db };
}

export interface TestNode {
  node: RunningNode;
  url: string;
  close(): Promise<void>;
}

export async function startTestNode(t: TestEnv, over: Record<string, string> = {}, roles?: Role[]): Promise<TestNode> {
  const config = loadConfig({ ...t.env, ...over }, roles);
  const node = await startNode(config, { logger: pino({ level: 'silent' }), redisPrefix: t.redisPrefix });
  return { node, url: `http://127.0.0.1:${node.port}`, close: () => node.close() };
}

export async function destroyTestEnv(t: TestEnv): Promise<void> {
  await t.db?.drop();
  await fs.rm(t.dataDir, { recursive: true, force: true });
  if (t.mode === 'distributed') {
    const { Redis } = await import('ioredis');
    const r = new Redis(TEST_REDIS_URL);
    let cursor = '0';
    do {
      const [next, keys] = await r.scan(cursor, 'MATCH', `${t.redisPrefix}*`, 'COUNT', 500);
      cursor = next;
      if (keys.length) await r.del(...keys);
    } while (cursor !== '0');
    r.disconnect();
  }
}

export async function getToken(url: string, clientId: string, clientSecret: string): Promise<string> {
  const res = await fetch(`${url}/connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'Service.API', client_id: clientId, client_secret: clientSecret }),
  });
  const body = (await res.json()) as { access_token?: string };
  if (!res.ok || !body.access_token) throw new Error(`token request failed: ${res.status} ${JSON.stringify(body)}`);
  return body.access_token;
}

/** Creates an active tenant with an app (and optionally a plan); returns its credentials. */
export async function createApp(
  node: RunningNode,
  plan: Partial<NewPlan> | null,
): Promise<{ clientId: string; clientSecret: string; appId: string; tenantId: string }> {
  const store = node.controlPlane;
  const tenant = await store.createTenant({ name: `t-${randomUUID().slice(0, 6)}` });
  await store.setTenantState(tenant.id, 'Active');
  const p = plan ? await store.createPlan(planInput({ maxConcurrentJobs: 16, maxBytesPerSecond: 1024 * 1024 * 1024, ...plan })) : null;
  const clientId = `c-${randomUUID()}`;
  const clientSecret = generateClientSecret();
  const app = await store.createApp({
    tenantId: tenant.id,
    name: 'test app',
    licenseRegion: 'local',
    dbCode: 'db1',
    clientId,
    secretHash: await hashSecret(clientSecret),
    planId: p?.id ?? null,
  });
  return { clientId, clientSecret, appId: app.id, tenantId: tenant.id };
}

export async function waitFor<T>(fn: () => Promise<T | undefined | null | false>, what: string, timeoutMs = 30_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Every file below dir (recursively), for "nothing left on disk" assertions. */
export async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  async function walk(d: string): Promise<void> {
    let entries;
    try {
      entries = await fs.readdir(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else out.push(p);
    }
  }
  await walk(dir);
  return out;
}
