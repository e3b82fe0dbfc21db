// Token endpoint over real HTTP: issuance rules, claims, client authentication methods,
// every RFC 6749 error, rate limiting, and a standard OAuth client (openid-client) plus
// jose's remote JWKS verification against the published discovery document.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import * as oidc from 'openid-client';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import {
  type AppFixture,
  type TestNode,
  type TestStore,
  ResettableCounters,
  TestClock,
  basic,
  createAppFixture,
  decodePart,
  getToken,
  openTestStore,
  postToken,
  startNode,
} from './harness.js';
import { generateClientSecret, hashSecret } from '../../src/identity/secrets.js';

let ts: TestStore;
let node: TestNode;
const clock = new TestClock();
let counters: ResettableCounters;
let plain: AppFixture;
let withPlan: AppFixture;

const grant = (f: AppFixture, extra: Record<string, string> = {}) => ({
  grant_type: 'client_credentials',
  client_id: f.app.clientId,
  client_secret: f.secret,
  scope: 'Service.API',
  ...extra,
});

beforeAll(async () => {
  ts = await openTestStore();
  counters = new ResettableCounters(clock);
  node = await startNode({ store: ts.store, clock, counters });
  plain = await createAppFixture(ts.store, { plan: 'none', allowedDomains: ['allowed.example.com', 'localhost:3000', '127.0.0.1:8443'] });
  withPlan = await createAppFixture(ts.store, { plan: 'usable', allowedDomains: ['only.example.com'] });
});

afterAll(async () => {
  await node?.close();
  await ts?.close();
});

beforeEach(() => counters.reset());

describe('successful issuance', () => {
  it('client_secret_post: token response, headers and exact claims (no plan → no entitlements)', async () => {
    const r = await postToken(node.authUrl, grant(plain));
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.headers.get('pragma')).toBe('no-cache');
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(Object.keys(r.body).sort()).toEqual(['access_token', 'expires_in', 'scope', 'token_type']);
    expect(r.body).toMatchObject({ token_type: 'Bearer', expires_in: 900, scope: 'Service.API' });

    const token = r.body.access_token as string;
    const header = decodePart(token, 0);
    expect(header).toMatchObject({ alg: 'ES256', typ: 'JWT' });
    expect(header.kid).toEqual(expect.any(String));
    const claims = decodePart(token, 1);
    expect(Object.keys(claims).sort()).toEqual(
      [
        'allowed_domain_1',
        'allowed_domain_2',
        'allowed_domain_3',
        'appId',
        'dbCode',
        'exp',
        'iat',
        'iss',
        'jti',
        'licenseRegionCode',
        'sub',
        'tenantid',
      ].sort(),
    );
    expect(claims).toMatchObject({
      iss: node.authUrl,
      sub: plain.app.clientId,
      tenantid: plain.app.tenantId,
      appId: plain.app.id,
      licenseRegionCode: 'eu-west-1',
      dbCode: 'db07',
      allowed_domain_1: 'allowed.example.com',
      allowed_domain_2: 'localhost:3000',
      allowed_domain_3: '127.0.0.1:8443',
    });
    expect(claims.exp).toBe((claims.iat as number) + 900);
    expect(Math.abs((claims.iat as number) - Math.floor(clock.now() / 1000))).toBeLessThanOrEqual(1);
    expect(claims.jti).toMatch(/^[0-9a-f-]{36}$/);
    expect(claims).not.toHaveProperty('entitlements');
  });

  it('client_secret_basic works, and a usable plan puts entitlements in the token; unset domain slots are absent', async () => {
    const r = await postToken(
      node.authUrl,
      { grant_type: 'client_credentials', scope: 'Service.API' },
      { authorization: basic(withPlan.app.clientId, withPlan.secret) },
    );
    expect(r.status).toBe(200);
    const claims = decodePart(r.body.access_token as string, 1);
    expect(claims.entitlements).toEqual({ maxDocumentUnitsPerMonth: 5000, advancedPdfExtraction: true, ocrPdfExtraction: false });
    expect(claims.allowed_domain_1).toBe('only.example.com');
    expect(claims).not.toHaveProperty('allowed_domain_2');
    expect(claims).not.toHaveProperty('allowed_domain_3');
  });

  it('scope omitted or empty defaults to Service.API; every token has a fresh jti', async () => {
    const a = await postToken(node.authUrl, grant(plain, { scope: '' }));
    const { scope: _s, ...noScope } = grant(plain);
    const b = await postToken(node.authUrl, noScope);
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(a.body.scope).toBe('Service.API');
    expect(b.body.scope).toBe('Service.API');
    expect(decodePart(a.body.access_token as string, 1).jti).not.toBe(decodePart(b.body.access_token as string, 1).jti);
  });

  it('Basic credentials with client_id repeated in the form are accepted', async () => {
    const r = await postToken(
      node.authUrl,
      { grant_type: 'client_credentials', client_id: plain.app.clientId },
      { authorization: basic(plain.app.clientId, plain.secret) },
    );
    expect(r.status).toBe(200);
  });

  it('unknown form parameters are ignored (RFC 6749 §3.2)', async () => {
    const r = await postToken(node.authUrl, grant(plain, { audience: 'whatever' }));
    expect(r.status).toBe(200);
  });
});

describe('issuance rules (refused with 400 unauthorized_client naming the reason)', () => {
  const cases: [string, Parameters<typeof createAppFixture>[1], RegExp][] = [
    ['disabled app', { enabled: false }, /disabled/],
    ['tenant pending activation', { tenantState: 'Pending Activation' }, /tenant is not active \(state: Pending Activation\)/],
    ['tenant deactivated', { tenantState: 'Deactivated' }, /tenant is not active \(state: Deactivated\)/],
    ['no license region', { licenseRegion: null }, /no license region/],
    ['no database code', { dbCode: null }, /no database code/],
    ['retired plan', { plan: 'retired' }, /plan is retired/],
  ];
  for (const [name, fixture, reason] of cases) {
    it(name, async () => {
      const f = await createAppFixture(ts.store, fixture);
      const r = await postToken(node.authUrl, grant(f));
      expect(r.status).toBe(400);
      expect(r.headers.get('content-type')).toMatch(/^application\/json/);
      expect(r.headers.get('cache-control')).toBe('no-store');
      expect(r.body.error).toBe('unauthorized_client');
      expect(r.body.error_description).toMatch(reason);
      expect(Object.keys(r.body).sort()).toEqual(['error', 'error_description']);
    });
  }

  it('changes in the store take effect for the next token at once', async () => {
    const f = await createAppFixture(ts.store, { plan: 'usable' });
    expect((await postToken(node.authUrl, grant(f))).status).toBe(200);
    await ts.store.setAppEnabled(f.app.id, false);
    expect((await postToken(node.authUrl, grant(f))).body.error).toBe('unauthorized_client');
    await ts.store.setAppEnabled(f.app.id, true);
    expect((await postToken(node.authUrl, grant(f))).status).toBe(200);
    await ts.store.setTenantState(f.app.tenantId, 'Deactivated');
    expect((await postToken(node.authUrl, grant(f))).body.error_description).toMatch(/not active/);
    await ts.store.setTenantState(f.app.tenantId, 'Active');
    await ts.store.retirePlan(f.plan!.id);
    expect((await postToken(node.authUrl, grant(f))).body.error_description).toMatch(/retired/);
    await ts.store.assignPlan(f.app.id, null);
    const r = await postToken(node.authUrl, grant(f));
    expect(r.status).toBe(200);
    expect(decodePart(r.body.access_token as string, 1)).not.toHaveProperty('entitlements');
  });

  it('after the right secret got tokens, a wrong one is still refused, and a replaced one stops working at once', async () => {
    const f = await createAppFixture(ts.store);
    for (let i = 0; i < 2; i++) expect((await postToken(node.authUrl, grant(f))).status).toBe(200);
    expect((await postToken(node.authUrl, grant(f, { client_secret: `${f.secret}x` }))).body.error).toBe('invalid_client');
    const next = generateClientSecret();
    await ts.store.setAppSecretHash(f.app.id, await hashSecret(next));
    expect((await postToken(node.authUrl, grant(f))).body.error).toBe('invalid_client');
    expect((await postToken(node.authUrl, grant(f, { client_secret: next }))).status).toBe(200);
  });
});

describe('request errors', () => {
  it('wrong secret → 401 invalid_client (no WWW-Authenticate for client_secret_post)', async () => {
    const r = await postToken(node.authUrl, grant(plain, { client_secret: 'wrong' }));
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ error: 'invalid_client', error_description: expect.any(String) });
    expect(r.headers.get('www-authenticate')).toBeNull();
  });

  it('unknown client id → the same 401 invalid_client', async () => {
    const r = await postToken(node.authUrl, grant(plain, { client_id: 'dp_nobody' }));
    expect(r.status).toBe(401);
    expect(r.body.error).toBe('invalid_client');
    expect(r.body.error_description).toBe((await postToken(node.authUrl, grant(plain, { client_secret: 'x' }))).body.error_description);
  });

  it('wrong secret with HTTP Basic → 401 invalid_client with WWW-Authenticate: Basic', async () => {
    const r = await postToken(node.authUrl, { grant_type: 'client_credentials' }, { authorization: basic(plain.app.clientId, 'wrong') });
    expect(r.status).toBe(401);
    expect(r.body.error).toBe('invalid_client');
    expect(r.headers.get('www-authenticate')).toMatch(/^Basic realm="docparse"/);
  });

  it('malformed Basic credentials → 401 invalid_client', async () => {
    for (const h of ['Basic !!!notbase64', `Basic ${Buffer.from('no-colon').toString('base64')}`]) {
      const r = await postToken(node.authUrl, { grant_type: 'client_credentials' }, { authorization: h });
      expect(r.status).toBe(401);
      expect(r.body.error).toBe('invalid_client');
      expect(r.headers.get('www-authenticate')).toMatch(/^Basic/);
    }
  });

  it('wrong grant type → 400 unsupported_grant_type', async () => {
    for (const g of ['password', 'authorization_code', 'CLIENT_CREDENTIALS']) {
      const r = await postToken(node.authUrl, grant(plain, { grant_type: g }));
      expect(r.status).toBe(400);
      expect(r.body.error).toBe('unsupported_grant_type');
    }
  });

  it('wrong scope → 400 invalid_scope', async () => {
    for (const s of ['admin', 'Service.API admin', 'service.api']) {
      const r = await postToken(node.authUrl, grant(plain, { scope: s }));
      expect(r.status).toBe(400);
      expect(r.body.error).toBe('invalid_scope');
    }
  });

  it('missing fields → 400 invalid_request', async () => {
    const base = grant(plain);
    for (const drop of ['grant_type', 'client_id', 'client_secret'] as const) {
      const form: Record<string, string> = { ...base };
      delete form[drop];
      const r = await postToken(node.authUrl, form);
      expect(r.status, drop).toBe(400);
      expect(r.body.error, drop).toBe('invalid_request');
      expect(r.body.error_description, drop).toContain(drop);
    }
    const empty = await postToken(node.authUrl, {});
    expect(empty.body.error).toBe('invalid_request');
  });

  it('two client authentication methods at once → 400 invalid_request', async () => {
    const r = await postToken(node.authUrl, grant(plain), { authorization: basic(plain.app.clientId, plain.secret) });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('invalid_request');
  });
});

describe('body refusals are RFC 6749 errors, not problem documents', () => {
  const send = async (init: RequestInit & { duplex?: 'half' }) => {
    const res = await fetch(`${node.authUrl}/connect/token`, { method: 'POST', ...init });
    return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
  };
  const expectOAuthError = (r: Awaited<ReturnType<typeof send>>, status: number, description: RegExp) => {
    expect(r.status).toBe(status);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.headers.get('pragma')).toBe('no-cache');
    expect(r.body).toEqual({ error: 'invalid_request', error_description: expect.stringMatching(description) });
  };
  const form = () => new URLSearchParams(grant(plain)).toString();

  it('415 for a body that is not a form (JSON, text, no Content-Type)', async () => {
    const json = await send({ headers: { 'content-type': 'application/json' }, body: JSON.stringify(grant(plain)) });
    expectOAuthError(json, 415, /^send the request as application\/x-www-form-urlencoded, not "application\/json"$/);
    expectOAuthError(await send({ headers: { 'content-type': 'text/plain' }, body: form() }), 415, /not "text\/plain"/);
    expectOAuthError(await send({ body: new TextEncoder().encode(form()) }), 415, /Content-Type is missing/);
  });

  it('413 for a body past 16 KiB, declared or streamed', async () => {
    const big = `${form()}&padding=${'x'.repeat(16 * 1024)}`;
    const headers = { 'content-type': 'application/x-www-form-urlencoded' };
    expectOAuthError(await send({ headers, body: big }), 413, /larger than 16384 bytes/);
    const chunked = new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < 5; i++) c.enqueue(new TextEncoder().encode(big.slice(i * 4000, (i + 1) * 4000)));
        c.close();
      },
    });
    expectOAuthError(await send({ headers, body: chunked, duplex: 'half' }), 413, /larger than 16384 bytes/);
  });

  it('405 with Allow for another method', async () => {
    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH']) {
      const res = await fetch(`${node.authUrl}/connect/token`, { method });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toBe('POST, OPTIONS');
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('pragma')).toBe('no-cache');
      expect(await res.json()).toEqual({ error: 'invalid_request', error_description: 'Allowed methods: POST, OPTIONS.' });
    }
    // Other paths keep their problem documents.
    const other = await fetch(`${node.authUrl}/.well-known/jwks.json`, { method: 'POST' });
    expect(other.status).toBe(405);
    expect(other.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });

  it('a form with a charset parameter, or just under the limit, is read', async () => {
    const body = form();
    const r = await send({ headers: { 'content-type': 'Application/X-WWW-Form-Urlencoded; charset=UTF-8' }, body });
    expect(r.status).toBe(200);
    const padded = `${body}&padding=${'x'.repeat(16 * 1024 - body.length - '&padding='.length)}`;
    expect(padded.length).toBe(16 * 1024);
    expect((await send({ headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: padded })).status).toBe(200);
  });
});

describe('failed-attempt rate limiting', () => {
  it('blocks a client id at an address after 10 failures in a window, even with the right secret, with Retry-After', async () => {
    const f = await createAppFixture(ts.store);
    for (let i = 0; i < 10; i++) {
      const r = await postToken(node.authUrl, grant(f, { client_secret: `wrong-${i}` }));
      expect(r.status).toBe(401);
    }
    const blocked = await postToken(node.authUrl, grant(f));
    expect(blocked.status).toBe(429);
    expect(blocked.body.error).toBe('invalid_client');
    expect(blocked.body.error_description).toMatch(/too many failed attempts; retry after \d+ s/);
    const retryAfter = Number(blocked.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // Another client from the same address is not blocked (10 < 30 address failures).
    expect((await postToken(node.authUrl, grant(plain))).status).toBe(200);
    // The window ends: the right secret works again.
    clock.advance(retryAfter);
    expect((await postToken(node.authUrl, grant(f))).status).toBe(200);
  });

  it('blocks an address after 30 failures in a window, whatever the client id', async () => {
    for (let i = 0; i < 30; i++) {
      const r = await postToken(node.authUrl, grant(plain, { client_id: `dp_unknown_${i}` }));
      expect(r.status).toBe(401);
    }
    const blocked = await postToken(node.authUrl, grant(plain));
    expect(blocked.status).toBe(429);
    expect(blocked.headers.get('retry-after')).toMatch(/^\d+$/);
    clock.advance(Number(blocked.headers.get('retry-after')));
    expect((await postToken(node.authUrl, grant(plain))).status).toBe(200);
  });

  it('an unknown client id costs about as much as a wrong secret (decoy hash)', async () => {
    const time = async (form: Record<string, string>) => {
      const t0 = performance.now();
      await postToken(node.authUrl, form);
      return performance.now() - t0;
    };
    const runs = 6;
    let known = 0;
    let unknown = 0;
    for (let i = 0; i < runs; i++) {
      known += await time(grant(plain, { client_secret: 'wrong' }));
      unknown += await time(grant(plain, { client_id: `dp_nobody_${i}` }));
    }
    // Both pay one scrypt (~15 ms); without the decoy the unknown path would be ~0.
    expect(unknown / runs).toBeGreaterThan((known / runs) * 0.5);
  });
});

describe('standard clients', () => {
  it('openid-client discovers the issuer and obtains a token (client_secret_post and client_secret_basic)', async () => {
    for (const auth of [oidc.ClientSecretPost(plain.secret), oidc.ClientSecretBasic(plain.secret)]) {
      const config = await oidc.discovery(new URL(node.authUrl), plain.app.clientId, undefined, auth, { execute: [oidc.allowInsecureRequests] });
      expect(config.serverMetadata().token_endpoint).toBe(`${node.authUrl}/connect/token`);
      const tokens = await oidc.clientCredentialsGrant(config, { scope: 'Service.API' });
      expect(tokens.token_type.toLowerCase()).toBe('bearer');
      expect(tokens.expires_in).toBe(900);
      expect(tokens.expiresIn()).toBeGreaterThan(890);
      expect(decodePart(tokens.access_token, 1).sub).toBe(plain.app.clientId);
    }
  });

  it('openid-client surfaces a refusal as the RFC 6749 error', async () => {
    const config = await oidc.discovery(new URL(node.authUrl), plain.app.clientId, undefined, oidc.ClientSecretPost('wrong'), {
      execute: [oidc.allowInsecureRequests],
    });
    const err = (await oidc.clientCredentialsGrant(config, { scope: 'Service.API' }).catch((e: unknown) => e)) as { error?: string; status?: number };
    expect(err.error).toBe('invalid_client');
    expect(err.status).toBe(401);
  });

  it('discovery document and JWKS: jose createRemoteJWKSet + jwtVerify validate an issued token', async () => {
    const res = await fetch(`${node.authUrl}/.well-known/openid-configuration`);
    expect(res.status).toBe(200);
    const meta = (await res.json()) as Record<string, unknown>;
    expect(meta).toMatchObject({
      issuer: node.authUrl,
      token_endpoint: `${node.authUrl}/connect/token`,
      jwks_uri: `${node.authUrl}/.well-known/jwks.json`,
      grant_types_supported: ['client_credentials'],
      token_endpoint_auth_methods_supported: expect.arrayContaining(['client_secret_basic', 'client_secret_post']),
      scopes_supported: ['Service.API'],
      id_token_signing_alg_values_supported: ['ES256'],
      response_types_supported: ['token'],
    });
    const rfc8414 = await (await fetch(`${node.authUrl}/.well-known/oauth-authorization-server`)).json();
    expect(rfc8414).toEqual(meta);

    const jwksRes = await fetch(meta.jwks_uri as string);
    expect(jwksRes.headers.get('content-type')).toMatch(/^application\/jwk-set\+json/);
    const jwks = (await jwksRes.json()) as { keys: Record<string, unknown>[] };
    expect(jwks.keys.length).toBeGreaterThanOrEqual(1);
    for (const k of jwks.keys) {
      expect(k).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
      expect(k).not.toHaveProperty('d');
    }

    const token = await getToken(node.authUrl, withPlan);
    const JWKS = createRemoteJWKSet(new URL(meta.jwks_uri as string));
    const { payload, protectedHeader } = await jwtVerify(token, JWKS, {
      issuer: meta.issuer as string,
      algorithms: meta.id_token_signing_alg_values_supported as string[],
    });
    expect(payload.sub).toBe(withPlan.app.clientId);
    expect(jwks.keys.map((k) => k.kid)).toContain(protectedHeader.kid);
  });
});
