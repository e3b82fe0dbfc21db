// Text in and out of the dashboard. Out: names stored before the names rule (written straight
// into the control plane here) are shown with their control and bidirectional characters as
// \u escapes — on the pages and the sign-in pages, by one rule — so an old name cannot reverse
// the rest of its line. In: a form is strict UTF-8 and text only — NUL in a sign-in form's
// field is a 400 naming it (it was a wrong key, 401), bytes that are not UTF-8 are a 400
// (they were replaced and saved), a page's field with NUL is refused naming it before anything
// is sent.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlControlPlaneStore } from '../../../src/tenancy/sql-store.js';
import { signIn, startDashboardRig, type DashboardRig, type SignedInClient } from './rig.js';

/** What a page must never carry raw: C0 but tab/LF/CR, DEL, C1, bidi formatting, line/paragraph separators. */
const UNSAFE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/;

const TENANT = 'Evil\u202eroC\u001b[31m';
const APP = 'Bell\u0007App';
const PLAN = 'Plan\u2066isolated\u2069';
const D = '/dashboard';

let rig: DashboardRig;
let owner: SignedInClient;
let operator: SignedInClient;
let tenantId: string;
let appId: string;
let planId: string;

const db = () => (rig.node.node.controlPlane as SqlControlPlaneStore).db;
const get = (s: SignedInClient | null, path: string, accept = 'text/html') =>
  fetch(rig.base + path, { redirect: 'manual', headers: { accept, ...(s ? { cookie: s.cookie } : {}) } });
const post = (s: SignedInClient | null, path: string, body: string | Buffer, accept = 'application/json') =>
  fetch(rig.base + path, {
    method: 'POST',
    redirect: 'manual',
    headers: { accept, 'content-type': 'application/x-www-form-urlencoded', ...(s ? { cookie: s.cookie } : {}) },
    body,
  });
const csrf = async (s: SignedInClient) => /name="_csrf" value="([^"]+)"/.exec(await (await get(s, `${D}/plans`)).text())![1];

beforeAll(async () => {
  rig = await startDashboardRig({ DOCPARSE_OPERATOR_EMAILS: 'root@ops.test' });
  owner = await signIn(rig, 'owner@old-names.test');
  operator = await signIn(rig, 'root@ops.test');
  tenantId = randomUUID();
  appId = randomUUID();
  planId = randomUUID();
  await db().query("INSERT INTO tenants (id, name, state) VALUES ($1, $2, 'Active')", [tenantId, TENANT]);
  await db().query("INSERT INTO tenant_members (tenant_id, email, role) VALUES ($1, 'owner@old-names.test', 'owner')", [tenantId]);
  await db().query(
    `INSERT INTO plans (id, name, max_document_units_per_month, advanced_pdf_extraction, ocr_pdf_extraction, max_file_size_bytes, max_concurrent_jobs, max_bytes_per_second)
     VALUES ($1, $2, 10, false, false, 1048576, 1, 1048576)`,
    [planId, PLAN],
  );
  await db().query(
    `INSERT INTO apps (id, tenant_id, name, license_region, db_code, client_id, secret_hash, allowed_domains, enabled, plan_id)
     VALUES ($1, $2, $3, 'local', 'db1', $4, 'x', '{}', true, $5)`,
    [appId, tenantId, APP, `c-${randomUUID()}`, planId],
  );
}, 120_000);

afterAll(async () => {
  await rig?.close();
});

describe('names stored before the names rule', () => {
  it('are shown with \\u escapes on every page that names them, never raw', async () => {
    for (const [who, path] of [
      [owner, `${D}/`],
      [owner, `${D}/t/${tenantId}`],
      [owner, `${D}/t/${tenantId}/apps`],
      [owner, `${D}/plans`],
      [operator, `${D}/plans`],
    ] as const) {
      const res = await get(who, path);
      const text = await res.text();
      expect(res.status, path).toBe(200);
      expect(text, path).not.toMatch(UNSAFE);
      if (path.includes('/t/') || path === `${D}/`) expect(text, path).toContain('Evil\\u202eroC\\u001b[31m');
    }
    const apps = await (await get(owner, `${D}/t/${tenantId}/apps`)).text();
    expect(apps).toContain('Bell\\u0007App');
    expect(await (await get(operator, `${D}/plans`)).text()).toContain('Plan\\u2066isolated\\u2069');
  });

  it("an app's form shows the old name escaped; saving other settings with it as shown leaves the name as it is", async () => {
    const appPage = await (await get(owner, `${D}/t/${tenantId}/apps/${appId}`)).text();
    expect(appPage).toContain('name="name" required');
    expect(appPage).toMatch(/name="name"[^>]* value="Bell\\u0007App"/);
    const body = new URLSearchParams({
      _csrf: await csrf(owner),
      name: 'Bell\\u0007App',
      licenseRegion: 'local',
      allowedDomains: 'app.old-names.test',
      planId,
      storageConfigId: '',
    });
    const res = await post(owner, `${D}/t/${tenantId}/apps/${appId}`, body.toString(), 'text/html');
    expect(res.status, await res.text()).toBe(303);
    const app = (await rig.node.node.controlPlane.getApp(appId))!;
    expect(app.allowedDomains).toEqual(['app.old-names.test']);
    expect(app.name).toBe(APP);
  });

  it('the sign-in pages follow the same rule (a refused next= is quoted in the page)', async () => {
    const res = await get(null, `${D}/auth/login?next=${encodeURIComponent('https://evil.test/\u202egnp.exe')}`);
    expect(res.status).toBe(400);
    const text = await res.text();
    expect(text).not.toMatch(UNSAFE);
    expect(text).toContain('evil.test/\\u202egnp.exe');
  });
});

describe('form bodies', () => {
  it('a sign-in form field with NUL is 400 naming the field, not a wrong key; for a browser, a page saying so', async () => {
    const json = await post(null, `${D}/auth/operator`, 'key=dp_op_abc%00def');
    expect(json.status).toBe(400);
    expect(await json.json()).toMatchObject({ code: 'invalid_parameter', parameter: 'key', detail: expect.stringMatching(/"key" contains a NUL character/) });
    const page = await post(null, `${D}/auth/operator`, 'key=%00', 'text/html');
    expect(page.status).toBe(400);
    expect(await page.text()).toMatch(/The field &quot;key&quot; contains a NUL character/);
    // The one-time link's form too.
    const link = await post(null, `${D}/auth/local`, 'token=%00');
    expect(await link.json()).toMatchObject({ status: 400, parameter: 'token' });
  });

  it('a form body that is not UTF-8 is 400, not decoded into replacement characters and saved', async () => {
    const before = (await rig.node.node.controlPlane.listTenants()).length;
    const bytes = Buffer.concat([Buffer.from(`_csrf=${encodeURIComponent(await csrf(owner))}&name=Caf`), Buffer.from([0xe9]), Buffer.from('+Ltd')]);
    const res = await post(owner, `${D}/onboarding`, bytes, 'text/html');
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/not valid UTF-8/);
    expect((await rig.node.node.controlPlane.listTenants()).length).toBe(before);
    const signInForm = await post(null, `${D}/auth/operator`, Buffer.from([0x6b, 0x65, 0x79, 0x3d, 0xff]));
    expect(await signInForm.json()).toMatchObject({ status: 400, parameter: 'body' });
  });

  it("a page's field with NUL is refused beside the field before anything is sent (a checkbox is not taken as unticked)", async () => {
    const form = new URLSearchParams({ _csrf: await csrf(owner), provider: 's3', bucket: 'b', accessKeyId: 'AKIA', secretAccessKey: 's', forcePathStyle: 'x' });
    const body = form.toString().replace('forcePathStyle=x', 'forcePathStyle=%00');
    const res = await post(owner, `${D}/t/${tenantId}/storage`, body, 'text/html');
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/<p class="error" id="f-forcePathStyle-error">The field &quot;forcePathStyle&quot; contains a NUL character/);
    expect((await db().query("SELECT 1 FROM audit_log WHERE tenant_id = $1 AND action LIKE 'storage.%'", [tenantId])).rows).toEqual([]);
  });
});
