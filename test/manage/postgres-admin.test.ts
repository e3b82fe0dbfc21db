// With PostgreSQL the CLI writes the control plane directly (no lock, no node in between),
// and the guarantee is that every node's next token request sees the change: two nodes of
// one cluster, the real CLI process, each admin change checked on both nodes at once.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestEnv, destroyTestEnv, startTestNode, type TestEnv, type TestNode } from '../helpers/node.js';
import { claimsOf, cliJson, exists, requestToken, runCli } from './cli.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 180_000 });

let env: TestEnv;
let a: TestNode;
let b: TestNode;
let cliEnv: Record<string, string>;

beforeAll(async () => {
  env = await createTestEnv('distributed');
  [a, b] = [await startTestNode(env), await startTestNode(env)];
  cliEnv = {
    DATABASE_URL: env.env.DATABASE_URL,
    DOCPARSE_MASTER_KEY: env.env.DOCPARSE_MASTER_KEY,
    // The cluster's settings, as every node has them: the API the CLI serves itself checks regions too.
    DOCPARSE_REGIONS: 'local,eu',
    // Its own data dir: the CLI must not need (or touch) one with PostgreSQL.
    DOCPARSE_DATA_DIR: path.join(env.dataDir, 'cli'),
  };
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  if (env) await destroyTestEnv(env);
});

/** The token status on both nodes, requested at the same moment. */
async function onBoth(clientId: string, secret: string): Promise<{ status: number; body: any }[]> {
  return Promise.all([a, b].map((n) => requestToken(n.url, clientId, secret)));
}

describe('docparse admin with DATABASE_URL, two nodes', () => {
  it('every change is seen by both nodes on their next token request', async () => {
    expect(a.node.management).toBeNull(); // nothing single-writer in the data dir: no lock, no local endpoint
    expect(await exists(path.join(env.dataDir, 'docparse.lock'))).toBe(false);

    const tenant = await cliJson(cliEnv, 'tenant', 'create', '--name', 'Cluster');
    const plan = await cliJson(cliEnv, 'plan', 'create', '--name', 'gold', '--units', '777', '--ocr');
    const created = await cliJson(cliEnv, 'app', 'create', '--tenant', tenant.id, '--name', 'web', '--region', 'eu', '--db-code', 'e1', '--plan', plan.id);
    const { clientId, clientSecret } = created;
    const appId = created.app.id;

    // Pending tenant: refused on both; activated: granted on both, with the plan's entitlements.
    for (const r of await onBoth(clientId, clientSecret)) expect(r.body.error_description).toMatch(/tenant is not active/);
    await cliJson(cliEnv, 'tenant', 'activate', tenant.id);
    for (const r of await onBoth(clientId, clientSecret)) {
      expect(r.status).toBe(200);
      expect(claimsOf(r.body.access_token).entitlements).toEqual({ maxDocumentUnitsPerMonth: 777, advancedPdfExtraction: false, ocrPdfExtraction: true });
    }

    await cliJson(cliEnv, 'plan', 'retire', plan.id);
    for (const r of await onBoth(clientId, clientSecret)) expect(r.body.error_description).toMatch(/plan is retired/);
    await cliJson(cliEnv, 'app', 'assign-plan', appId, 'none');
    for (const r of await onBoth(clientId, clientSecret)) {
      expect(r.status).toBe(200);
      expect(claimsOf(r.body.access_token)).not.toHaveProperty('entitlements');
    }

    await cliJson(cliEnv, 'app', 'set-domains', appId, 'shop.example:8443');
    for (const r of await onBoth(clientId, clientSecret)) expect(claimsOf(r.body.access_token).allowed_domain_1).toBe('shop.example:8443');

    await cliJson(cliEnv, 'app', 'disable', appId);
    for (const r of await onBoth(clientId, clientSecret)) expect(r.body.error_description).toMatch(/app is disabled/);
    await cliJson(cliEnv, 'app', 'enable', appId);
    for (const r of await onBoth(clientId, clientSecret)) expect(r.status).toBe(200);

    await cliJson(cliEnv, 'tenant', 'deactivate', tenant.id);
    for (const r of await onBoth(clientId, clientSecret)) expect(r.body.error_description).toMatch(/tenant is not active/);
    await cliJson(cliEnv, 'tenant', 'activate', tenant.id);

    const rotated = await cliJson(cliEnv, 'app', 'rotate-secret', appId);
    for (const r of await onBoth(clientId, clientSecret)) expect([r.status, r.body.error]).toEqual([401, 'invalid_client']);
    for (const r of await onBoth(clientId, rotated.clientSecret)) expect(r.status).toBe(200);
  });

  it('the CLI takes no lock and opens no embedded database', async () => {
    const r = await runCli(cliEnv, ['tenant', 'list']);
    expect(r.code, r.stderr).toBe(0);
    const cliDir = cliEnv.DOCPARSE_DATA_DIR;
    expect(await exists(path.join(cliDir, 'pglite'))).toBe(false);
    expect(await exists(path.join(cliDir, 'docparse.lock'))).toBe(false);
    expect((await fs.readdir(env.dataDir)).filter((f) => f.startsWith('docparse.lock') || f === 'operator.credential')).toEqual([]);
  });
});
