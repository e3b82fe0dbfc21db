// The embedded default with nothing configured still has a usable dashboard: the local
// operator signs in with the one-time link the node prints at start (once, for 15 minutes) or
// with an operator key (failed keys limited like client secrets). Under an https
// {dashboard_url} the session cookie is Secure and __Host- prefixed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlControlPlaneStore } from '../../../src/tenancy/sql-store.js';
import { OperatorKeysStore } from '../../../src/tenancy/operator-keys-store.js';
import { freePort } from '../../helpers/http.js';
import { createTestEnv, destroyTestEnv, startTestNode, type TestEnv, type TestNode } from '../../helpers/node.js';
import { BASE, CookieJar, FORM, postedFrom, SESSION_COOKIE } from './harness.js';

/** Headers given as '' are left out (the request does not send them). */
const withoutEmpty = (h: Record<string, string>) => Object.fromEntries(Object.entries(h).filter(([, v]) => v !== ''));

async function startLocalNode(
  env: Record<string, string> = {},
): Promise<{ t: TestEnv; n: TestNode; url: string; dashboardUrl: string; keys: OperatorKeysStore }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const t = await createTestEnv('embedded', { PORT: String(port), DOCPARSE_BASE_URL: url, DOCPARSE_SEED_DEMO: 'false', ...env });
  const n = await startTestNode(t);
  return { t, n, url, dashboardUrl: n.node.dashboard!.url, keys: new OperatorKeysStore((n.node.controlPlane as SqlControlPlaneStore).db) };
}

describe('local operator sign-in (no identity provider configured)', () => {
  let t: TestEnv;
  let n: TestNode;
  let url: string;
  let dashboardUrl: string;
  let keys: OperatorKeysStore;

  beforeAll(async () => {
    ({ t, n, url, dashboardUrl, keys } = await startLocalNode());
  });
  afterAll(async () => {
    await n?.close();
    if (t) await destroyTestEnv(t);
  });

  /** A sign-in form posted the way a browser posts it from the dashboard's own page; `headers` override (a header given as '' is not sent). */
  const post = (jar: CookieJar, path: string, form: Record<string, string>, headers: Record<string, string> = {}) =>
    jar.fetch(`${dashboardUrl}${path}`, {
      method: 'POST',
      headers: withoutEmpty({ ...FORM, ...postedFrom(url), ...headers }),
      body: new URLSearchParams(form),
    });
  const session = async (jar: CookieJar) => {
    const res = await jar.fetch(`${dashboardUrl}/auth/session`);
    return { status: res.status, body: await res.json() };
  };
  const tenants = (jar: CookieJar) => jar.fetch(`${url}/manage/v1/tenants`);

  it('the sign-in page offers the operator key (and names the printed link) under a strict CSP', async () => {
    const res = await fetch(`${dashboardUrl}/auth/login?next=${encodeURIComponent(`${BASE}/plans`)}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toBe(
      "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    );
    // No Referer (it may hold a one-time link's token) to another site; the real Origin to this one.
    expect(res.headers.get('referrer-policy')).toBe('same-origin');
    const html = await res.text();
    expect(html).toContain(`action="${BASE}/auth/operator"`);
    expect(html).toContain(`name="next" value="${BASE}/plans"`);
    expect(html).toMatch(/one-time link printed in the terminal/);
    expect(html).toContain('run <code>docparse admin sign-in-link</code> where the node runs');
    expect(html).toMatch(/<label for="key">/);
  });

  it('a one-time link signs in as the local operator once; used or expired, it is refused', async () => {
    const link = new URL(await n.node.dashboard!.createSignInLink());
    expect(link.origin + link.pathname).toBe(`${dashboardUrl}/auth/local`);
    const token = link.searchParams.get('token')!;

    const jar = new CookieJar();
    // Opening the link only asks (a link previewer cannot spend it).
    const ask = await jar.fetch(link);
    expect(ask.status).toBe(200);
    expect(await ask.text()).toContain(`name="token" value="${token}"`);
    expect((await session(jar)).status).toBe(401);

    const used = await post(jar, '/auth/local', { token });
    expect(used.status).toBe(303);
    expect(used.headers.get('location')).toBe(`${BASE}/`);
    expect((await session(jar)).body).toMatchObject({ operator: true, userId: 'local-operator', email: null, name: 'Local operator' });
    const all = await tenants(jar);
    expect(all.status).toBe(200);

    const again = new CookieJar();
    const second = await post(again, '/auth/local', { token });
    expect(second.status).toBe(403);
    expect((await second.json()).code).toBe('sign_in_link_invalid');
    expect(second.headers.getSetCookie()).toEqual([]);
    expect((await again.fetch(link)).status).toBe(403);

    const stale = new URL(await n.node.dashboard!.createSignInLink());
    await (n.node.controlPlane as SqlControlPlaneStore).db.query("UPDATE dashboard_sign_in_links SET expires_at = now() - interval '1 second'");
    const expired = await post(new CookieJar(), '/auth/local', { token: stale.searchParams.get('token')! });
    expect(expired.status).toBe(403);
    expect((await expired.json()).code).toBe('sign_in_link_invalid');
  });

  it('a local operator session is a platform operator at the management API (changes with the CSRF token)', async () => {
    const jar = new CookieJar();
    const token = new URL(await n.node.dashboard!.createSignInLink()).searchParams.get('token')!;
    await post(jar, '/auth/local', { token });
    const csrf = (await session(jar)).body.csrfToken;
    const res = await jar.fetch(`${url}/manage/v1/plans`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-csrf-token': csrf },
      body: JSON.stringify({ name: 'made by the local operator', maxDocumentUnitsPerMonth: 100 }),
    });
    expect(res.status).toBe(201);
    const audit = (await (await jar.fetch(`${url}/manage/v1/audit`)).json()) as any;
    expect(audit.items[0]).toMatchObject({ action: 'plan.create', actor: expect.objectContaining({ kind: 'operator', id: 'local-operator' }) });
  });

  it('an operator key signs in (and returns to `next`); a wrong one is refused; revoking the key ends its sessions', async () => {
    const { key, record } = await keys.create('dashboard');
    const jar = new CookieJar();
    const ok = await post(jar, '/auth/operator', { key, next: `${BASE}/plans` });
    expect(ok.status).toBe(303);
    expect(ok.headers.get('location')).toBe(`${BASE}/plans`);
    expect((await session(jar)).body).toMatchObject({ operator: true, userId: `operator-key:${record.id}`, name: 'Operator key "dashboard"' });
    expect((await tenants(jar)).status).toBe(200);

    const wrong = await post(new CookieJar(), '/auth/operator', { key: `${key.slice(0, -3)}xyz` });
    expect(wrong.status).toBe(401);
    expect((await wrong.json()).code).toBe('invalid_credentials');
    expect(wrong.headers.getSetCookie()).toEqual([]);
    // A browser is told on a page, with the way back to the key form.
    const page = await post(new CookieJar(), '/auth/operator', { key: 'dp_op_wrong' }, { accept: 'text/html' });
    expect(page.status).toBe(401);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await page.text();
    expect(html).toContain('not a live operator key');
    expect(html).toContain(`href="${BASE}/auth/operator"`);

    await keys.revoke(record.id);
    expect((await session(jar)).status).toBe(401);
    expect((await tenants(jar)).status).toBe(401);
  });

  it('a sign-in form posted from the dashboard itself is taken, whatever Origin its browser could send', async () => {
    const { key } = await keys.create('same-site');
    const accepted: [string, Record<string, string>][] = [
      ['a browser today (Fetch Metadata and Origin)', postedFrom(url)],
      ['a browser that hid the origin (Origin: null, as under Referrer-Policy: no-referrer)', { origin: 'null', 'sec-fetch-site': 'same-origin' }],
      ['a browser without Fetch Metadata', { origin: url }],
      ['a script (neither header)', { origin: '', 'sec-fetch-site': '' }],
    ];
    for (const [who, headers] of accepted) {
      const res = await post(new CookieJar(), '/auth/operator', { key }, headers);
      expect(res.status, who).toBe(303);
      expect(res.headers.getSetCookie()[0], who).toMatch(new RegExp(`^${SESSION_COOKIE}=`));
    }
    const link = new URL(await n.node.dashboard!.createSignInLink()).searchParams.get('token')!;
    expect((await post(new CookieJar(), '/auth/local', { token: link }, { origin: 'null', 'sec-fetch-site': 'same-origin' })).status).toBe(303);
  });

  it('a sign-in form posted from another site is refused, and signs nobody in', async () => {
    const { key } = await keys.create('cross-site');
    const refused: [string, Record<string, string>][] = [
      ['another site, in a browser today', { origin: 'https://evil.test', 'sec-fetch-site': 'cross-site' }],
      ['a sandboxed frame or data: page elsewhere (Origin: null)', { origin: 'null', 'sec-fetch-site': 'cross-site' }],
      ['a sibling site (same-site is not same-origin)', { origin: 'http://other.example.test', 'sec-fetch-site': 'same-site' }],
      ['another site, in a browser without Fetch Metadata', { origin: 'https://evil.test', 'sec-fetch-site': '' }],
      ['an opaque origin, in a browser without Fetch Metadata', { origin: 'null', 'sec-fetch-site': '' }],
      ['a forged Fetch Metadata header with another Origin', { origin: 'https://evil.test', 'sec-fetch-site': 'same-origin' }],
    ];
    const link = new URL(await n.node.dashboard!.createSignInLink()).searchParams.get('token')!;
    for (const [who, headers] of refused) {
      for (const [path, form] of [
        ['/auth/operator', { key }],
        ['/auth/local', { token: link }],
      ] as const) {
        const res = await post(new CookieJar(), path, form, headers);
        expect(res.status, `${who}: ${path}`).toBe(403);
        expect((await res.json()).code, who).toBe('csrf_failed');
        expect(res.headers.getSetCookie(), who).toEqual([]);
      }
    }
    // Refused before it was looked at: the link still signs in from the dashboard's own page.
    expect((await post(new CookieJar(), '/auth/local', { token: link })).status).toBe(303);
  });

  it('wrong operator keys are limited per address: past 10 failures in a minute even the right key is refused (429)', async () => {
    const { key } = await keys.create('limited');
    // A forged X-Forwarded-For does not make the guesser someone else: this node trusts no proxy.
    const from = { 'x-forwarded-for': '203.0.113.7' };
    let status = 0;
    for (let i = 0; i < 12 && status !== 429; i++) status = (await post(new CookieJar(), '/auth/operator', { key: `dp_op_wrong${i}` }, from)).status;
    expect(status).toBe(429);
    const right = await post(new CookieJar(), '/auth/operator', { key });
    expect(right.status).toBe(429);
    expect(Number(right.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await right.json()).code).toBe('rate_limited');
  });
});

describe('session cookie under an https {dashboard_url}', () => {
  let t: TestEnv;
  let n: TestNode;
  let dashboardUrl: string;
  let keys: OperatorKeysStore;
  let url: string;

  beforeAll(async () => {
    // Served over plain http here, as behind a TLS-terminating proxy; the public address is https.
    ({ t, n, keys, url } = await startLocalNode({ DOCPARSE_DASHBOARD_URL: 'https://dash.example.test/console' }));
    dashboardUrl = `${url}/console`;
  });
  afterAll(async () => {
    await n?.close();
    if (t) await destroyTestEnv(t);
  });

  it('is Secure and named __Host-docparse_session (Path=/, no Domain), and only that name signs in', async () => {
    const { key } = await keys.create('https');
    const res = await fetch(`${dashboardUrl}/auth/operator`, { method: 'POST', headers: FORM, body: new URLSearchParams({ key }), redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/console/');
    const [cookie] = res.headers.getSetCookie();
    const attrs = cookie.split(';').map((a) => a.trim());
    expect(attrs[0]).toMatch(/^__Host-docparse_session=[A-Za-z0-9_-]{43}$/);
    expect(attrs).toEqual(expect.arrayContaining(['Path=/', 'HttpOnly', 'SameSite=Lax', 'Secure']));
    expect(attrs.some((a) => /^domain=/i.test(a))).toBe(false);
    const id = attrs[0].split('=')[1];
    const as = (name: string) => fetch(`${dashboardUrl}/auth/session`, { headers: { cookie: `${name}=${id}` } });
    expect((await as('__Host-docparse_session')).status).toBe(200);
    expect((await as(SESSION_COOKIE)).status).toBe(401);
  });
});
