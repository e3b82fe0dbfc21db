// Sessions live in the control plane (PostgreSQL here), not in a node: two nodes sharing it
// serve the same session, and a sign-out on one is a dead cookie on the other at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../helpers/http.js';
import { startTestNode, type TestNode } from '../../helpers/node.js';
import { CookieJar, SESSION_COOKIE, startSignInRig, type SignInRig } from './harness.js';

describe('dashboard sessions across nodes (PostgreSQL + Redis)', () => {
  let rig: SignInRig;
  let second: TestNode;
  let secondUrl: string;

  beforeAll(async () => {
    rig = await startSignInRig({ mode: 'distributed' });
    const port = await freePort();
    secondUrl = `http://127.0.0.1:${port}`;
    second = await startTestNode(rig.t, { PORT: String(port), DOCPARSE_BASE_URL: secondUrl, DOCPARSE_DASHBOARD_URL: rig.dashboardUrl });
  });
  afterAll(async () => {
    await second?.close();
    await rig?.close();
  });

  it('a session opened on one node works on the other; signed out there, it is dead on both', async () => {
    const { jar } = await rig.signIn('alice@acme.test');
    // The same browser talking to the other node (as behind a load balancer).
    const elsewhere = new CookieJar();
    elsewhere.set(secondUrl, SESSION_COOKIE, jar.get(rig.url, SESSION_COOKIE)!);
    const there = await elsewhere.fetch(`${secondUrl}/dashboard/auth/session`);
    expect(there.status).toBe(200);
    const { email, csrfToken } = (await there.json()) as { email: string; csrfToken: string };
    expect(email).toBe('alice@acme.test');
    expect((await elsewhere.fetch(`${secondUrl}/manage/v1/tenants`)).status).toBe(200);

    const out = await elsewhere.fetch(`${secondUrl}/dashboard/auth/logout`, { method: 'POST', headers: { 'x-csrf-token': csrfToken } });
    expect(out.status).toBe(303);
    expect((await rig.session(jar)).status).toBe(401);
    expect((await rig.manage(jar, 'GET', '/tenants')).status).toBe(401);
  });
});
