import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECRET_NOTICE } from '../../src/cli/commands/app.js';
import { runAdmin } from '../helpers/admin-cli.js';
import { verifySecret } from '../../src/identity/secrets.js';
import type { SqlControlPlaneStore } from '../../src/tenancy/sql-store.js';
import type { App, Plan, Tenant } from '../../src/tenancy/types.js';
import { freshPGliteStore } from './fixtures.js';

let store: SqlControlPlaneStore;
beforeAll(async () => {
  store = await freshPGliteStore();
});
afterAll(async () => {
  await store?.close();
});

/** The license regions of the node these commands run for (DOCPARSE_REGIONS). */
const REGIONS = ['eu-west-1', 'us-east-1', 'r'];

async function run(...argv: string[]): Promise<{ code: number; lines: string[]; text: string; stderr: string[] }> {
  const lines: string[] = [];
  const stderr: string[] = [];
  const code = await runAdmin(argv, store, (l) => lines.push(l), { config: { regions: REGIONS }, err: (l) => stderr.push(l) });
  return { code, lines, text: lines.join('\n'), stderr };
}

/** Runs with --json and parses the single line printed. */
async function json<T = any>(...argv: string[]): Promise<T> {
  const r = await run(...argv, '--json');
  expect(r.code, r.text).toBe(0);
  expect(r.lines).toHaveLength(1);
  return JSON.parse(r.lines[0]) as T;
}

let tenants = 0;
async function newTenant(name = 'Acme'): Promise<Tenant> {
  // Each tenant its own contact: an operator's tenant invites its contact, and one address gets at most 10 e-mails a day.
  return json<Tenant>('tenant', 'create', '--name', name, '--email', `ops${++tenants}@acme.test`);
}

interface Created {
  app: Omit<App, 'secretHash'>;
  clientId: string;
  clientSecret: string;
  notice: string;
}
async function newApp(tenantId: string, ...extra: string[]): Promise<Created> {
  return json<Created>('app', 'create', '--tenant', tenantId, '--name', 'ingest', '--region', 'eu-west-1', '--db-code', 'db7', ...extra);
}

describe('tenant commands', () => {
  it('creates a pending tenant, activates, deactivates and lists it', async () => {
    const t = await newTenant('Globex');
    expect(t).toMatchObject({ name: 'Globex', state: 'Pending Activation', contactEmail: expect.stringMatching(/^ops\d+@acme\.test$/) });

    expect((await json<Tenant>('tenant', 'activate', t.id)).state).toBe('Active');
    expect((await store.getTenant(t.id))!.state).toBe('Active');
    expect((await json<Tenant>('tenant', 'deactivate', t.id)).state).toBe('Deactivated');

    const list = await json<Tenant[]>('tenant', 'list');
    expect(list.find((x) => x.id === t.id)).toMatchObject({ name: 'Globex', state: 'Deactivated' });

    const human = await run('tenant', 'list');
    expect(human.code).toBe(0);
    expect(human.text).toContain(t.id);
    expect(human.text).toContain('Deactivated');
  });

  it('activating an unknown tenant fails with exit code 1 and says so', async () => {
    const r = await run('tenant', 'activate', '7a1f0000-0000-4000-8000-000000000000');
    expect(r.code).toBe(1);
    expect(r.text).toMatch(/tenant 7a1f0000-0000-4000-8000-000000000000 not found/);
  });
});

describe('app commands', () => {
  it('prints the client secret exactly once, and it verifies against the stored hash', async () => {
    const t = await newTenant();
    const created = await newApp(t.id, '--domains', 'app.example.com,localhost:8080');
    expect(created.notice).toBe(SECRET_NOTICE);
    expect(created.clientId).toBe(created.app.clientId);
    expect(created.app).not.toHaveProperty('secretHash');
    expect(created.app).toMatchObject({
      tenantId: t.id,
      licenseRegion: 'eu-west-1',
      dbCode: 'db7',
      allowedDomains: ['app.example.com', 'localhost:8080'],
      enabled: true,
      planId: null,
    });
    const stored = (await store.getAppByClientId(created.clientId))!;
    expect(stored.secretHash).not.toContain(created.clientSecret);
    expect(await verifySecret(created.clientSecret, stored.secretHash)).toBe(true);

    // Nothing else ever shows it again.
    const listed = await run('app', 'list', '--tenant', t.id, '--json');
    expect(listed.text).not.toContain(created.clientSecret);
    expect(listed.text).not.toContain(stored.secretHash);
    expect(JSON.parse(listed.lines[0])).toHaveLength(1);
  });

  it('human output shows the secret once with a will-not-be-shown-again line', async () => {
    const t = await newTenant();
    const r = await run('app', 'create', '--tenant', t.id, '--name', 'web', '--region', 'us-east-1', '--db-code', 'x1');
    expect(r.code).toBe(0);
    const secretLine = r.lines.find((l) => l.includes('client secret:'))!;
    const secret = secretLine.split('client secret:')[1].trim();
    const app = (await store.listApps(t.id))[0];
    expect(await verifySecret(secret, app.secretHash)).toBe(true);
    expect(r.text.split(secret)).toHaveLength(2);
    expect(r.text).toMatch(/will not be shown again/);
    expect(r.text).toMatch(/Pending Activation; tokens are refused/);
  });

  it('rotate-secret prints a new secret once; the old one stops verifying', async () => {
    const t = await newTenant();
    const created = await newApp(t.id);
    const rotated = await json<Created>('app', 'rotate-secret', created.app.id);
    expect(rotated.clientId).toBe(created.clientId);
    expect(rotated.clientSecret).not.toBe(created.clientSecret);
    expect(rotated.notice).toBe(SECRET_NOTICE);
    const app = (await store.getApp(created.app.id))!;
    expect(await verifySecret(rotated.clientSecret, app.secretHash)).toBe(true);
    expect(await verifySecret(created.clientSecret, app.secretHash)).toBe(false);
  });

  it('enable and disable', async () => {
    const t = await newTenant();
    const { app } = await newApp(t.id);
    expect((await json<App>('app', 'disable', app.id)).enabled).toBe(false);
    expect((await store.getApp(app.id))!.enabled).toBe(false);
    expect((await json<App>('app', 'enable', app.id)).enabled).toBe(true);
  });

  it('set-domains replaces the list, refuses a fourth entry or a URL, and can clear', async () => {
    const t = await newTenant();
    const { app } = await newApp(t.id, '--domains', 'old.example');
    expect((await json<App>('app', 'set-domains', app.id, 'a.example,b.example:8443')).allowedDomains).toEqual(['a.example', 'b.example:8443']);

    const four = await run('app', 'set-domains', app.id, 'a.example,b.example,c.example,d.example');
    expect(four.code).toBe(1);
    expect(four.text).toMatch(/at most 3/);
    const url = await run('app', 'set-domains', app.id, 'https://a.example');
    expect(url.code).toBe(1);
    expect(url.text).toMatch(/scheme/);
    expect((await store.getApp(app.id))!.allowedDomains).toEqual(['a.example', 'b.example:8443']);

    expect((await json<App>('app', 'set-domains', app.id, '')).allowedDomains).toEqual([]);
  });

  it('create refuses an unknown tenant and more than three domains', async () => {
    const r = await run('app', 'create', '--tenant', '00000000-0000-4000-8000-00000000abcd', '--name', 'n', '--region', 'r', '--db-code', 'c');
    expect(r.code).toBe(1);
    expect(r.text).toMatch(/tenant .* not found/);
    const t = await newTenant();
    const many = await run('app', 'create', '--tenant', t.id, '--name', 'n', '--region', 'r', '--db-code', 'c', '--domains', 'a.x,b.x,c.x,d.x');
    expect(many.code).toBe(1);
    expect(await store.listApps(t.id)).toHaveLength(0);
  });
});

describe('plan commands', () => {
  it('creates plans with size suffixes and feature flags', async () => {
    const p = await json<Plan>(
      'plan',
      'create',
      '--name',
      'pro',
      '--units',
      '50_000',
      '--advanced',
      '--ocr',
      '--max-file-size',
      '10MB',
      '--max-concurrent',
      '12',
      '--max-bytes-per-second',
      '2GiB',
    );
    expect(p).toMatchObject({
      name: 'pro',
      status: 'usable',
      maxDocumentUnitsPerMonth: 50_000,
      advancedPdfExtraction: true,
      ocrPdfExtraction: true,
      maxFileSizeBytes: 10_000_000,
      maxConcurrentJobs: 12,
      maxBytesPerSecond: 2 * 1024 ** 3,
    });
    const basic = await json<Plan>('plan', 'create', '--name', 'basic', '--units', '100');
    expect(basic).toMatchObject({ advancedPdfExtraction: false, ocrPdfExtraction: false, maxFileSizeBytes: 256 * 1024 ** 2 });
    expect((await json<Plan[]>('plan', 'list')).map((x) => x.id)).toEqual(expect.arrayContaining([p.id, basic.id]));
  });

  it('rejects a malformed size or unit count with exit code 2', async () => {
    const bad = await run('plan', 'create', '--name', 'x', '--units', '10', '--max-file-size', '10XB');
    expect(bad.code).toBe(2);
    expect(bad.text).toMatch(/--max-file-size/);
    const units = await run('plan', 'create', '--name', 'x', '--units', 'lots');
    expect(units.code).toBe(2);
    expect((await store.listPlans()).some((p) => p.name === 'x')).toBe(false);
  });

  it('assign-plan by name or id, none removes it, a retired plan is refused', async () => {
    const t = await newTenant();
    const { app } = await newApp(t.id);
    const gold = await json<Plan>('plan', 'create', '--name', 'gold-unique', '--units', '10');
    expect((await json<App>('app', 'assign-plan', app.id, 'gold-unique')).planId).toBe(gold.id);
    expect((await json<App>('app', 'assign-plan', app.id, 'none')).planId).toBeNull();
    expect((await json<App>('app', 'assign-plan', app.id, gold.id)).planId).toBe(gold.id);

    const retire = await run('plan', 'retire', gold.id);
    expect(retire.code).toBe(0);
    expect(retire.text).toMatch(/1 app\(s\) on this plan can no longer get tokens/);
    expect((await store.getPlan(gold.id))!.status).toBe('retired');

    const other = await newApp(t.id);
    const refused = await run('app', 'assign-plan', other.app.id, gold.id);
    expect(refused.code).toBe(1);
    expect(refused.text).toMatch(/retired/);
    expect((await store.getApp(other.app.id))!.planId).toBeNull();

    const createOnRetired = await run('app', 'create', '--tenant', t.id, '--name', 'n', '--region', 'r', '--db-code', 'c', '--plan', gold.id);
    expect(createOnRetired.code).toBe(1);
  });

  it('app create --plan assigns a usable plan', async () => {
    const t = await newTenant();
    const p = await json<Plan>('plan', 'create', '--name', 'starter-unique', '--units', '10');
    const { app } = await newApp(t.id, '--plan', p.id);
    expect(app.planId).toBe(p.id);
  });
});

describe('usage', () => {
  it('reports units used in a month against the plan quota', async () => {
    const t = await newTenant();
    const p = await json<Plan>('plan', 'create', '--name', 'metered', '--units', '1000');
    const { app } = await newApp(t.id, '--plan', p.id);
    const base = { tenantId: t.id, appId: app.id, month: '2025-06' };
    await store.chargeUsage({ ...base, chargeKey: 'job-1', documentId: 'd1', format: 'pdf', units: 12 });
    await store.chargeUsage({ ...base, chargeKey: 'job-1', documentId: 'd1', format: 'pdf', units: 12 });
    await store.chargeUsage({ ...base, chargeKey: 'job-2', documentId: 'd2', format: 'sql', units: 30 });
    await store.chargeUsage({ ...base, month: '2025-07', chargeKey: 'job-3', documentId: 'd3', format: 'pdf', units: 99 });

    const u = await json('usage', '--app', app.id, '--month', '2025-06');
    expect(u).toEqual({
      appId: app.id,
      tenantId: t.id,
      month: '2025-06',
      unitsUsed: 42,
      quota: 1000,
      planId: p.id,
      documents: 2,
      byFormat: { pdf: 12, sql: 30 },
    });

    const human = await run('usage', '--app', app.id, '--month', '2025-06');
    expect(human.text).toMatch(/used 42 Document Units in 2025-06 of 1000/);

    const bad = await run('usage', '--app', app.id, '--month', 'June');
    expect(bad.code).toBe(2);
  });
});

describe('command line errors', () => {
  it.each([
    [['frobnicate'], /unknown command/],
    [['tenant', 'explode'], /unknown command "tenant explode".*create/],
    [['tenant', 'create', '--nme', 'x'], /--nme/],
    [['tenant', 'create'], /--name is required/],
    [['tenant', 'activate'], /expected 1 argument/],
    [['tenant', 'activate', 'a', 'b'], /expected 1 argument/],
    [['app', 'create', '--tenant'], /--tenant/],
  ])('%j exits 2 with a message', async (argv, message) => {
    const r = await run(...argv);
    expect(r.code).toBe(2);
    expect(r.text).toMatch(message);
  });

  it('errors are JSON objects under --json', async () => {
    const r = await run('--json', 'tenant', 'activate', 'nope');
    expect(r.code).toBe(1);
    expect(JSON.parse(r.lines[0])).toEqual({ error: 'tenant nope not found' });
  });

  it('help lists the commands and exits 0; no command exits 2', async () => {
    const help = await run('help');
    expect(help.code).toBe(0);
    for (const cmd of ['tenant create', 'app rotate-secret', 'plan retire', 'usage --app']) expect(help.text).toContain(cmd);
    expect((await run()).code).toBe(2);
  });
});

// Every command goes through the management API, so the API's checks are the CLI's.
describe('the management API decides', () => {
  it('an app in a region the node does not offer is refused, as through the API', async () => {
    const t = await newTenant();
    const r = await run('app', 'create', '--tenant', t.id, '--name', 'n', '--region', 'mars-1', '--db-code', 'c');
    expect(r.code).toBe(1);
    expect(r.text).toMatch(/"mars-1" is not a configured region/);
    expect(r.text).toMatch(/allowed: eu-west-1, us-east-1, r/);
    expect(await store.listApps(t.id)).toHaveLength(0);
  });

  it('a change is in the audit log with the tenant it touched and the local operator as actor', async () => {
    const t = await newTenant('Audited');
    const { app } = await newApp(t.id);
    expect((await run('app', 'disable', app.id)).code).toBe(0);
    const { rows } = await store.db.query<{ action: string; tenant_id: string | null; actor_id: string; object_id: string }>(
      'SELECT action, tenant_id, actor_id, object_id FROM audit_log WHERE tenant_id = $1 ORDER BY id',
      [t.id],
    );
    expect(rows.map((r) => r.action)).toEqual(['tenant.create', 'app.create', 'app.disable']);
    expect(rows.every((r) => r.actor_id === 'local-operator')).toBe(true);
    expect(rows.at(-1)!.object_id).toBe(app.id);
  });

  it('keys: rotate and list print JSON lines; anything else is usage on stderr, exit 2', async () => {
    const rotated = await run('keys', 'rotate');
    expect(rotated.code).toBe(0);
    const { kid } = JSON.parse(rotated.lines[0]) as { kid: string };
    const listed = await run('keys', 'list', '--json');
    expect(listed.lines.map((l) => JSON.parse(l).kid)).toContain(kid);
    const shuffle = await run('keys', 'shuffle');
    expect(shuffle).toMatchObject({ code: 2, lines: [], stderr: ['usage: docparse admin keys rotate|list'] });
  });

  it('storage: an unknown option is a usage error (2), said on stderr, not a crash', async () => {
    const r = await run('storage', 'create', '--bucket-name', 'x');
    expect(r.code).toBe(2);
    expect(r.stderr).toEqual([expect.stringMatching(/^error: Unknown option '--bucket-name'/)]);
    const missing = await run('storage', 'create', '--tenant', 't');
    expect(missing.code).toBe(2);
    expect(missing.lines[0]).toMatch(/missing --bucket/);
  });

  it("a failure inside the node is exit 1 with the API's sentence, never a stack trace", async () => {
    const broken = new Proxy(store, {
      get: (t, k) =>
        k === 'listTenants'
          ? async () => {
              throw new Error('disk on fire');
            }
          : Reflect.get(t, k),
    });
    const lines: string[] = [];
    const code = await runAdmin(['tenant', 'list'], broken, (l) => lines.push(l));
    expect(code).toBe(1);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^error: /);
    expect(lines[0]).not.toMatch(/disk on fire|at .*\.js:\d+/);
  });
});
