// Sign-in through a real OpenID provider (oidc-provider on 127.0.0.1), over real HTTP with the
// redirects followed by hand: the whole flow, and every way a sign-in must be refused — a
// forged, replayed or other browser's state, an ID token for another sign-in (nonce), for
// another client (audience), from another provider (issuer), or altered (signature), an
// unverified e-mail address, and a `next` that leads out of the dashboard.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OperatorKeysStore } from '../../../src/tenancy/operator-keys-store.js';
import { startOidcProvider, type TestOidcProvider } from '../../helpers/oidc-provider.js';
import { BASE, CookieJar, OPERATOR_EMAIL, SESSION_COOKIE, startSignInRig, type SignInRig } from './harness.js';

describe('dashboard sign-in through OpenID Connect', () => {
  let rig: SignInRig;
  let operatorKey: string;

  beforeAll(async () => {
    rig = await startSignInRig();
    operatorKey = (await new OperatorKeysStore(rig.db).create('oidc test')).key;
  });
  afterAll(async () => {
    await rig?.close();
  });

  /** A sign-in that must fail: no session cookie, and the browser has no session. */
  async function expectRefused(jar: CookieJar, res: Response, status: number, code: string): Promise<any> {
    const body = await res.json();
    expect(res.status, JSON.stringify(body)).toBe(status);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(body.code).toBe(code);
    expect(res.headers.getSetCookie().filter((c) => c.startsWith(`${SESSION_COOKIE}=`))).toEqual([]);
    expect((await rig.session(jar)).status).toBe(401);
    return body;
  }

  it('signs in with the authorization code flow (PKCE, state, nonce) and lands on `next`; the session cookie is HttpOnly, SameSite=Lax, Path=/', async () => {
    const jar = new CookieJar();
    const providerUrl = new URL(await rig.startSignIn(jar, `${BASE}/tenants?tab=apps`));
    const q = providerUrl.searchParams;
    expect(q.get('client_id')).toBe(rig.client.clientId);
    expect(q.get('redirect_uri')).toBe(`${rig.dashboardUrl}/auth/callback`);
    expect(q.get('response_type')).toBe('code');
    expect(q.get('code_challenge_method')).toBe('S256');
    expect(q.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(q.get('state')).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(q.get('nonce')).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(q.get('scope')!.split(' ')).toEqual(expect.arrayContaining(['openid', 'email']));

    const back = await rig.idp.signIn(providerUrl.toString(), 'alice@acme.test');
    const res = await rig.openCallback(jar, back);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`${BASE}/tenants?tab=apps`);
    const [cookie] = res.headers.getSetCookie().filter((c) => c.startsWith(`${SESSION_COOKIE}=`));
    const attrs = cookie.split(';').map((a) => a.trim());
    expect(attrs[0]).toMatch(new RegExp(`^${SESSION_COOKIE}=[A-Za-z0-9_-]{43}$`));
    expect(attrs).toEqual(expect.arrayContaining(['Path=/', 'HttpOnly', 'SameSite=Lax', `Max-Age=${24 * 3600}`]));
    expect(attrs).not.toContain('Secure'); // http://127.0.0.1: a Secure cookie would never come back

    const session = await rig.session(jar);
    expect(session.status).toBe(200);
    expect(session.body).toMatchObject({ email: 'alice@acme.test', operator: false, name: 'alice' });
    expect((await rig.manage(jar, 'GET', '/tenants')).status).toBe(200);
  });

  it('the same person signing in again is the same user (issuer, subject); a new session id every time', async () => {
    const first = await rig.signIn('dora@acme.test');
    const again = await rig.signIn('dora@acme.test');
    const [a, b] = [await rig.session(first.jar), await rig.session(again.jar)];
    expect(a.body.userId).toBe(b.body.userId);
    expect(first.jar.get(rig.url, SESSION_COOKIE)).not.toBe(again.jar.get(rig.url, SESSION_COOKIE));
    const { rows } = await rig.db.query<{ issuer: string; subject: string }>('SELECT issuer, subject FROM dashboard_users WHERE id = $1', [a.body.userId]);
    expect(rows).toEqual([{ issuer: rig.idp.issuer, subject: rig.idp.subjectOf('dora@acme.test') }]);
  });

  it("accepts the pending invitations of the user's address at sign-in", async () => {
    const op = { authorization: `Bearer ${operatorKey}` };
    const anon = new CookieJar();
    const tenant = (await rig.manage(anon, 'POST', '/tenants', { name: 'Invited Co' }, op)).body;
    expect((await rig.manage(anon, 'POST', `/tenants/${tenant.id}/invitations`, { email: 'Erin@Invited.test', role: 'owner' }, op)).status).toBe(201);
    const { jar } = await rig.signIn('erin@invited.test');
    const listed = await rig.manage(jar, 'GET', '/tenants');
    expect(listed.body.items.map((t: any) => t.id)).toEqual([tenant.id]);
    const members = await rig.manage(jar, 'GET', `/tenants/${tenant.id}/members`);
    expect(members.body.members).toEqual([
      expect.objectContaining({ email: 'erin@invited.test', role: 'owner', userId: (await rig.session(jar)).body.userId }),
    ]);
    expect(members.body.invitations).toEqual([]);
  });

  it('refuses a forged state; the genuine callback then works once, and its replay is refused', async () => {
    const jar = new CookieJar();
    const back = new URL(await rig.idp.signIn(await rig.startSignIn(jar), 'frank@acme.test'));
    const forged = new URL(back);
    forged.searchParams.set('state', 'forged-state-0123456789abcdefghij');
    const refused = await expectRefused(jar, await rig.openCallback(jar, forged.toString()), 400, 'sign_in_request_invalid');
    expect(refused.detail).toMatch(/unknown|finished already/);

    expect((await rig.openCallback(jar, back.toString())).status).toBe(303);
    expect((await rig.session(jar)).body.email).toBe('frank@acme.test');

    const replayJar = new CookieJar();
    for (const name of ['docparse_sign_in']) replayJar.set(rig.url, name, jar.get(rig.url, name)!);
    await expectRefused(replayJar, await rig.openCallback(replayJar, back.toString()), 400, 'sign_in_request_invalid');
  });

  it('refuses a callback opened in another browser than the one that started the sign-in (login CSRF)', async () => {
    const victim = new CookieJar();
    const attacker = new CookieJar();
    const back = await rig.idp.signIn(await rig.startSignIn(attacker), 'mallory@evil.test');
    const body = await expectRefused(victim, await rig.openCallback(victim, back), 400, 'sign_in_request_invalid');
    expect(body.detail).toMatch(/another browser/);
    // The attempt used the sign-in up: not even its own browser can finish it now.
    await expectRefused(attacker, await rig.openCallback(attacker, back), 400, 'sign_in_request_invalid');
  });

  it("refuses an ID token minted for another sign-in of the same client (its nonce is not this sign-in's)", async () => {
    const other = await rig.idp.obtainTokens({ client: rig.client, email: 'grace@acme.test', nonce: 'a-nonce-of-another-sign-in' });
    const jar = new CookieJar();
    const back = await rig.idp.signIn(await rig.startSignIn(jar), 'grace@acme.test');
    rig.idp.replaceNextTokenResponse(() => other);
    const body = await expectRefused(jar, await rig.openCallback(jar, back), 403, 'sign_in_failed');
    expect(body.detail).toMatch(/nonce/);
  });

  it('refuses an ID token issued to another client (audience)', async () => {
    const other = await rig.idp.obtainTokens({ client: rig.otherClient, email: 'heidi@acme.test' });
    const jar = new CookieJar();
    const back = await rig.idp.signIn(await rig.startSignIn(jar), 'heidi@acme.test');
    rig.idp.replaceNextTokenResponse(() => other);
    const body = await expectRefused(jar, await rig.openCallback(jar, back), 403, 'sign_in_failed');
    expect(body.detail).toMatch(/aud/);
  });

  it('refuses an ID token from another provider (issuer), even for the same client id', async () => {
    let impostor: TestOidcProvider | null = null;
    try {
      impostor = await startOidcProvider({ clients: [rig.client] });
      const foreign = await impostor.obtainTokens({ client: rig.client, email: 'ivan@acme.test' });
      const jar = new CookieJar();
      const back = await rig.idp.signIn(await rig.startSignIn(jar), 'ivan@acme.test');
      rig.idp.replaceNextTokenResponse(() => foreign);
      const body = await expectRefused(jar, await rig.openCallback(jar, back), 403, 'sign_in_failed');
      expect(body.detail).toMatch(/iss|key|signature/i);
    } finally {
      await impostor?.stop();
    }
  });

  it("refuses an ID token whose claims were altered after signing (the signature is checked against the provider's JWKS)", async () => {
    const jar = new CookieJar();
    const back = await rig.idp.signIn(await rig.startSignIn(jar), 'judy@acme.test');
    // The genuine answer with the e-mail address changed to an operator's: everything but the signature is right.
    rig.idp.replaceNextTokenResponse((genuine) => {
      const [header, payload, signature] = String(genuine.id_token).split('.');
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      expect(claims.email).toBe('judy@acme.test');
      claims.email = OPERATOR_EMAIL;
      return { ...genuine, id_token: [header, Buffer.from(JSON.stringify(claims)).toString('base64url'), signature].join('.') };
    });
    const body = await expectRefused(jar, await rig.openCallback(jar, back), 403, 'sign_in_failed');
    expect(body.detail).toMatch(/signature/i);
    const { rows } = await rig.db.query('SELECT 1 FROM dashboard_users WHERE email = $1', [OPERATOR_EMAIL]);
    expect(rows).toEqual([]);
  });

  it('refuses an account whose e-mail address the provider has not verified', async () => {
    rig.idp.addAccount({ email: 'unverified@acme.test', emailVerified: false });
    const jar = new CookieJar();
    const back = await rig.idp.signIn(await rig.startSignIn(jar), 'unverified@acme.test');
    await expectRefused(jar, await rig.openCallback(jar, back), 403, 'email_not_verified');
  });

  it('refuses a `next` that leads out of the dashboard (no open redirect)', async () => {
    for (const next of [
      'https://evil.test/',
      '//evil.test/x',
      '/\\evil.test',
      `${BASE}/../manage/v1/tenants`,
      '/manage/v1/tenants',
      `${BASE}-evil/`,
      `${BASE}/auth/logout`,
      'javascript:alert(1)',
    ]) {
      const res = await fetch(`${rig.dashboardUrl}/auth/login?next=${encodeURIComponent(next)}`, { redirect: 'manual' });
      expect(res.status, next).toBe(400);
      expect(res.headers.get('location'), next).toBeNull();
      expect((await res.json()).parameter).toBe('next');
    }
  });

  it('a refusal reaches a browser as an HTML page with a way to start again', async () => {
    const res = await fetch(`${rig.dashboardUrl}/auth/callback?state=nothing&code=nothing`, { headers: { accept: 'text/html' } });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    const html = await res.text();
    expect(html).toContain('Sign-in not recognised');
    expect(html).toContain(`href="${BASE}/auth/login"`);
  });
});

describe('dashboard sign-in with a provider that gives e-mail claims at UserInfo only', () => {
  let rig: SignInRig;
  beforeAll(async () => {
    rig = await startSignInRig({ conformIdTokenClaims: true });
  });
  afterAll(async () => {
    await rig?.close();
  });

  it('reads email and email_verified from the UserInfo endpoint', async () => {
    const tokens = await rig.idp.obtainTokens({ client: rig.client, email: 'kim@acme.test' });
    const idToken = JSON.parse(Buffer.from(String(tokens.id_token).split('.')[1], 'base64url').toString('utf8'));
    expect(idToken.email).toBeUndefined();
    const { jar } = await rig.signIn('kim@acme.test');
    expect((await rig.session(jar)).body).toMatchObject({ email: 'kim@acme.test', name: 'kim' });

    rig.idp.addAccount({ email: 'lee@acme.test', emailVerified: false });
    const other = new CookieJar();
    const back = await rig.idp.signIn(await rig.startSignIn(other), 'lee@acme.test');
    const refused = await rig.openCallback(other, back);
    expect(refused.status).toBe(403);
    expect((await refused.json()).code).toBe('email_not_verified');
  });
});
