// Page-level security of the dashboard, over plain HTTP against a real node: no page or form
// works without a session; one tenant's people cannot see or change another tenant's pages;
// a form POST without the session's CSRF token (or with a wrong one) is refused and changes
// nothing; members read but do not change; every page carries the strict headers and no
// inline code; the API's refusals come back as form errors beside the field they name.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MembersStore } from '../../../src/tenancy/members-store.js';
import type { App, Tenant } from '../../../src/tenancy/types.js';
import { CONTENT_SECURITY_POLICY } from '../../../src/dashboard/pages/index.js';
import { signIn, startDashboardRig, type DashboardRig, type SignedInClient as TestSession } from './rig.js';

let rig: DashboardRig;
let n: DashboardRig['node'];
let alice: TestSession; // owner of A
let bob: TestSession; // owner of B
let carol: TestSession; // member of A
let tenantA: Tenant;
let tenantB: Tenant;
let appA: App;

const D = '/dashboard';

async function get(s: TestSession | null, path: string): Promise<Response> {
  return fetch(n.url + path, { redirect: 'manual', headers: s ? { cookie: s.cookie } : {} });
}

async function post(s: TestSession | null, path: string, form: Record<string, string>): Promise<Response> {
  return fetch(n.url + path, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(s ? { cookie: s.cookie } : {}) },
    body: new URLSearchParams(form),
  });
}

/** The session's CSRF token, as its pages carry it. */
async function csrfOf(s: TestSession): Promise<string> {
  const html = await (await get(s, `${D}/plans`)).text();
  return /name="_csrf" value="([^"]+)"/.exec(html)![1];
}

const store = () => n.node.controlPlane;

beforeAll(async () => {
  rig = await startDashboardRig();
  n = rig.node;
  alice = await signIn(rig, 'alice@a.test');
  bob = await signIn(rig, 'bob@b.test');
  carol = await signIn(rig, 'carol@a.test');
  // Each owner creates their organisation through the dashboard itself.
  for (const [s, name] of [
    [alice, 'Alpha Works'],
    [bob, 'Beta Labs'],
  ] as const) {
    const res = await post(s, `${D}/onboarding`, { _csrf: await csrfOf(s), name });
    expect(res.status).toBe(303);
  }
  const tenants = await store().listTenants();
  tenantA = tenants.find((t) => t.name === 'Alpha Works')!;
  tenantB = tenants.find((t) => t.name === 'Beta Labs')!;
  await new MembersStore(store().db).upsertMember({ tenantId: tenantA.id, email: carol.email, role: 'member', userId: null });
  const created = await post(alice, `${D}/t/${tenantA.id}/apps`, {
    _csrf: await csrfOf(alice),
    name: 'Alpha importer',
    licenseRegion: n.node.config.regions[0],
    allowedDomains: 'alpha.test',
  });
  expect(created.status).toBe(200);
  appA = (await store().listApps(tenantA.id))[0];
}, 120_000);

afterAll(async () => {
  await rig?.close();
});

const pagesOf = (tenantId: string, appId: string) => [
  `${D}/t/${tenantId}`,
  `${D}/t/${tenantId}/apps`,
  `${D}/t/${tenantId}/apps/${appId}`,
  `${D}/t/${tenantId}/members`,
  `${D}/t/${tenantId}/storage`,
  `${D}/t/${tenantId}/usage`,
  `${D}/t/${tenantId}/usage/statement.csv`,
  `${D}/t/${tenantId}/usage/daily.csv`,
  `${D}/t/${tenantId}/usage/lines.csv`,
  `${D}/t/${tenantId}/audit`,
];

describe('without a session', () => {
  it('every page sends the browser to sign in, and comes back to the page afterwards', async () => {
    for (const path of [`${D}/`, `${D}/onboarding`, `${D}/plans`, `${D}/operator/tenants`, ...pagesOf(tenantA.id, appA.id)]) {
      const res = await get(null, path);
      expect(res.status, path).toBe(303);
      const location = new URL(res.headers.get('location')!, n.url);
      expect(location.pathname, path).toBe(`${D}/auth/login`);
      expect(location.searchParams.get('next'), path).toBe(path);
    }
  });

  it('no form does anything: the organisation is not created, the app stays enabled', async () => {
    const before = (await store().listTenants()).length;
    const forms: [string, Record<string, string>][] = [
      [`${D}/onboarding`, { name: 'Sneaky' }],
      [`${D}/t/${tenantA.id}/apps/${appA.id}/disable`, {}],
      [`${D}/t/${tenantA.id}/members/invite`, { email: 'eve@evil.test', role: 'owner' }],
      [`${D}/operator/tenants/${tenantA.id}/activate`, {}],
    ];
    for (const [path, form] of forms) {
      const res = await post(null, path, form);
      expect(res.status, path).toBe(303);
      expect(new URL(res.headers.get('location')!, n.url).pathname).toBe(`${D}/auth/login`);
    }
    expect((await store().listTenants()).length).toBe(before);
    expect((await store().getApp(appA.id))!.enabled).toBe(true);
    expect((await store().getTenant(tenantA.id))!.state).toBe('Pending Activation');
    expect(await new MembersStore(store().db).listOpenInvitations(tenantA.id)).toEqual([]);
  });
});

describe('another tenant', () => {
  it("sees none of A's pages: each is a 404 that names nothing of A", async () => {
    for (const path of pagesOf(tenantA.id, appA.id)) {
      const res = await get(bob, path);
      expect(res.status, path).toBe(404);
      const body = await res.text();
      expect(body, path).not.toContain('Alpha');
    }
    // A's app under B's own tenant path is not found either.
    expect((await get(bob, `${D}/t/${tenantB.id}/apps/${appA.id}`)).status).toBe(404);
    // And B's list of organisations holds only B.
    const home = await (await get(bob, `${D}/`)).text();
    expect(home).toContain('Beta Labs');
    expect(home).not.toContain('Alpha Works');
  });

  it("changes nothing of A's, with a valid CSRF token of its own", async () => {
    const csrf = await csrfOf(bob);
    const attempts: [string, Record<string, string>][] = [
      [`${D}/t/${tenantA.id}/apps/${appA.id}/disable`, { _csrf: csrf }],
      [`${D}/t/${tenantA.id}/apps/${appA.id}/rotate-secret`, { _csrf: csrf }],
      [`${D}/t/${tenantA.id}/apps/${appA.id}`, { _csrf: csrf, name: 'Owned', licenseRegion: n.node.config.regions[0] }],
      [`${D}/t/${tenantA.id}/members/invite`, { _csrf: csrf, email: 'eve@evil.test', role: 'owner' }],
      [`${D}/t/${tenantA.id}/apps`, { _csrf: csrf, name: 'Intruder', licenseRegion: n.node.config.regions[0] }],
    ];
    const secretHash = (await store().getApp(appA.id))!.secretHash;
    for (const [path, form] of attempts) expect((await post(bob, path, form)).status, path).toBe(404);
    const app = (await store().getApp(appA.id))!;
    expect(app.enabled).toBe(true);
    expect(app.name).toBe('Alpha importer');
    expect(app.secretHash).toBe(secretHash);
    expect((await store().listApps(tenantA.id)).map((a) => a.name)).toEqual(['Alpha importer']);
    expect(await new MembersStore(store().db).listOpenInvitations(tenantA.id)).toEqual([]);
  });

  it('is no operator: the tenant list and activation are refused', async () => {
    expect((await get(bob, `${D}/operator/tenants`)).status).toBe(403);
    expect((await post(bob, `${D}/operator/tenants/${tenantB.id}/activate`, { _csrf: await csrfOf(bob) })).status).toBe(403);
    expect((await store().getTenant(tenantB.id))!.state).toBe('Pending Activation');
  });
});

describe('CSRF', () => {
  it('a form without the token, or with a wrong one, is refused and changes nothing; with it, it works', async () => {
    const path = `${D}/t/${tenantA.id}/apps/${appA.id}/disable`;
    const missing = await post(alice, path, {});
    expect(missing.status).toBe(403);
    expect(missing.headers.get('content-type')).toContain('text/html');
    expect(await missing.text()).toContain('Nothing was changed');
    expect((await post(alice, path, { _csrf: 'x'.repeat(43) })).status).toBe(403);
    // Another session's token is a wrong token too.
    expect((await post(alice, path, { _csrf: await csrfOf(bob) })).status).toBe(403);
    expect((await store().getApp(appA.id))!.enabled).toBe(true);
    const before = (await store().listTenants()).length;
    expect((await post(alice, `${D}/onboarding`, { name: 'No token' })).status).toBe(403);
    expect((await store().listTenants()).length).toBe(before);

    const ok = await post(alice, path, { _csrf: await csrfOf(alice) });
    expect(ok.status).toBe(303);
    expect(ok.headers.get('location')).toBe(`${D}/t/${tenantA.id}/apps/${appA.id}?done=disabled`);
    expect((await store().getApp(appA.id))!.enabled).toBe(false);
    expect((await post(alice, `${D}/t/${tenantA.id}/apps/${appA.id}/enable`, { _csrf: await csrfOf(alice) })).status).toBe(303);
    expect((await store().getApp(appA.id))!.enabled).toBe(true);
  });
});

describe('a member (not an owner)', () => {
  it('reads the pages, is offered no changes, and a forged change is refused', async () => {
    const apps = await (await get(carol, `${D}/t/${tenantA.id}/apps`)).text();
    expect(apps).toContain('Alpha importer');
    expect(apps).not.toContain('Create app');
    const res = await post(carol, `${D}/t/${tenantA.id}/apps/${appA.id}/disable`, { _csrf: await csrfOf(carol) });
    expect(res.status).toBe(403);
    expect(await res.text()).toContain('owners');
    expect((await store().getApp(appA.id))!.enabled).toBe(true);
  });
});

describe('pages', () => {
  it('carry the strict headers and no inline script, style or handler', async () => {
    for (const path of [`${D}/`, ...pagesOf(tenantA.id, appA.id).filter((p) => !p.endsWith('.csv'))]) {
      const res = await get(alice, path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('same-origin');
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      const html = await res.text();
      expect(html.match(/<script(?![^>]*\bsrc=)[^>]*>/g), path).toBeNull();
      expect(html.match(/\sstyle=|\son[a-z]+=/gi), path).toBeNull();
    }
  });

  it('serve their assets from the package with a content hash, cached for a year', async () => {
    const html = await (await get(alice, `${D}/t/${tenantA.id}/usage`)).text();
    const srcs = [...html.matchAll(/(?:src|href)="(\/dashboard\/assets\/[^"]+)"/g)].map((m) => m[1]);
    expect(srcs.some((s) => /chart\.umd\.[0-9a-f]{12}\.js$/.test(s))).toBe(true);
    expect(srcs.some((s) => /dashboard\.[0-9a-f]{12}\.css$/.test(s))).toBe(true);
    for (const src of srcs) {
      const res = await get(null, src);
      expect(res.status, src).toBe(200);
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(res.headers.get('content-type')).toMatch(/^text\/(css|javascript); charset=utf-8$/);
    }
    expect((await get(null, `${D}/assets/dashboard.000000000000.css`)).status).toBe(404);
  });

  it('escape what users typed', async () => {
    const res = await post(alice, `${D}/onboarding`, { _csrf: await csrfOf(alice), name: '<script>alert(1)</script> & "Co"' });
    const page = await (await get(alice, new URL(res.headers.get('location')!, n.url).pathname)).text();
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;Co&quot;');
    expect(page).not.toContain('<script>alert(1)');
  });

  it("show the API's refusal beside the field it names, and keep what was typed", async () => {
    const res = await post(alice, `${D}/t/${tenantA.id}/apps`, {
      _csrf: await csrfOf(alice),
      name: 'Four domains',
      licenseRegion: n.node.config.regions[0],
      allowedDomains: 'a.test\nb.test\nc.test\nd.test',
    });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toMatch(
      /<textarea id="f-allowedDomains" name="allowedDomains" aria-describedby="f-allowedDomains-hint f-allowedDomains-error" aria-invalid="true">a\.test\nb\.test\nc\.test\nd\.test<\/textarea>/,
    );
    expect(html).toMatch(/<p class="error" id="f-allowedDomains-error">[^<]*at most 3[^<]*<\/p>/);
    expect(html).toContain('value="Four domains"');
    expect((await store().listApps(tenantA.id)).map((a) => a.name)).toEqual(['Alpha importer']);
  });
});
