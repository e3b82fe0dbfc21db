// API authentication over real HTTP: a bearer-protected route behind the identity module's
// authenticate hook. Every refusal code, the attack cases, the browser-origin check and the
// verified-token cache.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT, base64url, exportSPKI, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import {
  type AppFixture,
  type TestNode,
  type TestStore,
  TestClock,
  callApi,
  createAppFixture,
  decodePart,
  getToken,
  openTestStore,
  startNode,
} from './harness.js';

let ts: TestStore;
let node: TestNode;
let uncached: TestNode;
const clock = new TestClock();
let f: AppFixture;
let token: string;

beforeAll(async () => {
  ts = await openTestStore();
  node = await startNode({ store: ts.store, clock });
  // Another node of the same deployment (same issuer), with the verified-token cache off.
  uncached = await startNode({ store: ts.store, clock, cache: false, identity: { authUrl: node.authUrl } });
  f = await createAppFixture(ts.store, { plan: 'usable', allowedDomains: ['allowed.example.com', 'localhost:3000', 'secure.example.com:443'] });
  token = await getToken(node.authUrl, f);
});

afterAll(async () => {
  await node?.close();
  await uncached?.close();
  await ts?.close();
});

const bearer = (t: string, extra: Record<string, string> = {}) => ({ authorization: `Bearer ${t}`, ...extra });
const nowSec = () => Math.floor(clock.now() / 1000);

/** Signs a token with the node's real signing key; claims default to the fixture's. */
async function sign(over: Record<string, unknown> = {}, header: Record<string, unknown> = {}): Promise<string> {
  const { kid, key } = await node.identity.keyring.signingKey();
  const iat = nowSec();
  const claims: Record<string, unknown> = {
    ...decodePart(token, 1),
    iat,
    exp: iat + 900,
    ...over,
  };
  for (const [k, v] of Object.entries(claims)) if (v === undefined) delete claims[k];
  return new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid, typ: 'JWT', ...header }).sign(key);
}

async function expectRefused(t: string, status: number, code: string): Promise<void> {
  const r = await callApi(node.authUrl, bearer(t));
  expect(r.status, code).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(r.body.code).toBe(code);
  if (status === 401) expect(r.headers.get('www-authenticate')).toMatch(/^Bearer realm="docparse", error="invalid_token", error_description="[^"]+"$/);
}

describe('valid tokens', () => {
  it('a token from the token endpoint authenticates; the principal carries the claims', async () => {
    const r = await callApi(node.authUrl, bearer(token));
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      tenantId: f.app.tenantId,
      appId: f.app.id,
      clientId: f.app.clientId,
      licenseRegionCode: 'eu-west-1',
      dbCode: 'db07',
      allowedDomains: ['allowed.example.com', 'localhost:3000', 'secure.example.com:443'],
      entitlements: { maxDocumentUnitsPerMonth: 5000, advancedPdfExtraction: true, ocrPdfExtraction: false },
      exp: decodePart(token, 1).exp,
    });
  });

  it('the Bearer scheme is case-insensitive', async () => {
    expect((await callApi(node.authUrl, { authorization: `bearer ${token}` })).status).toBe(200);
  });

  it('already-issued tokens stay valid when the app is disabled (until exp); new ones are refused', async () => {
    const g = await createAppFixture(ts.store);
    const t = await getToken(node.authUrl, g);
    await ts.store.setAppEnabled(g.app.id, false);
    expect((await callApi(node.authUrl, bearer(t))).status).toBe(200);
    await expect(getToken(node.authUrl, g)).rejects.toThrow(/unauthorized_client/);
  });
});

describe('missing token', () => {
  for (const [name, headers] of [
    ['no Authorization header', {}],
    ['another scheme', { authorization: 'Basic dXNlcjpwYXNz' }],
    ['Bearer without a token', { authorization: 'Bearer ' }],
  ] as [string, Record<string, string>][]) {
    it(`${name} → 401 missing_token with WWW-Authenticate: Bearer realm`, async () => {
      const r = await callApi(node.authUrl, headers);
      expect(r.status).toBe(401);
      expect(r.body.code).toBe('missing_token');
      expect(r.body.type).toBe('https://docparse.dev/problems/missing_token');
      expect(r.headers.get('www-authenticate')).toBe('Bearer realm="docparse"');
    });
  }
});

describe('attacks and invalid tokens → 401 invalid_token', () => {
  it('malformed tokens', async () => {
    for (const t of ['abc', 'a.b.c', `${token.split('.').slice(0, 2).join('.')}.`, `${token}x`, 'e30.e30.e30']) {
      await expectRefused(t, 401, 'invalid_token');
    }
    const r = await callApi(node.authUrl, { authorization: `Bearer ${token} extra` });
    expect(r.body.code).toBe('invalid_token');
  });

  it('alg: none', async () => {
    const claims = decodePart(token, 1);
    for (const alg of ['none', 'None', 'NONE']) {
      const h = base64url.encode(JSON.stringify({ alg, typ: 'JWT' }));
      const p = base64url.encode(JSON.stringify(claims));
      await expectRefused(`${h}.${p}.`, 401, 'invalid_token');
      const kid = decodePart(token, 0).kid;
      const h2 = base64url.encode(JSON.stringify({ alg, kid, typ: 'JWT' }));
      await expectRefused(`${h2}.${p}.`, 401, 'invalid_token');
    }
  });

  it('HS256 signed with the public key (key confusion)', async () => {
    const kid = decodePart(token, 0).kid as string;
    const jwks = (await (await fetch(`${node.authUrl}/.well-known/jwks.json`)).json()) as { keys: JWK[] };
    const jwk = jwks.keys.find((k) => k.kid === kid)!;
    const pem = await exportSPKI((await importJWK(jwk, 'ES256', { extractable: true })) as CryptoKey);
    for (const secret of [new TextEncoder().encode(pem), new TextEncoder().encode(JSON.stringify(jwk))]) {
      const t = await new SignJWT(decodePart(token, 1)).setProtectedHeader({ alg: 'HS256', kid, typ: 'JWT' }).sign(secret);
      await expectRefused(t, 401, 'invalid_token');
    }
  });

  it('claims edited after signing', async () => {
    const [h, , s] = token.split('.');
    const claims = { ...decodePart(token, 1), tenantid: '00000000-0000-4000-8000-000000000bad' };
    await expectRefused(`${h}.${base64url.encode(JSON.stringify(claims))}.${s}`, 401, 'invalid_token');
    const longer = { ...decodePart(token, 1), exp: (decodePart(token, 1).exp as number) + 3600 };
    await expectRefused(`${h}.${base64url.encode(JSON.stringify(longer))}.${s}`, 401, 'invalid_token');
  });

  it('a token from another issuer (even signed with our key)', async () => {
    await expectRefused(await sign({ iss: 'https://evil.example.com' }), 401, 'invalid_token');
    await expectRefused(await sign({ iss: undefined }), 401, 'invalid_token');
  });

  it('an unknown kid, and a known kid with a foreign key', async () => {
    const { privateKey } = await generateKeyPair('ES256');
    const claims = decodePart(token, 1);
    await expectRefused(await new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: 'unknown-kid' }).sign(privateKey), 401, 'invalid_token');
    await expectRefused(await new SignJWT(claims).setProtectedHeader({ alg: 'ES256' }).sign(privateKey), 401, 'invalid_token');
    const realKid = decodePart(token, 0).kid as string;
    await expectRefused(await new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: realKid }).sign(privateKey), 401, 'invalid_token');
  });

  it('nbf in the future, iat in the future, missing claims, over-long lifetime', async () => {
    await expectRefused(await sign({ nbf: nowSec() + 3600 }), 401, 'invalid_token');
    await expectRefused(await sign({ iat: nowSec() + 3600, exp: nowSec() + 3600 + 900 }), 401, 'invalid_token');
    await expectRefused(await sign({ exp: undefined }), 401, 'invalid_token');
    await expectRefused(await sign({ iat: undefined }), 401, 'invalid_token');
    await expectRefused(await sign({ tenantid: undefined }), 401, 'invalid_token');
    await expectRefused(await sign({ entitlements: { maxDocumentUnitsPerMonth: 'lots' } }), 401, 'invalid_token');
    await expectRefused(await sign({ exp: nowSec() + 86400 }), 401, 'invalid_token');
    // Control: the same helper with no change is accepted.
    expect((await callApi(node.authUrl, bearer(await sign()))).status).toBe(200);
  });
});

describe('expired tokens → 401 token_expired', () => {
  it('a token whose exp has passed', async () => {
    await expectRefused(await sign({ iat: nowSec() - 1000, exp: nowSec() - 100 }), 401, 'token_expired');
    // exp is strict: one second ago is expired, not "within tolerance".
    await expectRefused(await sign({ iat: nowSec() - 901, exp: nowSec() - 1 }), 401, 'token_expired');
    const r = await callApi(node.authUrl, bearer(await sign({ iat: nowSec() - 1000, exp: nowSec() - 100 })));
    expect(r.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('a cached token once the clock passes its exp (cached and uncached nodes)', async () => {
    const t = await getToken(node.authUrl, f);
    expect((await callApi(node.authUrl, bearer(t))).status).toBe(200);
    expect((await callApi(uncached.authUrl, bearer(t))).status).toBe(200);
    const saved = clock.t;
    try {
      clock.advance(901);
      for (const n of [node, uncached]) {
        const r = await callApi(n.authUrl, bearer(t));
        expect(r.status).toBe(401);
        expect(r.body.code).toBe('token_expired');
      }
    } finally {
      clock.t = saved;
    }
  });
});

describe('browser context: Origin / Referer against the allowed domains', () => {
  const allowed = [
    ['origin', 'https://allowed.example.com'],
    ['origin', 'http://allowed.example.com'],
    ['origin', 'https://ALLOWED.Example.COM'],
    ['origin', 'https://allowed.example.com:443'],
    ['origin', 'http://localhost:3000'],
    ['origin', 'https://secure.example.com'],
    ['referer', 'http://localhost:3000/page?x=1#y'],
  ];
  const refused = [
    ['origin', 'https://allowed.example.evil.com'],
    ['origin', 'https://allowed.example.com.evil.com'],
    ['origin', 'https://evil-allowed.example.com'],
    ['origin', 'https://sub.allowed.example.com'],
    ['origin', 'https://allowed.example.com:8443'],
    ['origin', 'http://localhost:3001'],
    ['origin', 'http://localhost'],
    ['origin', 'https://secure.example.com:8443'],
    ['origin', 'http://secure.example.com'],
    ['origin', 'null'],
    ['origin', 'not a url'],
    ['origin', 'file:///etc/passwd'],
    ['origin', ''],
    ['referer', 'https://allowed.example.evil.com/x'],
    ['referer', '::::'],
  ];
  for (const [h, v] of allowed) {
    it(`${h} ${v} passes`, async () => {
      const r = await callApi(node.authUrl, bearer(token, { [h]: v }));
      expect(r.status).toBe(200);
    });
  }
  for (const [h, v] of refused) {
    it(`${h} ${JSON.stringify(v)} → 403 domain_not_allowed`, async () => {
      const r = await callApi(node.authUrl, bearer(token, { [h]: v }));
      expect(r.status).toBe(403);
      expect(r.body.code).toBe('domain_not_allowed');
    });
  }

  it('Origin wins over Referer', async () => {
    const r = await callApi(node.authUrl, bearer(token, { origin: 'https://evil.example.com', referer: 'https://allowed.example.com/' }));
    expect(r.status).toBe(403);
    const ok = await callApi(node.authUrl, bearer(token, { origin: 'https://allowed.example.com', referer: 'https://evil.example.com/' }));
    expect(ok.status).toBe(200);
  });

  it('an app without allowed domains is refused in any browser context, accepted without one', async () => {
    const g = await createAppFixture(ts.store, { allowedDomains: [] });
    const t = await getToken(node.authUrl, g);
    expect(decodePart(t, 1)).not.toHaveProperty('allowed_domain_1');
    expect((await callApi(node.authUrl, bearer(t, { origin: 'https://allowed.example.com' }))).status).toBe(403);
    expect((await callApi(node.authUrl, bearer(t))).status).toBe(200);
  });

  it('the cache never skips the origin check', async () => {
    expect((await callApi(node.authUrl, bearer(token))).status).toBe(200);
    expect((await callApi(node.authUrl, bearer(token, { origin: 'https://evil.example.com' }))).status).toBe(403);
  });

  it('CORS preflight is answered 204 for the protected route', async () => {
    const res = await fetch(`${node.authUrl}/api/v1/whoami`, {
      method: 'OPTIONS',
      headers: { origin: 'https://allowed.example.com', 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-headers')).toMatch(/Authorization/);
  });
});

describe('verified-token cache', () => {
  it('caches verified tokens on the cached node only', async () => {
    const t = await getToken(node.authUrl, f);
    const before = node.identity.verifier.cacheSize;
    expect((await callApi(node.authUrl, bearer(t))).status).toBe(200);
    expect((await callApi(node.authUrl, bearer(t))).status).toBe(200);
    expect(node.identity.verifier.cacheSize).toBe(before + 1);
    expect((await callApi(uncached.authUrl, bearer(t))).status).toBe(200);
    expect(uncached.identity.verifier.cacheSize).toBe(0);
  });

  it('a cache hit is much cheaper than a verification', async () => {
    const t = await getToken(node.authUrl, f);
    await node.identity.verifier.verify(t);
    const n = 300;
    const t0 = performance.now();
    for (let i = 0; i < n; i++) await node.identity.verifier.verify(t);
    const cachedMs = performance.now() - t0;
    const t1 = performance.now();
    for (let i = 0; i < n; i++) await uncached.identity.verifier.verify(t);
    const uncachedMs = performance.now() - t1;
    expect(cachedMs * 5).toBeLessThan(uncachedMs);
  });
});
