// A real OpenID provider for tests (the `oidc-provider` package standing in for Google), on
// 127.0.0.1 with a random port. Its sign-in page asks for an e-mail address only: a browser
// (Playwright) fills it in, or `signIn` does it over fetch. Accounts are made on first sign-in
// (e-mail verified) unless registered first with addAccount; consent is implied, as for a
// first-party app. Addresses are vouched for exactly as given (no lower-casing, no
// normalisation), as a real provider may: canonical forms are the service's business. ID tokens carry email, email_verified and name, as Google's do (set
// conformIdTokenClaims to have them only at the UserInfo endpoint instead).
//
// For refusal tests the provider can also misbehave on purpose: replaceNextTokenResponse swaps
// the body of its next token response (e.g. for tokens issued to another client, by another
// provider, or for another sign-in), as a compromised provider or network path would.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';

export interface OidcTestClient {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
}

export interface OidcTestAccount {
  email: string;
  /** Default true. */
  emailVerified?: boolean;
  name?: string;
  /** The subject (default: a random one per account). */
  sub?: string;
}

export type TokenResponse = Record<string, unknown>;

export interface TestOidcProvider {
  /** The issuer: http://127.0.0.1:<port>. */
  issuer: string;
  port: number;
  /** Registers (or replaces) the account that signs in with this address; returns its subject. */
  addAccount(account: OidcTestAccount): string;
  /** The subject of the account with this address, if it exists. */
  subjectOf(email: string): string | undefined;
  /** Replaces the body of the next successful token response (once). */
  replaceNextTokenResponse(replace: (genuine: TokenResponse) => TokenResponse): void;
  /**
   * Signs in at the provider as `email`, from an authorization URL (the provider's) to the
   * redirect back to the client: returns that URL (with code and state), without opening it.
   */
  signIn(authorizationUrl: string, email: string): Promise<string>;
  /** Tokens for a client of the test's own making (authorization code flow with PKCE, done by hand). */
  obtainTokens(o: { client: OidcTestClient; email: string; nonce?: string }): Promise<TokenResponse>;
  stop(): Promise<void>;
}

/** A cookie jar and redirect-free fetch: what a browser keeps between requests, per host:port. */
export class CookieJar {
  private readonly cookies = new Map<string, Map<string, string>>();

  /** fetch without following redirects, sending and storing this jar's cookies. */
  async fetch(url: string | URL, init: RequestInit = {}): Promise<Response> {
    const u = new URL(url);
    const headers = new Headers(init.headers);
    const cookie = this.header(u);
    if (cookie) headers.set('cookie', cookie);
    const res = await fetch(u, { ...init, headers, redirect: 'manual' });
    this.store(u, res.headers.getSetCookie());
    return res;
  }

  /** The Cookie header this jar sends to the URL's host:port. */
  header(url: string | URL): string {
    const jar = this.cookies.get(new URL(url).host);
    return jar ? [...jar].map(([k, v]) => `${k}=${v}`).join('; ') : '';
  }

  get(url: string | URL, name: string): string | undefined {
    return this.cookies.get(new URL(url).host)?.get(name);
  }

  set(url: string | URL, name: string, value: string): void {
    const host = new URL(url).host;
    if (!this.cookies.has(host)) this.cookies.set(host, new Map());
    this.cookies.get(host)!.set(name, value);
  }

  private store(url: URL, setCookies: string[]): void {
    for (const line of setCookies) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attrs.some((a) => /^\s*max-age\s*=\s*0\s*$/i.test(a) || (/^\s*expires\s*=/i.test(a) && Date.parse(a.split('=')[1]) < Date.now()));
      if (expired) this.cookies.get(url.host)?.delete(name);
      else this.set(url, name, value);
    }
  }
}

const FORM = 'application/x-www-form-urlencoded';
const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export async function startOidcProvider(opts: {
  clients: OidcTestClient[];
  accounts?: OidcTestAccount[];
  conformIdTokenClaims?: boolean;
}): Promise<TestOidcProvider> {
  const accounts = new Map<string, Required<OidcTestAccount>>(); // by sub
  const addAccount = (a: OidcTestAccount): string => {
    const email = a.email;
    for (const [sub, x] of accounts) if (x.email === email) accounts.delete(sub);
    const sub = a.sub ?? randomUUID();
    accounts.set(sub, { email, emailVerified: a.emailVerified ?? true, name: a.name ?? email.split('@')[0], sub });
    return sub;
  };
  const subjectOf = (email: string) => [...accounts.values()].find((a) => a.email === email)?.sub;
  for (const a of opts.accounts ?? []) addAccount(a);

  let handler: http.RequestListener = (_req, res) => res.writeHead(503).end();
  const server = http.createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const issuer = `http://127.0.0.1:${port}`;

  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), alg: 'RS256', use: 'sig', kid: randomUUID() };

  const provider = new Provider(issuer, {
    clients: opts.clients.map((c) => ({
      client_id: c.clientId,
      client_secret: c.clientSecret,
      redirect_uris: c.redirectUris,
      response_types: ['code'],
      grant_types: ['authorization_code'],
      token_endpoint_auth_method: 'client_secret_post',
    })),
    jwks: { keys: [jwk] },
    cookies: { keys: [randomBytes(32).toString('hex')] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    conformIdTokenClaims: opts.conformIdTokenClaims ?? false,
    features: { devInteractions: { enabled: false } },
    pkce: { required: () => true },
    ttl: { AccessToken: 600, AuthorizationCode: 60, IdToken: 600, Interaction: 600, Session: 600, Grant: 600 },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    findAccount: async (_ctx: unknown, sub: string) => {
      const a = accounts.get(sub);
      if (!a) return undefined;
      return { accountId: sub, claims: async () => ({ sub, email: a.email, email_verified: a.emailVerified, name: a.name }) };
    },
    // Consent is implied (a first-party app): every client gets the scopes it asks for.
    loadExistingGrant: async (ctx: any) => {
      const grantId = ctx.oidc.result?.consent?.grantId || ctx.oidc.session.grantIdFor(ctx.oidc.client.clientId);
      if (grantId) return ctx.oidc.provider.Grant.find(grantId);
      const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client.clientId, accountId: ctx.oidc.session.accountId });
      grant.addOIDCScope('openid email profile');
      await grant.save();
      return grant;
    },
  } as any);
  const callback = provider.callback();

  let replaceNext: ((genuine: TokenResponse) => TokenResponse) | null = null;

  async function interaction(req: http.IncomingMessage, res: http.ServerResponse, uid: string): Promise<void> {
    if (req.method === 'GET') {
      await provider.interactionDetails(req, res);
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sign in · Test identity provider</title></head>
<body><main><h1>Test identity provider</h1>
<form method="post" action="/interaction/${esc(uid)}">
<label for="email">E-mail address</label>
<input id="email" name="email" type="email" autocomplete="email" required>
<button type="submit">Continue</button>
</form></main></body></html>`);
      return;
    }
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const email = new URLSearchParams(Buffer.concat(chunks).toString('utf8')).get('email')?.trim() ?? '';
    if (!email.includes('@')) {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('an e-mail address is required');
      return;
    }
    const sub = subjectOf(email) ?? addAccount({ email });
    await provider.interactionFinished(req, res, { login: { accountId: sub } }, { mergeWithLastSubmission: false });
  }

  /** Captures a token response and sends the replacement instead (once). */
  function rewriteTokenResponse(res: http.ServerResponse, replace: (genuine: TokenResponse) => TokenResponse): void {
    const end = res.end.bind(res) as (chunk?: unknown) => http.ServerResponse;
    const chunks: Buffer[] = [];
    res.write = ((chunk: unknown) => {
      chunks.push(Buffer.from(chunk as Buffer));
      return true;
    }) as typeof res.write;
    res.end = ((chunk?: unknown) => {
      if (chunk !== undefined && typeof chunk !== 'function') chunks.push(Buffer.from(chunk as Buffer));
      let body = Buffer.concat(chunks);
      if (res.statusCode === 200) {
        body = Buffer.from(JSON.stringify(replace(JSON.parse(body.toString('utf8')))));
        if (!res.headersSent) res.setHeader('content-length', body.length);
      }
      return end(body);
    }) as typeof res.end;
  }

  handler = (req, res) => {
    const url = new URL(req.url ?? '/', issuer);
    const m = /^\/interaction\/([^/]+)$/.exec(url.pathname);
    if (m) {
      interaction(req, res, m[1]).catch((err) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(String(err));
      });
      return;
    }
    if (req.method === 'POST' && url.pathname === '/token' && replaceNext) {
      rewriteTokenResponse(res, replaceNext);
      replaceNext = null;
    }
    callback(req, res);
  };

  async function signIn(authorizationUrl: string, email: string): Promise<string> {
    // A fresh browser at the provider: no earlier sign-in there to reuse.
    const jar = new CookieJar();
    let url = new URL(authorizationUrl);
    for (let hop = 0; hop < 12; hop++) {
      if (url.origin !== issuer) return url.toString();
      let res = await jar.fetch(url);
      if (res.status === 200 && url.pathname.startsWith('/interaction/')) {
        await res.arrayBuffer();
        res = await jar.fetch(url, { method: 'POST', headers: { 'content-type': FORM }, body: new URLSearchParams({ email }) });
      }
      const location = res.headers.get('location');
      if (res.status < 300 || res.status >= 400 || !location)
        throw new Error(`the provider answered ${res.status} at ${url.pathname}: ${(await res.text()).slice(0, 500)}`);
      await res.arrayBuffer();
      url = new URL(location, url);
    }
    throw new Error('too many redirects at the provider');
  }

  async function obtainTokens(o: { client: OidcTestClient; email: string; nonce?: string }): Promise<TokenResponse> {
    const verifier = randomBytes(32).toString('base64url');
    const redirectUri = o.client.redirectUris[0];
    const auth = new URL(`${issuer}/auth`);
    auth.search = new URLSearchParams({
      client_id: o.client.clientId,
      redirect_uri: redirectUri,
      response_type: 'code',
      scope: 'openid email profile',
      state: randomBytes(16).toString('base64url'),
      nonce: o.nonce ?? randomBytes(16).toString('base64url'),
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    }).toString();
    const back = new URL(await signIn(auth.toString(), o.email));
    const code = back.searchParams.get('code');
    if (!code) throw new Error(`no code in ${back}`);
    const res = await fetch(`${issuer}/token`, {
      method: 'POST',
      headers: { 'content-type': FORM },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: redirectUri,
        code_verifier: verifier,
        client_id: o.client.clientId,
        client_secret: o.client.clientSecret,
      }),
    });
    const body = (await res.json()) as TokenResponse;
    if (!res.ok) throw new Error(`token request failed: ${res.status} ${JSON.stringify(body)}`);
    return body;
  }

  return {
    issuer,
    port,
    addAccount,
    subjectOf,
    replaceNextTokenResponse: (replace) => {
      replaceNext = replace;
    },
    signIn,
    obtainTokens,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
