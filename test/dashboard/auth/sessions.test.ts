// Dashboard sessions as a user notices them: the management API takes the session cookie
// (reads freely, changes only with the session's CSRF token), a member sees only their own
// tenants, sign-out and sign-out everywhere kill cookies for good, and sessions end after the
// idle time (renewed by use) and the absolute lifetime. Expiry is reached by moving the stored
// session's times back, not by waiting.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OperatorKeysStore } from '../../../src/tenancy/operator-keys-store.js';
import { BASE, CookieJar, FORM, OPERATOR_EMAIL, SESSION_COOKIE, startSignInRig, type SignInRig } from './harness.js';

describe('dashboard sessions', () => {
  let rig: SignInRig;
  let op: Record<string, string>;

  beforeAll(async () => {
    rig = await startSignInRig({ env: { DOCPARSE_SESSION_IDLE_MINUTES: '1', DOCPARSE_SESSION_MAX_HOURS: '1' } });
    op = { authorization: `Bearer ${(await new OperatorKeysStore(rig.db).create('sessions test')).key}` };
  });
  afterAll(async () => {
    await rig?.close();
  });

  const csrfOf = async (jar: CookieJar) => (await rig.session(jar)).body.csrfToken as string;
  const sessionRow = (jar: CookieJar) => createHash('sha256').update(jar.get(rig.url, SESSION_COOKIE)!).digest('hex');
  const post = (jar: CookieJar, path: string, form: Record<string, string>) =>
    jar.fetch(`${rig.dashboardUrl}${path}`, { method: 'POST', headers: FORM, body: new URLSearchParams(form) });
  /** Moves the stored session's times back (as if that much time had passed). */
  const age = (jar: CookieJar, column: 'last_seen_at' | 'created_at', seconds: number) =>
    rig.db.query(`UPDATE dashboard_sessions SET ${column} = now() - make_interval(secs => $2) WHERE id_sha256 = $1`, [sessionRow(jar), seconds]);

  it('the management API takes the session cookie: reads work; a change needs the CSRF token (403 csrf_failed without or with a wrong one)', async () => {
    const { jar } = await rig.signIn('alice@acme.test');
    expect((await rig.manage(jar, 'GET', '/tenants')).status).toBe(200);
    const csrf = await csrfOf(jar);

    const without = await rig.manage(jar, 'POST', '/tenants', { name: 'No token' });
    expect(without.status).toBe(403);
    expect(without.body.code).toBe('csrf_failed');
    const wrong = await rig.manage(
      jar,
      'POST',
      '/tenants',
      { name: 'Wrong token' },
      { 'x-csrf-token': csrf.slice(0, -2) + (csrf.endsWith('AA') ? 'BB' : 'AA') },
    );
    expect(wrong.body.code).toBe('csrf_failed');
    // Another session's token is no good either.
    const other = await rig.signIn('alice@acme.test');
    expect((await rig.manage(jar, 'POST', '/tenants', { name: 'Other token' }, { 'x-csrf-token': await csrfOf(other.jar) })).body.code).toBe('csrf_failed');
    expect((await rig.manage(jar, 'GET', '/tenants')).body.items).toEqual([]);

    const made = await rig.manage(jar, 'POST', '/tenants', { name: 'With token' }, { 'x-csrf-token': csrf });
    expect(made.status).toBe(201);
    expect((await rig.manage(jar, 'GET', '/tenants')).body.items.map((t: any) => t.name)).toEqual(['With token']);
    // An operator key is no ambient credential: it needs no CSRF token.
    expect((await rig.manage(new CookieJar(), 'POST', '/tenants', { name: 'By key' }, op)).status).toBe(201);
  });

  it('a member of tenant A can neither see nor change tenant B through the session', async () => {
    const anon = new CookieJar();
    const a = (await rig.manage(anon, 'POST', '/tenants', { name: 'Tenant A' }, op)).body;
    const b = (await rig.manage(anon, 'POST', '/tenants', { name: 'Tenant B' }, op)).body;
    await rig.manage(anon, 'POST', `/tenants/${a.id}/activate`, undefined, op);
    await rig.manage(anon, 'POST', `/tenants/${b.id}/activate`, undefined, op);
    await rig.manage(anon, 'POST', `/tenants/${a.id}/invitations`, { email: 'bob@a.test', role: 'owner' }, op);
    const bApp = (await rig.manage(anon, 'POST', `/tenants/${b.id}/apps`, { name: 'b-app', licenseRegion: 'local', dbCode: 'b' }, op)).body.app;
    expect(bApp.id).toBeTruthy();

    const { jar } = await rig.signIn('bob@a.test');
    const csrf = { 'x-csrf-token': await csrfOf(jar) };
    expect((await rig.manage(jar, 'GET', '/tenants')).body.items.map((t: any) => t.id)).toEqual([a.id]);
    expect((await rig.manage(jar, 'POST', `/tenants/${a.id}/apps`, { name: 'a-app', licenseRegion: 'local' }, csrf)).status).toBe(201);
    for (const [method, path, body] of [
      ['GET', `/tenants/${b.id}`],
      ['GET', `/tenants/${b.id}/members`],
      ['GET', `/apps/${bApp.id}`],
      ['POST', `/tenants/${b.id}/apps`, { name: 'intruder', licenseRegion: 'local' }],
      ['POST', `/tenants/${b.id}/invitations`, { email: 'bob@a.test', role: 'owner' }],
      ['POST', `/apps/${bApp.id}/disable`],
      ['POST', `/apps/${bApp.id}/rotate-secret`],
    ] as const) {
      const r = await rig.manage(jar, method, path, body, csrf);
      expect(r.status, `${method} ${path}`).toBe(404);
    }
    // B's apps are not in any list the member gets, and B's app is as it was.
    expect((await rig.manage(jar, 'GET', `/apps?tenantId=${b.id}`)).body.items).toEqual([]);
    expect((await rig.manage(jar, 'GET', '/apps')).body.items.map((x: any) => x.name)).toEqual(['a-app']);
    expect((await rig.manage(anon, 'GET', `/apps/${bApp.id}`, undefined, op)).body.enabled).toBe(true);
    expect((await rig.manage(anon, 'GET', `/apps?tenantId=${b.id}`, undefined, op)).body.items.map((x: any) => x.name)).toEqual(['b-app']);
  });

  it('sign-out needs the CSRF token, then kills the cookie for good (the API and the dashboard answer 401)', async () => {
    const { jar } = await rig.signIn('carol@acme.test');
    const cookie = jar.get(rig.url, SESSION_COOKIE)!;
    const csrf = await csrfOf(jar);

    const refused = await post(jar, '/auth/logout', {});
    expect(refused.status).toBe(403);
    expect((await refused.json()).code).toBe('csrf_failed');
    expect((await rig.session(jar)).status).toBe(200);

    const out = await post(jar, '/auth/logout', { _csrf: csrf });
    expect(out.status).toBe(303);
    expect(out.headers.get('location')).toBe(`${BASE}/auth/signed-out`);
    expect(out.headers.getSetCookie()).toEqual([`${SESSION_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax`]);
    // The browser dropped it; someone who kept a copy has nothing either.
    const kept = new CookieJar();
    kept.set(rig.url, SESSION_COOKIE, cookie);
    expect((await rig.session(kept)).status).toBe(401);
    const api = await rig.manage(kept, 'GET', '/tenants');
    expect(api.status).toBe(401);
    expect(api.body.code).toBe('missing_credentials');
    const page = await kept.fetch(`${rig.dashboardUrl}/`);
    expect(page.status).toBe(303);
    expect(page.headers.get('location')).toMatch(new RegExp(`^${BASE}/auth/login\\?next=`));
  });

  it("sign-out everywhere ends every session of the user (scripts send the token as X-CSRF-Token), and no one else's", async () => {
    const laptop = await rig.signIn('dave@acme.test');
    const phone = await rig.signIn('dave@acme.test');
    const someoneElse = await rig.signIn('eve@acme.test');
    const out = await laptop.jar.fetch(`${rig.dashboardUrl}/auth/logout-everywhere`, { method: 'POST', headers: { 'x-csrf-token': await csrfOf(laptop.jar) } });
    expect(out.status).toBe(303);
    expect((await rig.session(laptop.jar)).status).toBe(401);
    expect((await rig.session(phone.jar)).status).toBe(401);
    expect((await rig.manage(phone.jar, 'GET', '/tenants')).status).toBe(401);
    expect((await rig.session(someoneElse.jar)).status).toBe(200);
  });

  it('a sign-in ends the session the browser had before: a new id each time', async () => {
    const { jar } = await rig.signIn('frank@acme.test');
    const before = jar.get(rig.url, SESSION_COOKIE)!;
    await rig.signIn('frank@acme.test', jar);
    const after = jar.get(rig.url, SESSION_COOKIE)!;
    expect(after).not.toBe(before);
    const old = new CookieJar();
    old.set(rig.url, SESSION_COOKIE, before);
    expect((await rig.session(old)).status).toBe(401);
    expect((await rig.session(jar)).status).toBe(200);
  });

  it('idle expiry: use renews the session; a minute without a request ends it', async () => {
    const { jar } = await rig.signIn('grace@acme.test');
    await age(jar, 'last_seen_at', 50);
    expect((await rig.manage(jar, 'GET', '/tenants')).status).toBe(200);
    const { rows } = await rig.db.query<{ idle: number }>(
      'SELECT extract(epoch FROM now() - last_seen_at) AS idle FROM dashboard_sessions WHERE id_sha256 = $1',
      [sessionRow(jar)],
    );
    expect(Number(rows[0].idle)).toBeLessThan(10);
    await age(jar, 'last_seen_at', 50);
    expect((await rig.session(jar)).status).toBe(200);
    await age(jar, 'last_seen_at', 61);
    expect((await rig.manage(jar, 'GET', '/tenants')).status).toBe(401);
    expect((await rig.session(jar)).status).toBe(401);
    // Dead is dead: a later request does not bring it back.
    expect((await rig.db.query('SELECT 1 FROM dashboard_sessions WHERE id_sha256 = $1', [sessionRow(jar)])).rows).toEqual([]);
  });

  it('absolute expiry: an hour after sign-in the session ends, however active', async () => {
    const { jar } = await rig.signIn('heidi@acme.test');
    await age(jar, 'created_at', 59 * 60);
    expect((await rig.session(jar)).status).toBe(200);
    await age(jar, 'created_at', 61 * 60);
    expect((await rig.session(jar)).status).toBe(401);
    expect((await rig.manage(jar, 'GET', '/tenants')).status).toBe(401);
  });

  it('a user listed in DOCPARSE_OPERATOR_EMAILS is a platform operator through the session, and /auth/session says so', async () => {
    const { jar } = await rig.signIn(OPERATOR_EMAIL);
    expect((await rig.session(jar)).body).toMatchObject({ email: OPERATOR_EMAIL, operator: true });
    expect((await rig.session((await rig.signIn('ivan@acme.test')).jar)).body).toMatchObject({ email: 'ivan@acme.test', operator: false });
    const all = (await rig.manage(jar, 'GET', '/tenants')).body.items;
    expect(all.length).toBeGreaterThanOrEqual(3);
    const plan = await rig.manage(jar, 'POST', '/plans', { name: 'from the dashboard', maxDocumentUnitsPerMonth: 10 }, { 'x-csrf-token': await csrfOf(jar) });
    expect(plan.status).toBe(201);
  });
});
