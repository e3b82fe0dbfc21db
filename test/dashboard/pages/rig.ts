// A node with the embedded default and the dashboard signed in through a local OpenID
// provider (test/helpers/oidc-provider.ts, standing in for Google), for the page tests.
// signIn goes through the real flow over HTTP: /dashboard/auth/login → the provider's sign-in
// → /dashboard/auth/callback, and keeps the session cookie it was given.
import { CookieJar, startOidcProvider, type TestOidcProvider } from '../../helpers/oidc-provider.js';
import { createTestEnv, destroyTestEnv, startTestNode, type TestEnv, type TestNode } from '../../helpers/node.js';
import { freePort } from '../../helpers/servers.js';

export interface DashboardRig {
  base: string;
  env: TestEnv;
  node: TestNode;
  provider: TestOidcProvider;
  close(): Promise<void>;
}

export interface SignedInClient {
  email: string;
  /** The Cookie header the browser would send to the dashboard. */
  cookie: string;
  /** The session cookie itself, for a browser profile. */
  sessionCookie: { name: string; value: string };
}

export async function startDashboardRig(extraEnv: Record<string, string> = {}): Promise<DashboardRig> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const client = { clientId: 'docparse-dashboard', clientSecret: 'test-client-secret-0123456789', redirectUris: [`${base}/dashboard/auth/callback`] };
  const provider = await startOidcProvider({ clients: [client] });
  const env = await createTestEnv('embedded', {
    PORT: String(port),
    HOST: '127.0.0.1',
    DOCPARSE_BASE_URL: base,
    DOCPARSE_SEED_DEMO: 'false',
    DOCPARSE_OIDC_ISSUER: provider.issuer,
    DOCPARSE_OIDC_CLIENT_ID: client.clientId,
    DOCPARSE_OIDC_CLIENT_SECRET: client.clientSecret,
    ...extraEnv,
  });
  const node = await startTestNode(env);
  return {
    base,
    env,
    node,
    provider,
    close: async () => {
      await node.close();
      await provider.stop();
      await destroyTestEnv(env);
    },
  };
}

/** Signs in as `email` the way a browser does, over HTTP; returns the session's cookie. */
export async function signIn(rig: DashboardRig, email: string): Promise<SignedInClient> {
  const jar = new CookieJar();
  const start = await jar.fetch(`${rig.base}/dashboard/auth/login?next=/dashboard/plans`);
  if (start.status !== 303 && start.status !== 302) throw new Error(`sign-in start: ${start.status} ${await start.text()}`);
  const back = await rig.provider.signIn(new URL(start.headers.get('location')!, rig.base).toString(), email);
  const done = await jar.fetch(back);
  if (done.status !== 303 && done.status !== 302) throw new Error(`sign-in callback: ${done.status} ${await done.text()}`);
  const cookie = jar.header(rig.base);
  const [name, value] = cookie
    .split(';')
    .map((c) => c.trim())
    .find((c) => c.includes('session'))!
    .split('=');
  return { email, cookie, sessionCookie: { name, value } };
}
