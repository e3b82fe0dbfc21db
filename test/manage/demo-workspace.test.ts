import { afterEach, describe, expect, it } from 'vitest';
import { verifySecret } from '../../src/identity/secrets.js';
import { DEMO_APP_ID, DEMO_TENANT_ID, seedDemoWorkspace } from '../../src/manage/demo-workspace.js';
import type { SqlControlPlaneStore } from '../../src/tenancy/sql-store.js';
import { freshPGliteStore } from '../tenancy/fixtures.js';

describe('seedDemoWorkspace', () => {
  const open: SqlControlPlaneStore[] = [];
  async function fresh(): Promise<SqlControlPlaneStore> {
    const s = await freshPGliteStore();
    open.push(s);
    return s;
  }
  afterEach(async () => {
    while (open.length) await open.pop()!.close();
  });

  it('creates a usable workspace with the given credentials, once', async () => {
    const store = await fresh();
    const first = await seedDemoWorkspace(store, { region: 'eu-central-1', clientId: 'demo-client', clientSecret: 'demo-secret-123' });
    expect(first).toEqual({ created: true, clientId: 'demo-client', clientSecret: 'demo-secret-123', tenantId: DEMO_TENANT_ID, appId: DEMO_APP_ID });

    const tenant = (await store.getTenant(DEMO_TENANT_ID))!;
    expect(tenant.state).toBe('Active');
    const app = (await store.getAppByClientId('demo-client'))!;
    expect(app).toMatchObject({
      id: DEMO_APP_ID,
      tenantId: DEMO_TENANT_ID,
      licenseRegion: 'eu-central-1',
      dbCode: 'demo',
      allowedDomains: ['localhost:8080', '127.0.0.1:8080'],
      enabled: true,
    });
    expect(app.secretHash).not.toContain('demo-secret-123');
    expect(await verifySecret('demo-secret-123', app.secretHash)).toBe(true);
    expect(await verifySecret('wrong', app.secretHash)).toBe(false);

    const plan = (await store.getPlan(app.planId!))!;
    expect(plan).toMatchObject({
      status: 'usable',
      advancedPdfExtraction: true,
      ocrPdfExtraction: true,
      maxFileSizeBytes: 2 * 1024 ** 3,
      maxConcurrentJobs: 64,
      maxBytesPerSecond: 1024 ** 3,
    });
    expect(plan.maxDocumentUnitsPerMonth).toBeGreaterThanOrEqual(1_000_000);

    // Every later boot: nothing changes, the secret is not shown, other credentials are ignored.
    const second = await seedDemoWorkspace(store, { region: 'us-east-1', clientId: 'another-id', clientSecret: 'another' });
    expect(second).toEqual({ created: false, clientId: 'demo-client', clientSecret: null, tenantId: DEMO_TENANT_ID, appId: DEMO_APP_ID });
    expect(await store.listApps(DEMO_TENANT_ID)).toHaveLength(1);
    expect(await store.getAppByClientId('another-id')).toBeNull();
    expect((await store.getApp(DEMO_APP_ID))!.licenseRegion).toBe('eu-central-1');
  });

  it('generates credentials when none are given and honours a domain override', async () => {
    const store = await fresh();
    const r = await seedDemoWorkspace(store, { region: 'local', allowedDomains: ['localhost:3000'] });
    expect(r.created).toBe(true);
    expect(r.clientId).toMatch(/^dp_[0-9a-f]{32}$/);
    expect(r.clientSecret!.length).toBeGreaterThanOrEqual(40);
    const app = (await store.getAppByClientId(r.clientId))!;
    expect(await verifySecret(r.clientSecret!, app.secretHash)).toBe(true);
    expect(app.allowedDomains).toEqual(['localhost:3000']);
  });

  it('completes a seed that stopped after the tenant was created', async () => {
    const store = await fresh();
    await store.createTenant({ id: DEMO_TENANT_ID, name: 'Demo workspace' });
    const r = await seedDemoWorkspace(store, { region: 'local', clientId: 'c1', clientSecret: 's1' });
    expect(r.created).toBe(true);
    expect((await store.getTenant(DEMO_TENANT_ID))!.state).toBe('Active');
    expect((await store.getAppByClientId('c1'))!.id).toBe(DEMO_APP_ID);
  });

  it('two seeds racing create one app and show the secret once', async () => {
    const store = await fresh();
    const results = await Promise.all([
      seedDemoWorkspace(store, { region: 'local', clientId: 'race-a', clientSecret: 'sa' }),
      seedDemoWorkspace(store, { region: 'local', clientId: 'race-b', clientSecret: 'sb' }),
    ]);
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(results.filter((r) => r.clientSecret !== null)).toHaveLength(1);
    const apps = await store.listApps(DEMO_TENANT_ID);
    expect(apps).toHaveLength(1);
    expect(results.every((r) => r.clientId === apps[0].clientId)).toBe(true);
  });
});
