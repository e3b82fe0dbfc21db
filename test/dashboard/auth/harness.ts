// A node with dashboard sign-in through a real local OpenID provider, and a fetch-driven
// "browser" (a cookie jar, redirects followed by hand) to sign in with.
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { Role } from '../../../src/config.js';
import type { SqlControlPlaneStore } from '../../../src/tenancy/sql-store.js';
import type { SqlClient } from '../../../src/db/sql.js';
import { freePort } from '../../helpers/http.js';
import { createTestEnv, destroyTestEnv, startTestNode, type Mode, type TestEnv, type TestNode } from '../../helpers/node.js';
import { CookieJar, startOidcProvider, type OidcTestClient, type TestOidcProvider } from '../../helpers/oidc-provider.js';

export { CookieJar };

export const OPERATOR_EMAIL = 'root@ops.test';
export const BASE = '/dashboard';
export const SESSION_COOKIE = 'docparse_session';
export const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

/** What a browser sends with a form posted from a page of `origin` to that same origin (Chromium, Firefox, Safari today). */
export const postedFrom = (origin: string) => ({ origin, 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' });

export interface SignInRig {
  t: TestEnv;
  node: TestNode;
  idp: TestOidcProvider;
  /** The node's address (also {base_url}). */
  url: string;
  dashboardUrl: string;
  /** The dashboard's OIDC client at the provider, and another client registered there. */
  client: OidcTestClient;
  otherClient: OidcTestClient;
  db: SqlClient;
  /** Starts a sign-in at the dashboard: the provider URL the browser is sent to. */
  startSignIn(jar: CookieJar, next?: string): Promise<string>;
  /** Opens the provider's redirect back at the dashboard. */
  openCallback(jar: CookieJar, callbackUrl: string): Promise<Response>;
  /** A full sign-in as `email`: the browser ends up with a session cookie. */
  signIn(email: string, jar?: CookieJar, next?: string): Promise<{ jar: CookieJar; response: Response }>;
  /** GET {dashboard}/auth/session with the browser's cookies. */
  session(jar: CookieJar): Promise<{ status: number; body: any }>;
  /** A call to the management API with the browser's cookies (and optional extra headers). */
  manage(jar: CookieJar, method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

export async function startSignInRig(
  opts: {
    mode?: Mode;
    env?: Record<string, string>;
    roles?: Role[];
    /** The provider gives email claims at UserInfo only. */ conformIdTokenClaims?: boolean;
  } = {},
): Promise<SignInRig> {
  const t = await createTestEnv(opts.mode ?? 'embedded', { DOCPARSE_OPERATOR_EMAILS: OPERATOR_EMAIL, DOCPARSE_SEED_DEMO: 'false', ...opts.env });
  // The redirect URI names the node's port: chosen just before the node takes it.
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const dashboardUrl = `${url}${BASE}`;
  const client: OidcTestClient = {
    clientId: 'docparse-dashboard',
    clientSecret: randomBytes(16).toString('hex'),
    redirectUris: [`${dashboardUrl}/auth/callback`],
  };
  const otherClient: OidcTestClient = {
    clientId: 'another-app',
    clientSecret: randomBytes(16).toString('hex'),
    redirectUris: ['http://127.0.0.1:9/elsewhere/callback'],
  };
  const idp = await startOidcProvider({ clients: [client, otherClient], conformIdTokenClaims: opts.conformIdTokenClaims });
  Object.assign(t.env, {
    PORT: String(port),
    DOCPARSE_BASE_URL: url,
    DOCPARSE_OIDC_ISSUER: idp.issuer,
    DOCPARSE_OIDC_CLIENT_ID: client.clientId,
    DOCPARSE_OIDC_CLIENT_SECRET: client.clientSecret,
  });
  const node = await startTestNode(t, {}, opts.roles);
  const db = (node.node.controlPlane as SqlControlPlaneStore).db;

  const startSignIn = async (jar: CookieJar, next?: string) => {
    const res = await jar.fetch(`${dashboardUrl}/auth/login${next ? `?next=${encodeURIComponent(next)}` : ''}`);
    expect(res.status, await res.clone().text()).toBe(303);
    const location = res.headers.get('location')!;
    expect(location.startsWith(`${idp.issuer}/auth?`)).toBe(true);
    return location;
  };
  const openCallback = (jar: CookieJar, callbackUrl: string) => jar.fetch(callbackUrl, { headers: { accept: 'application/json' } });

  const rig: SignInRig = {
    t,
    node,
    idp,
    url,
    dashboardUrl,
    client,
    otherClient,
    db,
    startSignIn,
    openCallback,
    async signIn(email, jar = new CookieJar(), next) {
      const back = await idp.signIn(await startSignIn(jar, next), email);
      const response = await openCallback(jar, back);
      expect(response.status, await response.clone().text()).toBe(303);
      return { jar, response };
    },
    async session(jar) {
      const res = await jar.fetch(`${dashboardUrl}/auth/session`);
      return { status: res.status, body: await res.json() };
    },
    async manage(jar, method, path, body, headers = {}) {
      const res = await jar.fetch(`${url}/manage/v1${path}`, {
        method,
        headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null };
    },
    async close() {
      await node.close();
      await idp.stop();
      await destroyTestEnv(t);
    },
  };
  return rig;
}
