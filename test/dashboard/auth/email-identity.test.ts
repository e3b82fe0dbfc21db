// E-mail identity at sign-in, through a real OpenID provider that vouches for addresses exactly
// as given (test/helpers/oidc-provider.ts): a verified \u212Aim@b.test (Kelvin sign) used to be lower-cased into kim@b.test and
// took kim's owner invitation and operator powers; root@localhost was a 500 after its user row
// was written. Both are now refused with a sentence, before anything is written; kim, in any
// letter case, is kim.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OperatorKeysStore } from '../../../src/tenancy/operator-keys-store.js';
import type { SqlControlPlaneStore } from '../../../src/tenancy/sql-store.js';
import { freePort } from '../../helpers/http.js';
import { createTestEnv, destroyTestEnv, startTestNode, type TestEnv, type TestNode } from '../../helpers/node.js';
import { CookieJar, startOidcProvider, type TestOidcProvider } from '../../helpers/oidc-provider.js';
import { BASE, SESSION_COOKIE } from './harness.js';

const KELVIN = '\u212Aim@b.test';

describe('e-mail identity at sign-in', () => {
  let t: TestEnv;
  let node: TestNode;
  let idp: TestOidcProvider;
  let url: string;
  let op: Record<string, string>;

  beforeAll(async () => {
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    const client = { clientId: 'docparse-dashboard', clientSecret: randomBytes(16).toString('hex'), redirectUris: [`${url}${BASE}/auth/callback`] };
    idp = await startOidcProvider({ clients: [client] });
    t = await createTestEnv('embedded', {
      PORT: String(port),
      DOCPARSE_BASE_URL: url,
      DOCPARSE_SEED_DEMO: 'false',
      DOCPARSE_OPERATOR_EMAILS: 'kim@b.test',
      DOCPARSE_OIDC_ISSUER: idp.issuer,
      DOCPARSE_OIDC_CLIENT_ID: client.clientId,
      DOCPARSE_OIDC_CLIENT_SECRET: client.clientSecret,
    });
    node = await startTestNode(t);
    op = { authorization: `Bearer ${(await new OperatorKeysStore(db().db).create('identity')).key}`, 'content-type': 'application/json' };
  }, 120_000);
  afterAll(async () => {
    await node?.close();
    await idp?.stop();
    if (t) await destroyTestEnv(t);
  });

  const db = () => node.node.controlPlane as SqlControlPlaneStore;
  const users = async () => (await db().db.query<{ email: string }>('SELECT email FROM dashboard_users ORDER BY email')).rows.map((r) => r.email);
  const manage = async (method: string, path: string, headers: Record<string, string>, body?: unknown) => {
    const res = await fetch(`${url}/manage/v1${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: await res.json() };
  };

  /** A sign-in as `email` up to the dashboard's answer at the callback. */
  async function signIn(email: string, accept = 'application/json'): Promise<{ jar: CookieJar; res: Response }> {
    const jar = new CookieJar();
    const start = await jar.fetch(`${url}${BASE}/auth/login`);
    expect(start.status).toBe(303);
    const back = await idp.signIn(start.headers.get('location')!, email);
    return { jar, res: await jar.fetch(back, { headers: { accept } }) };
  }
  const sessionOf = async (jar: CookieJar) => {
    const res = await jar.fetch(`${url}${BASE}/auth/session`);
    return { status: res.status, body: await res.json() };
  };

  it("a verified \\u212Aim@b.test (Kelvin sign) is refused: it takes neither kim@b.test's owner invitation nor kim's operator powers, and nothing is written", async () => {
    const tenant = (await manage('POST', '/tenants', op, { name: 'Kim Co', contactEmail: 'kim@b.test' })).body;
    const before = await users();

    const { jar, res } = await signIn(KELVIN);
    const body = await res.json();
    expect(res.status, JSON.stringify(body)).toBe(403);
    expect(body.code).toBe('email_not_usable');
    expect(body.detail).toMatch(/U\+212A \(Kelvin sign\).*NFKC.*"K"/);
    expect(res.headers.getSetCookie().filter((c) => c.startsWith(`${SESSION_COOKIE}=`))).toEqual([]);
    expect((await sessionOf(jar)).status).toBe(401);
    expect(await users()).toEqual(before);
    expect((await manage('GET', `/tenants/${tenant.id}/members`, op)).body.invitations).toEqual([
      expect.objectContaining({ email: 'kim@b.test', role: 'owner', acceptedAt: null }),
    ]);

    // A browser is told the same in a page.
    const page = (await signIn(KELVIN, 'text/html')).res;
    expect(page.status).toBe(403);
    expect(await page.text()).toContain('Kelvin sign');

    // kim, however the letters are cased, is kim: the invitation and the operator's powers are theirs.
    const kim = await signIn('Kim@B.Test');
    expect(kim.res.status).toBe(303);
    expect((await sessionOf(kim.jar)).body).toMatchObject({ email: 'kim@b.test', operator: true });
    const tenants = await kim.jar.fetch(`${url}/manage/v1/tenants`);
    expect(((await tenants.json()) as any).items.map((x: any) => x.id)).toContain(tenant.id);
    expect((await kim.jar.fetch(`${url}/manage/v1/operator-keys`)).status).toBe(200); // operators only
    expect(await users()).toEqual([...before, 'kim@b.test'].sort());
  });

  it('a verified root@localhost is refused with a sentence, and no user row is written', async () => {
    const before = await users();
    const { jar, res } = await signIn('root@localhost');
    const body = await res.json();
    expect(res.status, JSON.stringify(body)).toBe(403);
    expect(body).toMatchObject({ code: 'email_not_usable', title: 'E-mail address not usable' });
    expect(body.detail).toMatch(/"root@localhost".*its domain "localhost" has no dot/);
    expect((await sessionOf(jar)).status).toBe(401);
    expect(await users()).toEqual(before);
  });

  it('the management API refuses to invite the Kelvin-sign address, naming the field', async () => {
    const tenant = (await manage('POST', '/tenants', op, { name: 'Invites Co' })).body;
    const r = await manage('POST', `/tenants/${tenant.id}/invitations`, op, { email: KELVIN, role: 'owner' });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'invalid_parameter', parameter: 'email' });
    expect(r.body.detail).toMatch(/U\+212A \(Kelvin sign\)/);
    expect((await manage('GET', `/tenants/${tenant.id}/members`, op)).body.invitations).toEqual([]);
  });
});
