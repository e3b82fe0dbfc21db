// One behavioural suite for every ControlPlaneStore engine (PGlite, PostgreSQL).
// Tests share one store per engine, so each creates its own records and never assumes
// an empty database.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrations } from '../../src/tenancy/migrations.js';
import type { SqlControlPlaneStore } from '../../src/tenancy/sql-store.js';
import { NotFoundError, type App, type SigningKey, type UsageCharge } from '../../src/tenancy/types.js';
import { ISO_UTC, planInput } from './fixtures.js';

export interface StoreHandle {
  store: SqlControlPlaneStore;
  dispose(): Promise<void>;
}

export function controlPlaneStoreSuite(label: string, open: () => Promise<StoreHandle>): void {
  describe(`ControlPlaneStore on ${label}`, () => {
    let handle: StoreHandle;
    let store: SqlControlPlaneStore;

    beforeAll(async () => {
      handle = await open();
      store = handle.store;
    });
    afterAll(async () => {
      await handle?.dispose();
    });

    async function newApp(over: Partial<Parameters<SqlControlPlaneStore['createApp']>[0]> = {}): Promise<App> {
      const tenantId = over.tenantId ?? (await store.createTenant({ name: 'Acme' })).id;
      return store.createApp({
        tenantId,
        name: 'ingest',
        licenseRegion: 'eu-west-1',
        dbCode: 'db1',
        clientId: `dp_${randomUUID().replace(/-/g, '')}`,
        secretHash: 'scrypt$hash',
        ...over,
      });
    }

    describe('tenants', () => {
      it('a new tenant starts Pending Activation, not activated', async () => {
        const t = await store.createTenant({ name: 'Acme Ltd', contactEmail: 'ops@acme.test' });
        expect(t).toMatchObject({ name: 'Acme Ltd', state: 'Pending Activation', contactEmail: 'ops@acme.test', activatedAt: null });
        expect(t.id).toMatch(/^[0-9a-f-]{36}$/);
        expect(t.createdAt).toMatch(ISO_UTC);
        expect(await store.getTenant(t.id)).toEqual(t);
        expect((await store.listTenants()).map((x) => x.id)).toContain(t.id);
      });

      it('keeps a caller-given id', async () => {
        const id = randomUUID();
        const t = await store.createTenant({ id, name: 'Given' });
        expect(t.id).toBe(id);
        await expect(store.createTenant({ id, name: 'Again' })).rejects.toThrow(/already exists/);
      });

      it('activation sets the state and the activation time; deactivation keeps it', async () => {
        const t = await store.createTenant({ name: 'Beta' });
        const before = Date.now();
        const active = await store.setTenantState(t.id, 'Active');
        expect(active.state).toBe('Active');
        expect(active.activatedAt).toMatch(ISO_UTC);
        expect(Date.parse(active.activatedAt!)).toBeGreaterThanOrEqual(before - 5_000);
        expect((await store.getTenant(t.id))!.state).toBe('Active');

        const again = await store.setTenantState(t.id, 'Active');
        expect(again.activatedAt).toBe(active.activatedAt);

        const off = await store.setTenantState(t.id, 'Deactivated');
        expect(off.state).toBe('Deactivated');
        expect((await store.getTenant(t.id))!.state).toBe('Deactivated');
      });

      it('unknown tenants: get returns null, update throws NotFoundError', async () => {
        const id = randomUUID();
        expect(await store.getTenant(id)).toBeNull();
        await expect(store.setTenantState(id, 'Active')).rejects.toBeInstanceOf(NotFoundError);
      });

      it('rejects an empty name and an unknown state', async () => {
        await expect(store.createTenant({ name: '  ' })).rejects.toThrow(/name/);
        const t = await store.createTenant({ name: 'Gamma' });
        await expect(store.setTenantState(t.id, 'Open' as never)).rejects.toThrow(/state/);
        expect((await store.getTenant(t.id))!.state).toBe('Pending Activation');
      });
    });

    describe('plans', () => {
      it('round-trips every field, including sizes above 2^31', async () => {
        const input = planInput({
          advancedPdfExtraction: true,
          ocrPdfExtraction: true,
          maxDocumentUnitsPerMonth: 5_000_000_000,
          maxFileSizeBytes: 2 * 1024 ** 3,
          maxBytesPerSecond: 3 * 1024 ** 3,
          maxConcurrentJobs: 64,
        });
        const p = await store.createPlan(input);
        expect(p).toMatchObject({ ...input, status: 'usable' });
        expect(p.createdAt).toMatch(ISO_UTC);
        expect(await store.getPlan(p.id)).toEqual(p);
        expect((await store.listPlans()).map((x) => x.id)).toContain(p.id);
      });

      it('retiring marks the plan retired and keeps it listed', async () => {
        const p = await store.createPlan(planInput());
        const r = await store.retirePlan(p.id);
        expect(r.status).toBe('retired');
        expect((await store.getPlan(p.id))!.status).toBe('retired');
        expect((await store.retirePlan(p.id)).status).toBe('retired');
        expect((await store.listPlans()).find((x) => x.id === p.id)!.status).toBe('retired');
        await expect(store.retirePlan(randomUUID())).rejects.toBeInstanceOf(NotFoundError);
      });

      it('rejects impossible limits', async () => {
        await expect(store.createPlan(planInput({ maxFileSizeBytes: 0 }))).rejects.toThrow(/maxFileSizeBytes/);
        await expect(store.createPlan(planInput({ maxDocumentUnitsPerMonth: -1 }))).rejects.toThrow(/maxDocumentUnitsPerMonth/);
        await expect(store.createPlan(planInput({ maxConcurrentJobs: 1.5 }))).rejects.toThrow(/maxConcurrentJobs/);
      });
    });

    describe('apps', () => {
      it('creates an app and finds it by id and by client id', async () => {
        const tenant = await store.createTenant({ name: 'Delta' });
        const app = await newApp({ tenantId: tenant.id, allowedDomains: ['App.Example.com', 'localhost:8080'] });
        expect(app).toMatchObject({
          tenantId: tenant.id,
          name: 'ingest',
          licenseRegion: 'eu-west-1',
          dbCode: 'db1',
          secretHash: 'scrypt$hash',
          allowedDomains: ['app.example.com', 'localhost:8080'],
          enabled: true,
          planId: null,
          storageConfigId: null,
        });
        expect(app.createdAt).toMatch(ISO_UTC);
        expect(await store.getApp(app.id)).toEqual(app);
        expect(await store.getAppByClientId(app.clientId)).toEqual(app);
        expect(await store.getAppByClientId('dp_nobody')).toBeNull();
        expect(await store.getApp(randomUUID())).toBeNull();
      });

      it('client ids are unique', async () => {
        const a = await newApp();
        await expect(newApp({ clientId: a.clientId })).rejects.toThrow(/already in use/);
      });

      it('an app needs an existing tenant', async () => {
        const tenantId = randomUUID();
        await expect(newApp({ tenantId })).rejects.toThrow(NotFoundError);
        await expect(newApp({ tenantId })).rejects.toThrow(tenantId);
      });

      it('lists apps of one tenant only', async () => {
        const t1 = await store.createTenant({ name: 'T1' });
        const t2 = await store.createTenant({ name: 'T2' });
        const a1 = await newApp({ tenantId: t1.id, name: 'one' });
        const a2 = await newApp({ tenantId: t1.id, name: 'two' });
        const b1 = await newApp({ tenantId: t2.id });
        expect((await store.listApps(t1.id)).map((a) => a.id).sort()).toEqual([a1.id, a2.id].sort());
        const all = (await store.listApps()).map((a) => a.id);
        expect(all).toEqual(expect.arrayContaining([a1.id, a2.id, b1.id]));
      });

      it('enable/disable and secret replacement are stored', async () => {
        const app = await newApp();
        expect((await store.setAppEnabled(app.id, false)).enabled).toBe(false);
        expect((await store.getApp(app.id))!.enabled).toBe(false);
        expect((await store.setAppEnabled(app.id, true)).enabled).toBe(true);
        await store.setAppSecretHash(app.id, 'scrypt$new');
        expect((await store.getAppByClientId(app.clientId))!.secretHash).toBe('scrypt$new');
      });

      it('updates of unknown apps throw NotFoundError', async () => {
        const id = randomUUID();
        await expect(store.setAppEnabled(id, true)).rejects.toBeInstanceOf(NotFoundError);
        await expect(store.setAppDomains(id, ['a.example'])).rejects.toBeInstanceOf(NotFoundError);
        await expect(store.assignPlan(id, null)).rejects.toBeInstanceOf(NotFoundError);
        await expect(store.setAppSecretHash(id, 'x')).rejects.toBeInstanceOf(NotFoundError);
        await expect(store.setAppStorageConfig(id, null)).rejects.toBeInstanceOf(NotFoundError);
      });
    });

    describe('allowed domains', () => {
      it('accepts up to three host[:port] entries, normalised', async () => {
        const app = await newApp();
        const updated = await store.setAppDomains(app.id, ['A.example.com', '127.0.0.1:8080', '[::1]:3000']);
        expect(updated.allowedDomains).toEqual(['a.example.com', '127.0.0.1:8080', '[::1]:3000']);
        expect((await store.getApp(app.id))!.allowedDomains).toEqual(updated.allowedDomains);
        expect((await store.setAppDomains(app.id, [])).allowedDomains).toEqual([]);
      });

      it('rejects a fourth domain and leaves the app unchanged', async () => {
        const app = await newApp({ allowedDomains: ['one.example'] });
        await expect(store.setAppDomains(app.id, ['a.example', 'b.example', 'c.example', 'd.example'])).rejects.toThrow(/at most 3/);
        expect((await store.getApp(app.id))!.allowedDomains).toEqual(['one.example']);
        await expect(newApp({ allowedDomains: ['a.example', 'b.example', 'c.example', 'd.example'] })).rejects.toThrow(/at most 3/);
      });

      it.each(['https://app.example.com', 'app.example.com/path', 'host:99999', 'bad host', 'a..b', ''])('rejects %j', async (bad) => {
        const app = await newApp();
        await expect(store.setAppDomains(app.id, [bad])).rejects.toThrow(/invalid allowed domain/);
      });

      it('the database itself refuses more than three domains', async () => {
        const app = await newApp();
        await expect(store.db.query('UPDATE apps SET allowed_domains = $2 WHERE id = $1', [app.id, ['a', 'b', 'c', 'd']])).rejects.toThrow(/check constraint/);
      });
    });

    describe('plan assignment', () => {
      it('assigns, replaces and removes a plan', async () => {
        const app = await newApp();
        const p1 = await store.createPlan(planInput());
        const p2 = await store.createPlan(planInput());
        expect((await store.assignPlan(app.id, p1.id)).planId).toBe(p1.id);
        expect((await store.getApp(app.id))!.planId).toBe(p1.id);
        expect((await store.assignPlan(app.id, p2.id)).planId).toBe(p2.id);
        expect((await store.assignPlan(app.id, null)).planId).toBeNull();
        expect((await store.getApp(app.id))!.planId).toBeNull();
      });

      it('an unknown plan is NotFoundError and changes nothing', async () => {
        const p = await store.createPlan(planInput());
        const app = await newApp({ planId: p.id });
        const missing = randomUUID();
        await expect(store.assignPlan(app.id, missing)).rejects.toThrow(NotFoundError);
        await expect(store.assignPlan(app.id, missing)).rejects.toThrow(missing);
        expect((await store.getApp(app.id))!.planId).toBe(p.id);
      });
    });

    describe('storage configs', () => {
      it('stores a config and attaches it only to apps of the same tenant', async () => {
        const tenant = await store.createTenant({ name: 'Storage' });
        const other = await store.createTenant({ name: 'Other' });
        const cfg = await store.createStorageConfig({
          tenantId: tenant.id,
          provider: 'minio',
          endpoint: 'http://127.0.0.1:9000',
          region: 'us-east-1',
          bucket: 'docs',
          prefix: 'tenant-a/',
          accessKeyId: 'AKIA',
          secretAccessKeySealed: 'v1.sealed',
          forcePathStyle: true,
        });
        expect(await store.getStorageConfig(cfg.id)).toEqual(cfg);
        expect(cfg).toMatchObject({ provider: 'minio', bucket: 'docs', forcePathStyle: true, secretAccessKeySealed: 'v1.sealed' });

        const app = await newApp({ tenantId: tenant.id });
        expect((await store.setAppStorageConfig(app.id, cfg.id)).storageConfigId).toBe(cfg.id);
        expect((await store.getApp(app.id))!.storageConfigId).toBe(cfg.id);
        expect((await store.setAppStorageConfig(app.id, null)).storageConfigId).toBeNull();

        const foreign = await newApp({ tenantId: other.id });
        await expect(store.setAppStorageConfig(foreign.id, cfg.id)).rejects.toThrow(/another tenant/);
        expect((await store.getApp(foreign.id))!.storageConfigId).toBeNull();
        await expect(store.setAppStorageConfig(app.id, randomUUID())).rejects.toBeInstanceOf(NotFoundError);
      });

      it('rejects an unknown provider', async () => {
        const tenant = await store.createTenant({ name: 'Storage2' });
        await expect(
          store.createStorageConfig({
            tenantId: tenant.id,
            provider: 'ftp',
            endpoint: null,
            region: 'x',
            bucket: 'b',
            prefix: '',
            accessKeyId: 'k',
            secretAccessKeySealed: 's',
            forcePathStyle: false,
          }),
        ).rejects.toThrow(/provider/);
      });
    });

    describe('usage ledger', () => {
      function charge(app: App, over: Partial<UsageCharge> = {}): UsageCharge {
        return {
          chargeKey: randomUUID(),
          tenantId: app.tenantId,
          appId: app.id,
          documentId: randomUUID(),
          month: '2025-03',
          format: 'pdf',
          units: 10,
          ...over,
        };
      }

      it('charges a chargeKey once', async () => {
        const app = await newApp();
        const c = charge(app, { units: 7 });
        expect(await store.chargeUsage(c)).toBe(true);
        expect(await store.chargeUsage(c)).toBe(false);
        expect(await store.chargeUsage({ ...c, units: 1000 })).toBe(false);
        expect(await store.unitsUsed(app.id, '2025-03')).toBe(7);
        expect(await store.listUsage({ appId: app.id })).toEqual([c]);
      });

      it('concurrent charges of one key count once', async () => {
        const app = await newApp();
        const c = charge(app, { units: 3 });
        const results = await Promise.all(Array.from({ length: 8 }, () => store.chargeUsage(c)));
        expect(results.filter(Boolean)).toHaveLength(1);
        expect(await store.unitsUsed(app.id, c.month)).toBe(3);
      });

      it('unitsUsed sums one app in one month', async () => {
        const app = await newApp();
        const other = await newApp({ tenantId: app.tenantId });
        expect(await store.unitsUsed(app.id, '2025-03')).toBe(0);
        await store.chargeUsage(charge(app, { units: 10 }));
        await store.chargeUsage(charge(app, { units: 32, format: 'docx' }));
        await store.chargeUsage(charge(app, { units: 5, month: '2025-04' }));
        await store.chargeUsage(charge(other, { units: 100 }));
        expect(await store.unitsUsed(app.id, '2025-03')).toBe(42);
        expect(await store.unitsUsed(app.id, '2025-04')).toBe(5);
        expect(await store.unitsUsed(other.id, '2025-03')).toBe(100);

        const march = await store.listUsage({ appId: app.id, month: '2025-03' });
        expect(march.map((u) => u.units).sort((a, b) => a - b)).toEqual([10, 32]);
        const tenantWide = await store.listUsage({ tenantId: app.tenantId });
        expect(tenantWide.reduce((s, u) => s + u.units, 0)).toBe(147);
      });

      it('rejects a malformed month and charges for unknown apps', async () => {
        const app = await newApp();
        await expect(store.chargeUsage(charge(app, { month: '2025-13' }))).rejects.toThrow(/YYYY-MM/);
        await expect(store.chargeUsage(charge(app, { appId: randomUUID() }))).rejects.toBeInstanceOf(NotFoundError);
        expect(await store.listUsage({ appId: app.id })).toEqual([]);
      });
    });

    describe('signing keys', () => {
      function key(createdAt: string): SigningKey {
        return {
          kid: `k-${randomUUID()}`,
          alg: 'ES256',
          publicJwk: { kty: 'EC', crv: 'P-256', x: 'xx', y: 'yy', kid: 'k' },
          privateKeySealed: 'v1.a.b.c',
          createdAt,
          retiredAt: null,
        };
      }

      it('inserts, lists oldest first, retires once', async () => {
        const k1 = key('2030-01-01T00:00:00.000Z');
        const k2 = key('2030-01-02T00:00:00.000Z');
        await store.insertSigningKey(k2);
        await store.insertSigningKey(k1);
        const mine = (await store.listSigningKeys()).filter((k) => k.kid === k1.kid || k.kid === k2.kid);
        expect(mine).toEqual([k1, k2]);

        await store.retireSigningKey(k1.kid, '2030-01-02T00:00:00.000Z');
        await store.retireSigningKey(k1.kid, '2030-02-01T00:00:00.000Z');
        const after = (await store.listSigningKeys()).find((k) => k.kid === k1.kid)!;
        expect(after.retiredAt).toBe('2030-01-02T00:00:00.000Z');
        expect((await store.listSigningKeys()).find((k) => k.kid === k2.kid)!.retiredAt).toBeNull();
      });

      it('rejects a duplicate kid and retiring an unknown kid', async () => {
        const k = key(new Date().toISOString());
        await store.insertSigningKey(k);
        await expect(store.insertSigningKey(k)).rejects.toThrow(/already exists/);
        await expect(store.retireSigningKey('k-missing', new Date().toISOString())).rejects.toBeInstanceOf(NotFoundError);
      });
    });

    describe('migrations', () => {
      it('running migrate again changes nothing and keeps data', async () => {
        const t = await store.createTenant({ name: 'Survivor' });
        await store.migrate();
        await store.migrate();
        expect(await store.getTenant(t.id)).toEqual(t);
        const { rows } = await store.db.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
        expect(rows.map((r) => Number(r.version))).toEqual(migrations.map((m) => m.version));
      });

      it('ping answers', async () => {
        await expect(store.ping()).resolves.toBeUndefined();
      });
    });
  });
}
