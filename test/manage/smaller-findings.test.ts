// Issue 26's smaller findings on the management side, on a real node with the dashboard, a
// real OpenID provider and an SMTP relay that refuses connections:
// - someone who is a member already is not invited again (the members page once said that
//   would change their role; accepting never lowered one): a role is changed at once, by an
//   owner, with the last-owner rule, audited — through the API and the page;
// - members (who only read) and every audit diff see a storage access key id masked as the
//   dashboard shows it;
// - a tenant's owners see an operator's change as made by "an operator" (no e-mail, no client
//   address) and no word of the SMTP relay in the e-mails they may read; operators see all;
// - operators edit a plan (the API, the CLI, the plans page), audited with a diff.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditStore } from '../../src/tenancy/audit-store.js';
import { OperatorKeysStore } from '../../src/tenancy/operator-keys-store.js';
import type { SqlControlPlaneStore } from '../../src/tenancy/sql-store.js';
import type { Plan, Tenant } from '../../src/tenancy/types.js';
import { DELIVERY_RETRIED } from '../../src/mail/view.js';
import { runAdmin } from '../helpers/admin-cli.js';
import { waitFor } from '../helpers/node.js';
import { freePort } from '../helpers/servers.js';
import { signIn, startDashboardRig, type DashboardRig, type SignedInClient } from '../dashboard/pages/rig.js';

const OWNER = 'owner@acme.test';
const MEMBER = 'member@acme.test';
const OPERATOR = 'root@ops.test';
const KEY_ID = 'AKIAEXAMPLEKEY12WXYZ';

let rig: DashboardRig;
let relayPort: number;
let owner: SignedInClient;
let member: SignedInClient;
let operator: SignedInClient;
let opKey: string;
let tenant: Tenant;

const store = () => rig.node.node.controlPlane as SqlControlPlaneStore;
const csrfOf = new Map<SignedInClient, string>();

/** A management API call as a signed-in browser makes it (its CSRF token on changes), or with the operator key. */
async function api(who: SignedInClient | 'key', method: string, path: string, body?: unknown) {
  const headers: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json' };
  if (who === 'key') headers.authorization = `Bearer ${opKey}`;
  else {
    headers.cookie = who.cookie;
    if (method !== 'GET') {
      if (!csrfOf.has(who))
        csrfOf.set(who, ((await (await fetch(`${rig.base}/dashboard/auth/session`, { headers: { cookie: who.cookie } })).json()) as any).csrfToken);
      headers['x-csrf-token'] = csrfOf.get(who)!;
    }
  }
  const res = await fetch(`${rig.base}/manage/v1${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, text };
}

const page = async (who: SignedInClient, path: string) => {
  const res = await fetch(`${rig.base}/dashboard${path}`, { redirect: 'manual', headers: { cookie: who.cookie } });
  return { status: res.status, text: await res.text() };
};
async function form(who: SignedInClient, path: string, fields: Record<string, string>) {
  const csrf = /name="_csrf" value="([^"]+)"/.exec((await page(who, '/plans')).text)![1];
  const res = await fetch(`${rig.base}/dashboard${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: who.cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: csrf, ...fields }),
  });
  return { status: res.status, location: res.headers.get('location'), text: await res.text() };
}

beforeAll(async () => {
  relayPort = await freePort(); // nothing listens: every delivery attempt fails naming 127.0.0.1:<port>
  rig = await startDashboardRig({ DOCPARSE_OPERATOR_EMAILS: OPERATOR, DOCPARSE_SMTP_URL: `smtp://127.0.0.1:${relayPort}` });
  opKey = (await new OperatorKeysStore(store().db).create('findings')).key;
  owner = await signIn(rig, OWNER);
  operator = await signIn(rig, OPERATOR);
  tenant = (await api(owner, 'POST', '/tenants', { name: 'Acme Findings' })).body;
  expect(tenant.id).toBeTruthy();
  // An operator (named by e-mail, signed in) activates it: an operator's entry in the owners' log.
  expect((await api(operator, 'POST', `/tenants/${tenant.id}/activate`)).status).toBe(200);
  expect((await api(owner, 'POST', `/tenants/${tenant.id}/invitations`, { email: MEMBER, role: 'member' })).status).toBe(201);
  member = await signIn(rig, MEMBER);
}, 120_000);

afterAll(async () => {
  await rig?.close();
});

describe('re-inviting a member: a role is changed, not invited', () => {
  it('inviting an owner as member (or a member as owner) is refused with how to change the role; no invitation is made', async () => {
    const asMember = await api(owner, 'POST', `/tenants/${tenant.id}/invitations`, { email: OWNER, role: 'member' });
    expect(asMember.status).toBe(409);
    expect(asMember.body).toMatchObject({ code: 'already_member', role: 'owner' });
    expect(asMember.body.detail).toMatch(
      /already an owner of this tenant; to make them a member, change their role .*PATCH \/manage\/v1\/tenants\/.+\/members\/owner%40acme\.test/,
    );
    const asOwner = await api(owner, 'POST', `/tenants/${tenant.id}/invitations`, { email: MEMBER, role: 'owner' });
    expect(asOwner.status).toBe(409);
    expect((await api(owner, 'GET', `/tenants/${tenant.id}/members`)).body.invitations).toEqual([]);
  });

  it('an owner changes a role at once (audited); the last owner stays one; a member may not', async () => {
    expect((await api(member, 'PATCH', `/tenants/${tenant.id}/members/${OWNER}`, { role: 'member' })).body.code).toBe('owner_required');
    const promoted = await api(owner, 'PATCH', `/tenants/${tenant.id}/members/${MEMBER}`, { role: 'owner' });
    expect(promoted.status).toBe(200);
    expect(promoted.body).toMatchObject({ email: MEMBER, role: 'owner' });
    expect((await store().db.query('SELECT role FROM tenant_members WHERE email = $1', [MEMBER])).rows).toEqual([{ role: 'owner' }]);
    const log = (await api('key', 'GET', `/audit?tenantId=${tenant.id}`)).body.items;
    expect(log[0]).toMatchObject({ action: 'member.role', objectId: MEMBER, diff: { role: { from: 'member', to: 'owner' } }, actor: { email: OWNER } });

    // Back to one owner (the member-now-owner steps down), who cannot step down too.
    expect((await api(member, 'PATCH', `/tenants/${tenant.id}/members/${MEMBER}`, { role: 'member' })).status).toBe(200);
    const last = await api(owner, 'PATCH', `/tenants/${tenant.id}/members/${OWNER}`, { role: 'member' });
    expect(last.status).toBe(409);
    expect(last.body.code).toBe('last_owner');
    // The role a member has already: nothing changes, nothing is audited.
    const before = (await api('key', 'GET', `/audit?tenantId=${tenant.id}`)).body.items.length;
    expect((await api(owner, 'PATCH', `/tenants/${tenant.id}/members/${MEMBER}`, { role: 'member' })).status).toBe(200);
    expect((await api('key', 'GET', `/audit?tenantId=${tenant.id}`)).body.items.length).toBe(before);
    expect((await api(owner, 'PATCH', `/tenants/${tenant.id}/members/nobody@acme.test`, { role: 'owner' })).body.code).toBe('member_not_found');
  });

  it('the members page says so and changes a role with a button', async () => {
    const members = await page(owner, `/t/${tenant.id}/members`);
    expect(members.text).not.toMatch(/invite them again/);
    expect(members.text).toMatch(/use Make owner or Make member in the list above/);
    expect(members.text).toContain(`Make ${MEMBER} an owner`);
    const done = await form(owner, `/t/${tenant.id}/members/role`, { email: MEMBER, role: 'owner' });
    expect(done.status).toBe(303);
    expect(done.location).toMatch(/members\?done=role$/);
    expect((await page(owner, `/t/${tenant.id}/members?done=role`)).text).toContain('Role changed.');
    expect((await api(owner, 'GET', `/tenants/${tenant.id}/members`)).body.members).toEqual(
      expect.arrayContaining([expect.objectContaining({ email: MEMBER, role: 'owner' })]),
    );
    expect((await form(owner, `/t/${tenant.id}/members/role`, { email: MEMBER, role: 'member' })).status).toBe(303);
  });
});

describe('storage access key ids', () => {
  let configId: string;
  beforeAll(async () => {
    const created = await api('key', 'POST', `/tenants/${tenant.id}/storage-configs`, {
      provider: 'minio',
      endpoint: 'https://minio.acme.test',
      bucket: 'docs',
      accessKeyId: KEY_ID,
      secretAccessKey: 'secret-value-000',
      verify: false,
    });
    expect(created.status).toBe(201);
    configId = created.body.id;
  });

  it('are whole for owners and operators, masked for members who only read', async () => {
    expect((await api(owner, 'GET', `/tenants/${tenant.id}/storage-configs`)).body.items[0].accessKeyId).toBe(KEY_ID);
    expect((await api('key', 'GET', `/storage-configs/${configId}`)).body.accessKeyId).toBe(KEY_ID);
    const list = await api(member, 'GET', `/tenants/${tenant.id}/storage-configs`);
    expect(list.body.items[0].accessKeyId).toBe('••••WXYZ');
    const one = await api(member, 'GET', `/storage-configs/${configId}`);
    expect(one.body.accessKeyId).toBe('••••WXYZ');
    expect(list.text + one.text).not.toContain(KEY_ID);
    // The page shows the same to everyone.
    for (const who of [member, owner]) {
      const storage = await page(who, `/t/${tenant.id}/storage`);
      expect(storage.text).toContain('••••WXYZ');
      expect(storage.text).not.toContain(KEY_ID);
    }
  });

  it('are masked in every audit diff, as stored and as read (also an entry written before)', async () => {
    const { rows } = await store().db.query<{ diff: unknown }>("SELECT diff FROM audit_log WHERE action = 'storage.create'");
    expect(JSON.stringify(rows)).not.toContain(KEY_ID);
    await new AuditStore(store().db).append({
      actor: { kind: 'user', id: 'u-old', email: OWNER },
      tenantId: tenant.id,
      action: 'storage.create',
      objectType: 'storage-config',
      objectId: 'older',
      diff: { bucket: 'old', accessKeyId: 'AKIAOLDERENTRYKEYABCD' },
      clientAddress: '198.51.100.7',
      requestId: null,
    });
    for (const who of [owner, 'key'] as const) {
      const log = await api(who, 'GET', `/audit?tenantId=${tenant.id}`);
      const creates = log.body.items.filter((e: any) => e.action === 'storage.create');
      expect(creates.map((e: any) => e.diff.accessKeyId).sort()).toEqual(['••••ABCD', '••••WXYZ']);
      expect(log.text).not.toMatch(/AKIA/);
    }
  });
});

describe("what a tenant's owners read of operators and the mail relay", () => {
  it("the audit log names an operator's change by kind only; operators see who and from where", async () => {
    const asOwner = await api(owner, 'GET', `/audit?tenantId=${tenant.id}`);
    const activation = asOwner.body.items.find((e: any) => e.action === 'tenant.activate');
    expect(activation).toMatchObject({ actor: { kind: 'operator', id: null, email: null }, clientAddress: null });
    expect(asOwner.text).not.toContain(OPERATOR);
    // The owner's own entries keep their address.
    expect(asOwner.body.items.find((e: any) => e.action === 'member.invite')).toMatchObject({ actor: { email: OWNER }, clientAddress: '127.0.0.1' });

    const asOperator = (await api('key', 'GET', `/audit?tenantId=${tenant.id}`)).body.items.find((e: any) => e.action === 'tenant.activate');
    expect(asOperator).toMatchObject({ actor: { kind: 'operator', email: OPERATOR }, clientAddress: '127.0.0.1' });
    expect(asOperator.actor.id).toEqual(expect.any(String));

    const auditPage = await page(owner, `/t/${tenant.id}/audit`);
    expect(auditPage.text).toMatch(/<td>an operator<\/td><td><code>tenant\.activate<\/code>/);
    expect(auditPage.text).not.toContain(OPERATOR);
    expect((await page(operator, `/t/${tenant.id}/audit`)).text).toMatch(new RegExp(`<td>${OPERATOR}</td><td><code>tenant\\.activate</code>`));
  });

  it("e-mails the owners read say a delivery is retried, never the relay's host, address or port", async () => {
    // The operator sees the SMTP conversation's own words once the sender has tried.
    const failed = await waitFor(async () => {
      const items = (await api('key', 'GET', `/mail?tenantId=${tenant.id}`)).body.items as any[];
      return items.find((m) => m.attempts > 0 && m.lastError);
    }, 'a failed delivery attempt');
    expect(failed.lastError).toContain(String(relayPort));

    const list = await api(owner, 'GET', `/mail?tenantId=${tenant.id}`);
    const mine = list.body.items.find((m: any) => m.id === failed.id);
    expect(mine.lastError).toBe(DELIVERY_RETRIED);
    const one = await api(owner, 'GET', `/mail/${failed.id}`);
    expect(one.body.lastError).toBe(DELIVERY_RETRIED);
    for (const text of [list.text, one.text]) {
      expect(text).not.toContain(String(relayPort));
      expect(text).not.toMatch(/ECONNREFUSED/);
    }
    expect((await api('key', 'GET', `/mail/${failed.id}`)).body.lastError).toBe(failed.lastError);
  });
});

describe('editing a plan', () => {
  let plan: Plan;
  beforeAll(async () => {
    plan = (await api('key', 'POST', '/plans', { name: 'Starter', maxDocumentUnitsPerMonth: 100, maxFileSizeBytes: 1_000_000 })).body;
  });

  it('operators change the fields they name, audited with before and after; the names rule applies; others are refused', async () => {
    const edited = await api('key', 'PATCH', `/plans/${plan.id}`, { name: 'Starter 2', maxDocumentUnitsPerMonth: 250, ocrPdfExtraction: true });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({
      id: plan.id,
      name: 'Starter 2',
      maxDocumentUnitsPerMonth: 250,
      ocrPdfExtraction: true,
      maxFileSizeBytes: 1_000_000,
      status: 'usable',
    });
    const entry = (await api('key', 'GET', '/audit?limit=5')).body.items.find((e: any) => e.action === 'plan.update');
    expect(entry).toMatchObject({
      objectId: plan.id,
      diff: { name: { from: 'Starter', to: 'Starter 2' }, maxDocumentUnitsPerMonth: { from: 100, to: 250 }, ocrPdfExtraction: { from: false, to: true } },
    });
    expect(Object.keys(entry.diff).sort()).toEqual(['maxDocumentUnitsPerMonth', 'name', 'ocrPdfExtraction']);

    const bidi = await api('key', 'PATCH', `/plans/${plan.id}`, { name: 'Evil\u202eName' });
    expect(bidi.status).toBe(400);
    expect(bidi.body).toMatchObject({ code: 'invalid_parameter', parameter: 'name' });
    expect((await api('key', 'PATCH', `/plans/${plan.id}`, {})).status).toBe(400);
    expect((await api('key', 'PATCH', '/plans/no-such-plan', { name: 'x' })).body.code).toBe('plan_not_found');
    expect((await api(owner, 'PATCH', `/plans/${plan.id}`, { name: 'Mine' })).body.code).toBe('operator_required');
    expect((await api('key', 'GET', `/plans/${plan.id}`)).body.name).toBe('Starter 2');
  });

  it('a retired plan can be edited and stays retired', async () => {
    const old = (await api('key', 'POST', '/plans', { name: 'Legacy', maxDocumentUnitsPerMonth: 5 })).body as Plan;
    expect((await api('key', 'POST', `/plans/${old.id}/retire`)).status).toBe(200);
    const edited = await api('key', 'PATCH', `/plans/${old.id}`, { name: 'Legacy (2024)' });
    expect(edited.body).toMatchObject({ name: 'Legacy (2024)', status: 'retired' });
  });

  it('docparse admin plan update changes what it is given, through the API', async () => {
    const lines: string[] = [];
    const code = await runAdmin(['plan', 'update', plan.id, '--units', '1,000', '--ocr', 'no', '--max-bytes-per-second', '2MiB'], store(), (l) =>
      lines.push(l),
    );
    expect(code, lines.join('\n')).toBe(0);
    expect(lines[0]).toBe('Plan updated.');
    expect(lines).toEqual(expect.arrayContaining(['  units/month:  1000', '  OCR PDF:      no', `  upload rate:  ${2 * 1024 * 1024} bytes/s`]));
    const after = (await api('key', 'GET', `/plans/${plan.id}`)).body;
    expect(after).toMatchObject({ name: 'Starter 2', maxDocumentUnitsPerMonth: 1000, ocrPdfExtraction: false, maxFileSizeBytes: 1_000_000 });
    const entry = (await api('key', 'GET', '/audit?limit=1')).body.items[0];
    expect(entry).toMatchObject({ action: 'plan.update', actor: { id: 'local-operator' }, diff: { maxDocumentUnitsPerMonth: { from: 250, to: 1000 } } });

    const usage: string[] = [];
    expect(await runAdmin(['plan', 'update', plan.id], store(), (l) => usage.push(l))).toBe(2);
    expect(usage.join('\n')).toMatch(/name at least one change/);
    expect(await runAdmin(['plan', 'update', plan.id, '--ocr', 'maybe'], store(), () => undefined)).toBe(2);
    const missing: string[] = [];
    expect(await runAdmin(['plan', 'update', 'no-such-plan', '--units', '1'], store(), (l) => missing.push(l))).toBe(1);
    expect(missing.join('\n')).toMatch(/plan no-such-plan not found/);
  });

  it('the plans page edits a plan: saved unchanged it changes nothing (a size not in whole MiB stays), changed it saves only that', async () => {
    const plans = await page(operator, '/plans');
    expect(plans.text).toContain(`href="/dashboard/plans/${plan.id}/edit"`);
    const edit = await page(operator, `/plans/${plan.id}/edit`);
    expect(edit.status).toBe(200);
    const shown = Object.fromEntries(
      [...edit.text.matchAll(/<input type="(?:text|number)" id="f-[^"]+" name="([^"]+)"[^>]* value="([^"]*)">/g)].map((m) => [m[1], m[2]]),
    );
    expect(shown).toMatchObject({ name: 'Starter 2', maxDocumentUnitsPerMonth: '1000', maxFileSizeMiB: '1', maxMiBPerSecond: '2' });

    const unchanged = await form(operator, `/plans/${plan.id}`, shown);
    expect(unchanged.location).toMatch(/plans\?done=unchanged$/);
    const saved = await form(operator, `/plans/${plan.id}`, { ...shown, maxDocumentUnitsPerMonth: '1500', advancedPdfExtraction: 'true' });
    expect(saved.status).toBe(303);
    expect(saved.location).toMatch(/plans\?done=updated$/);
    expect((await api('key', 'GET', `/plans/${plan.id}`)).body).toMatchObject({
      maxDocumentUnitsPerMonth: 1500,
      advancedPdfExtraction: true,
      maxFileSizeBytes: 1_000_000,
    });

    const refused = await form(operator, `/plans/${plan.id}`, { ...shown, name: 'Bad\u202eName' });
    expect(refused.status).toBe(400);
    expect(refused.text).toMatch(/<p class="error" id="f-name-error">[^<]*U\+202E/);
    expect((await page(owner, `/plans/${plan.id}/edit`)).status).toBe(403);
  });
});
