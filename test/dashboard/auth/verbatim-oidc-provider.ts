// An OpenID provider (the `oidc-provider` package, on 127.0.0.1) that vouches for an e-mail
// address exactly as it is given, as a real provider may: the shared test provider
// (test/helpers/oidc-provider.ts) lower-cases addresses itself, which turns a Kelvin sign into
// a plain k before the service ever sees it. Whoever signs in next is set with `nextSignIn`;
// there is no sign-in page (the interaction is finished at once).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes, randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';
import { CookieJar, type OidcTestClient } from '../../helpers/oidc-provider.js';

export interface VerbatimProvider {
  issuer: string;
  /** The account the next sign-in is (its address verbatim, verified). */
  nextSignIn(email: string): void;
  /** From the provider's authorization URL to the redirect back to the client (not opened). */
  signIn(authorizationUrl: string): Promise<string>;
  stop(): Promise<void>;
}

export async function startVerbatimProvider(client: OidcTestClient): Promise<VerbatimProvider> {
  let next = { sub: randomUUID(), email: '' };
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const accounts = new Map<string, string>();

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: client.clientId,
        client_secret: client.clientSecret,
        redirect_uris: client.redirectUris,
        response_types: ['code'],
        grant_types: ['authorization_code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    jwks: { keys: [{ ...(await exportJWK(privateKey)), alg: 'RS256', use: 'sig', kid: randomUUID() }] },
    cookies: { keys: [randomBytes(32).toString('hex')] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: false } },
    pkce: { required: () => true },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    findAccount: async (_ctx: unknown, sub: string) => {
      const email = accounts.get(sub);
      return email === undefined ? undefined : { accountId: sub, claims: async () => ({ sub, email, email_verified: true }) };
    },
    loadExistingGrant: async (ctx: any) => {
      const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client.clientId, accountId: ctx.oidc.session.accountId });
      grant.addOIDCScope('openid email profile');
      await grant.save();
      return grant;
    },
  } as any);
  const callback = provider.callback();
  server.on('request', (req, res) => {
    if (/^\/interaction\/[^/]+$/.test(new URL(req.url ?? '/', issuer).pathname)) {
      accounts.set(next.sub, next.email);
      provider
        .interactionFinished(req, res, { login: { accountId: next.sub } }, { mergeWithLastSubmission: false })
        .catch((err) => res.writeHead(500).end(String(err)));
      return;
    }
    callback(req, res);
  });

  return {
    issuer,
    nextSignIn: (email) => {
      next = { sub: randomUUID(), email };
    },
    async signIn(authorizationUrl) {
      const jar = new CookieJar();
      let url = new URL(authorizationUrl);
      for (let hop = 0; hop < 12; hop++) {
        if (url.origin !== issuer) return url.toString();
        const res = await jar.fetch(url);
        const location = res.headers.get('location');
        await res.arrayBuffer();
        if (!location) throw new Error(`the provider answered ${res.status} at ${url.pathname}`);
        url = new URL(location, url);
      }
      throw new Error('too many redirects at the provider');
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
