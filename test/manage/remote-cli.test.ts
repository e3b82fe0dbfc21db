// `docparse admin --url … --key dp_op_…`: the CLI as a client of a running node's management
// API. The same commands print the same thing as against a local database (ids and times
// aside), and their effect is live at once: a new app's secret gets a token, a disabled app
// is refused its next one.
import fs from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { pino } from 'pino';
import { loadConfig, type Config } from '../../src/config.js';
import { startNode, type RunningNode } from '../../src/node.js';
import { runAdminCli } from '../../src/cli/run-admin-cli.js';
import { tempDir } from '../helpers/http.js';
import { requestToken } from './cli.js';
import { runAdmin } from '../helpers/admin-cli.js';
import { mailSettingsOf } from '../../src/mail/settings.js';
import { enqueueMail } from '../../src/mail/outbox-store.js';
import type { SqlControlPlaneStore } from '../../src/tenancy/sql-store.js';
import { planInput } from '../tenancy/fixtures.js';
import { randomUUID } from 'node:crypto';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

interface Run {
  code: number;
  out: string[];
  err: string[];
}
async function admin(config: Config, ...args: string[]): Promise<Run> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runAdminCli(args, config, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out, err };
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
/** Lines with what differs between two databases (ids, client ids, secrets, times) masked. */
const normalize = (lines: string[]) =>
  lines.map((l) =>
    l
      .replace(UUID, '<id>')
      .replace(/dp_[0-9a-f]{32}/g, '<client-id>')
      .replace(/client secret: \S+/g, 'client secret: <secret>')
      .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/g, '<time>')
      .replace(/ {2,}/g, '  '),
  );

let node: RunningNode;
let url: string;
let nodeConfig: Config;
let localConfig: Config;
const dirs: string[] = [];
let key: string;

beforeAll(async () => {
  const nodeDir = await tempDir('dp-remote-');
  const localDir = await tempDir('dp-local-');
  dirs.push(nodeDir, localDir);
  const env = { PORT: '0', LOG_LEVEL: 'silent', DOCPARSE_SEED_DEMO: 'false', DOCPARSE_REGION: 'local' };
  nodeConfig = loadConfig({ ...env, DOCPARSE_DATA_DIR: nodeDir }, ['api', 'auth']);
  localConfig = loadConfig({ ...env, DOCPARSE_DATA_DIR: localDir });
  node = await startNode(nodeConfig, { logger: pino({ level: 'silent' }) });
  url = `http://127.0.0.1:${node.port}`;
});
afterAll(async () => {
  await node?.close();
  for (const d of dirs) await fs.rm(d, { recursive: true, force: true });
});

describe('docparse admin --url (the management API)', () => {
  it('keys create-operator (through the node holding the data dir) prints a key once; it opens the API', async () => {
    const created = await admin(nodeConfig, 'keys', 'create-operator', '--name', 'ci', '--json');
    expect(created.code).toBe(0);
    const answer = JSON.parse(created.out[0]);
    expect(answer.key).toMatch(/^dp_op_/);
    expect(answer.operatorKey).toMatchObject({ name: 'ci', revokedAt: null });
    key = answer.key;
    const human = await admin(nodeConfig, 'keys', 'list-operators');
    expect(human.out.join('\n')).toContain('ci');
    expect(human.out.join('\n')).not.toContain(key);
  });

  it('needs an operator key and a base URL; a wrong key is a clear failure', async () => {
    const saved = process.env.DOCPARSE_OPERATOR_KEY;
    delete process.env.DOCPARSE_OPERATOR_KEY;
    try {
      expect((await admin(localConfig, '--url', url, 'tenant', 'list')).code).toBe(2);
      expect((await admin(localConfig, '--url', 'ftp://x', '--key', key, 'tenant', 'list')).code).toBe(2);
      const wrong = await admin(localConfig, '--url', url, '--key', 'dp_op_wrong', 'tenant', 'list');
      expect(wrong.code).toBe(1);
      expect(wrong.out.join('\n')).toMatch(/refused the operator key/);
      process.env.DOCPARSE_OPERATOR_KEY = key;
      expect((await admin(localConfig, '--url', url, 'tenant', 'list')).code).toBe(0);
    } finally {
      if (saved === undefined) delete process.env.DOCPARSE_OPERATOR_KEY;
      else process.env.DOCPARSE_OPERATOR_KEY = saved;
    }
  });

  it('the most-used commands print what they print locally; a new app gets a token at once; disable refuses the next', async () => {
    const remote = (...a: string[]) => admin(localConfig, '--url', url, '--key', key, ...a);
    const local = (...a: string[]) => admin(localConfig, ...a);
    const both = async (args: (ids: { tenant: string; app: string; plan: string }) => string[], ids: { r: any; l: any }) => {
      const [r, l] = [await remote(...args(ids.r)), await local(...args(ids.l))];
      expect(r.code, args(ids.r).join(' ')).toBe(l.code);
      expect(normalize(r.out), args(ids.r).join(' ')).toEqual(normalize(l.out));
      return { r, l };
    };
    const ids = { r: { tenant: '', app: '', plan: '' }, l: { tenant: '', app: '', plan: '' } };

    const t = await both(() => ['tenant', 'create', '--name', 'Acme'], ids);
    ids.r.tenant = t.r.out[1].match(UUID)![0];
    ids.l.tenant = t.l.out[1].match(UUID)![0];
    const p = await both(() => ['plan', 'create', '--name', 'pro', '--units', '1000', '--ocr', '--max-file-size', '2GiB'], ids);
    ids.r.plan = p.r.out[1].match(UUID)![0];
    ids.l.plan = p.l.out[1].match(UUID)![0];
    // Created while the tenant is pending: the note says tokens are refused.
    const a = await both(
      (x) => ['app', 'create', '--tenant', x.tenant, '--name', 'crm', '--region', 'local', '--db-code', 'eu1', '--domains', 'app.acme.test', '--plan', 'pro'],
      ids,
    );
    expect(a.r.out.at(-1)).toMatch(/tokens are refused until it is activated/);
    ids.r.app = a.r.out[1].match(UUID)![0];
    ids.l.app = a.l.out[1].match(UUID)![0];
    const clientId = a.r.out.find((l) => l.startsWith('  client id:     '))!.slice(17);
    let secret = a.r.out.find((l) => l.startsWith('  client secret: '))!.slice(17);
    expect((await requestToken(url, clientId, secret)).body.error_description).toMatch(/not active/);

    await both((x) => ['tenant', 'activate', x.tenant], ids);
    expect((await requestToken(url, clientId, secret)).status).toBe(200);
    await both((x) => ['app', 'disable', x.app], ids);
    expect((await requestToken(url, clientId, secret)).body).toMatchObject({
      error: 'unauthorized_client',
      error_description: expect.stringMatching(/disabled/),
    });
    await both((x) => ['app', 'enable', x.app], ids);
    expect((await requestToken(url, clientId, secret)).status).toBe(200);
    await both((x) => ['app', 'set-domains', x.app, 'a.test,b.test:8443'], ids);
    await both((x) => ['app', 'assign-plan', x.app, 'none'], ids);
    await both((x) => ['app', 'assign-plan', x.app, x.plan], ids);
    const rotated = await both((x) => ['app', 'rotate-secret', x.app], ids);
    expect((await requestToken(url, clientId, secret)).status).toBe(401);
    secret = rotated.r.out.find((l) => l.startsWith('  client secret: '))!.slice(17);
    expect((await requestToken(url, clientId, secret)).status).toBe(200);
    await both(() => ['tenant', 'list'], ids);
    await both(() => ['app', 'list'], ids);
    await both(() => ['plan', 'list'], ids);
    await both((x) => ['plan', 'retire', x.plan], ids);
    await both((x) => ['tenant', 'deactivate', x.tenant], ids);
    await both((x) => ['tenant', 'activate', x.tenant], ids);
    // Failures: the same message and exit code.
    await both(() => ['app', 'disable', '00000000-0000-4000-8000-000000000000'], ids);
    await both(() => ['app', 'create', '--name', 'x'], ids);
    await both((x) => ['app', 'create', '--tenant', x.tenant, '--name', 'x', '--region', 'local', '--db-code', 'c', '--plan', 'nope'], ids);
    await both((x) => ['app', 'set-domains', x.app, 'a.test,b.test,c.test,d.test'], ids);

    // --json answers are the same objects.
    const rj = await remote('app', 'disable', ids.r.app, '--json');
    expect(Object.keys(JSON.parse(rj.out[0]))).toEqual(Object.keys(JSON.parse((await local('app', 'disable', ids.l.app, '--json')).out[0])));
    expect((await requestToken(url, clientId, secret)).status).toBe(400);
  });

  it('keys rotate|list and revoke-operator work remotely; a revoked key is refused at once', async () => {
    const remote = (...a: string[]) => admin(localConfig, '--url', url, '--key', key, ...a);
    const rotated = await remote('keys', 'rotate');
    expect(rotated.code).toBe(0);
    const { kid } = JSON.parse(rotated.out[0]);
    expect((await remote('keys', 'list')).out.map((l) => JSON.parse(l).kid)).toContain(kid);
    const other = JSON.parse((await remote('keys', 'create-operator', '--name', 'temp', '--json')).out[0]);
    expect((await remote('keys', 'revoke-operator', other.operatorKey.id)).out[0]).toMatch(/revoked/);
    const refused = await admin(localConfig, '--url', url, '--key', other.key, 'tenant', 'list');
    expect(refused.code).toBe(1);
    expect((await remote('keys', 'revoke-operator', '00000000-0000-4000-8000-000000000000')).code).toBe(1);
    const unknown = await remote('nosuch', 'thing');
    expect(unknown.code).toBe(2);
    expect(unknown.out[0]).toMatch(/unknown command "nosuch thing"/);
  });

  it("usage, statement and mail list|show print what runAdmin prints on the node's own database (--json and --csv too)", async () => {
    const remote = (...a: string[]) => admin(localConfig, '--url', url, '--key', key, ...a);
    const store = node.controlPlane as SqlControlPlaneStore;
    const onNode = async (...a: string[]) => {
      const out: string[] = [];
      // The node renders e-mails with its own mail settings: so does the local run.
      return { code: await runAdmin(a, store, (l) => out.push(l), { mail: mailSettingsOf(nodeConfig) }), out };
    };
    // Same database: only the times a statement is generated at may differ.
    const times = (lines: string[]) => lines.map((l) => l.replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/g, '<time>'));
    const same = async (...a: string[]) => {
      const [r, l] = [await remote(...a), await onNode(...a)];
      expect(r.code, a.join(' ')).toBe(l.code);
      expect(times(r.out), a.join(' ')).toEqual(times(l.out));
      expect(r.out.length, a.join(' ')).toBeGreaterThan(0);
      return r;
    };
    const tenant = await store.createTenant({ name: 'Billed, "Inc"', contactEmail: 'ops@billed.test' });
    const plan = await store.createPlan(planInput({ name: 'metered', maxDocumentUnitsPerMonth: 500 }));
    const mk = (name: string, planId: string | null) =>
      store.createApp({ tenantId: tenant.id, name, licenseRegion: 'local', dbCode: 'db', clientId: `c-${randomUUID()}`, secretHash: 'x', planId });
    const apps = [await mk('ingest', plan.id), await mk('no plan', null), await mk('idle', plan.id)];
    const month = new Date().toISOString().slice(0, 7);
    for (const [app, format, units, m] of [
      [apps[0], 'pdf', 3, month],
      [apps[0], 'csv', 1, month],
      [apps[0], 'sql', 5, month],
      [apps[0], 'docx', 2, month],
      [apps[1], 'pdf', 3, month],
      [apps[1], 'xlsx', 4, month],
      [apps[0], 'pdf', 7, '2025-01'],
    ] as const) {
      await store.chargeUsage({ chargeKey: randomUUID(), tenantId: tenant.id, appId: app.id, documentId: randomUUID(), month: m, format, units });
    }
    const nobody = '00000000-0000-4000-8000-000000000000';

    for (const extra of [
      [],
      ['--by-day'],
      ['--csv'],
      ['--csv', '--by-day'],
      ['--json'],
      ['--json', '--by-day'],
      ['--month', '2025-01'],
      ['--month', '2025-01', '--csv'],
      ['--month', '2024-12'],
    ]) {
      await same('usage', '--tenant', tenant.id, ...extra);
    }
    for (const app of apps) for (const extra of [[], ['--csv'], ['--json'], ['--month', '2025-01']]) await same('usage', '--app', app.id, ...extra);
    expect((await same('usage', '--tenant', tenant.id)).out[0]).toBe(`Tenant ${tenant.id} used 18 Document Units in ${month} (6 documents).`);
    // Refusals: the same message and exit code.
    await same('usage');
    await same('usage', '--app', apps[0].id, '--tenant', tenant.id);
    await same('usage', '--tenant', tenant.id, '--month', '2025-13');
    await same('usage', '--tenant', tenant.id, '--csv', '--json');
    await same('usage', '--app', apps[0].id, '--csv', '--json');
    await same('usage', '--tenant', nobody);
    await same('usage', '--app', nobody);
    await same('usage', '--tenant', tenant.id, '--bogus');

    for (const extra of [[], ['--csv'], ['--json'], ['--month', '2025-01'], ['--month', '2025-01', '--csv'], ['--month', '2024-12', '--csv']]) {
      await same('statement', '--tenant', tenant.id, ...extra);
    }
    await same('--json', 'statement', '--tenant', tenant.id);
    await same('statement');
    await same('statement', '--tenant', nobody);
    await same('statement', '--tenant', tenant.id, '--month', '25-01');
    await same('statement', '--tenant', tenant.id, '--csv', '--json');

    const sent = await enqueueMail(store.db, {
      dedupeKey: `t-${randomUUID()}`,
      message: { template: 'tenant-active', params: { tenantId: tenant.id, tenantName: tenant.name, reactivated: false } },
      recipients: ['Owner@Billed.test', 'ops@billed.test'],
      tenantId: tenant.id,
    });
    const invite = await enqueueMail(store.db, {
      dedupeKey: `i-${randomUUID()}`,
      message: {
        template: 'tenant-invitation',
        params: { invitationId: randomUUID(), tenantId: tenant.id, tenantName: tenant.name, email: 'new@billed.test', role: 'member' },
      },
      recipients: ['new@billed.test'],
      tenantId: tenant.id,
    });
    await store.db.query("UPDATE mail_outbox SET sent_at = now(), message_id = '<m1@billed.test>' WHERE id = $1", [sent]);
    await store.db.query("UPDATE mail_outbox SET attempts = 2, last_error = 'connection refused' WHERE id = $1", [invite]);
    for (const extra of [[], ['--json'], ['--tenant', tenant.id], ['--tenant', nobody], ['--pending'], ['--limit', '1'], ['--limit', '1', '--json']])
      await same('mail', 'list', ...extra);
    expect((await same('mail', 'list', '--tenant', tenant.id)).out).toHaveLength(3);
    await same('mail', 'list', '--limit', '0');
    for (const id of [sent!, invite!]) {
      await same('mail', 'show', id);
      await same('mail', 'show', id, '--json');
    }
    await same('mail', 'show', nobody);
    await same('mail', 'show');
    await same('mail', 'nosuch');
  });

  it('storage create and app set-storage print what they print locally', async () => {
    const remote = (...a: string[]) => admin(localConfig, '--url', url, '--key', key, ...a);
    const local = (...a: string[]) => admin(localConfig, ...a);
    const ids = { r: { tenant: '', app: '', cfg: '' }, l: { tenant: '', app: '', cfg: '' } };
    type Ids = typeof ids.r;
    const both = async (args: (x: Ids) => string[]) => {
      const [r, l] = [await remote(...args(ids.r)), await local(...args(ids.l))];
      const what = args(ids.r).join(' ');
      expect(r.code, what).toBe(l.code);
      expect(normalize(r.out), what).toEqual(normalize(l.out));
      expect(normalize(r.err), what).toEqual(normalize(l.err));
      return { r, l };
    };
    const t = await both(() => ['tenant', 'create', '--name', 'Stored']);
    ids.r.tenant = t.r.out[1].match(UUID)![0];
    ids.l.tenant = t.l.out[1].match(UUID)![0];
    const a = await both((x) => ['app', 'create', '--tenant', x.tenant, '--name', 'files', '--region', 'local', '--db-code', 'eu1']);
    ids.r.app = a.r.out[1].match(UUID)![0];
    ids.l.app = a.l.out[1].match(UUID)![0];
    const create = (x: Ids) => [
      'storage',
      'create',
      '--tenant',
      x.tenant,
      '--provider',
      'minio',
      '--endpoint',
      'http://127.0.0.1:9',
      '--bucket',
      'docs',
      '--prefix',
      'p',
      '--access-key-id',
      'AK',
      '--secret-access-key',
      'SK',
      '--path-style',
      '--no-verify',
    ];
    const c = await both(create);
    expect(c.r.out[0]).toMatch(/^storage config \S+ \(minio http:\/\/127\.0\.0\.1:9 bucket docs\)$/);
    ids.r.cfg = c.r.out[0].match(UUID)![0];
    ids.l.cfg = c.l.out[0].match(UUID)![0];
    const j = await both((x) => [...create(x), '--json']);
    expect(Object.keys(JSON.parse(j.r.out[0]))).toEqual(Object.keys(JSON.parse(j.l.out[0])));
    expect(j.r.out[0]).not.toContain('SK');
    await both((x) => ['app', 'set-storage', x.app, x.cfg]);
    expect((await remote('app', 'list', '--json')).out.join('\n')).toContain(`"storageConfigId":"${ids.r.cfg}"`);
    await both((x) => ['app', 'set-storage', x.app, x.cfg, '--json']);
    await both((x) => ['app', 'set-storage', x.app, 'none']);
    // Refusals.
    await both((x) => ['app', 'set-storage', x.app, '00000000-0000-4000-8000-000000000000']);
    await both(() => ['app', 'set-storage', '00000000-0000-4000-8000-000000000000', 'none']);
    await both((x) => ['app', 'set-storage', x.app]);
    await both((x) => ['storage', 'create', '--tenant', x.tenant, '--bucket', 'docs']);
    await both((x) => [...create(x), '--provider', 'ftp']);
    await both(() => create({ tenant: '00000000-0000-4000-8000-000000000000', app: '', cfg: '' }));
    await both((x) => [...create(x), '--bogus']);
    await both(() => ['storage', 'nosuch']);
    // The bucket check fails (nothing listens): saved anyway with a warning, as locally.
    const checked = await remote(...create(ids.r).filter((o) => o !== '--no-verify'));
    expect(checked.code).toBe(0);
    expect(checked.out[0]).toMatch(/^warning: bucket docs is not reachable with these credentials/);
    expect(checked.out[1]).toMatch(/^storage config /);
  });
});
