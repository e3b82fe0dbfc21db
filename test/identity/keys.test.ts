// Signing keys shared through the control-plane store: concurrent boot of two nodes, key
// rotation (old tokens keep verifying, new tokens carry the new kid, the old key drops out
// of the JWKS after its last token expired), pick-up of keys created on another node,
// rate-limited reloads on unknown kids, and sealing under the master key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT, generateKeyPair } from 'jose';
import type { ControlPlaneStore } from '../../src/tenancy/types.js';
import { listSigningKeys, rotateSigningKey } from '../../src/identity/admin-keys.js';
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

const ISSUER = 'https://auth.test.example';
let ts: TestStore;
const clock = new TestClock();
let a: TestNode;
let b: TestNode;
let f: AppFixture;
let listCalls = 0;
let counted: ControlPlaneStore;

beforeAll(async () => {
  ts = await openTestStore();
  counted = new Proxy(ts.store, {
    get(target, prop, receiver) {
      if (prop === 'listSigningKeys') {
        return () => {
          listCalls++;
          return target.listSigningKeys();
        };
      }
      const v = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  // Two nodes of one deployment boot at the same moment on an empty key table.
  [a, b] = await Promise.all([
    startNode({ store: ts.store, clock, identity: { authUrl: ISSUER } }),
    startNode({ store: counted, clock, identity: { authUrl: ISSUER } }),
  ]);
  f = await createAppFixture(ts.store, { allowedDomains: [] });
});

afterAll(async () => {
  await a?.close();
  await b?.close();
  await ts?.close();
});

const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
const kidOf = (t: string) => decodePart(t, 0).kid as string;
const jwksKids = async (n: TestNode) =>
  ((await (await fetch(`http://127.0.0.1:${n.port}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] }).keys.map((k) => k.kid);

describe('shared keys', () => {
  it('two nodes booting together verify each other at once and converge on one signer', async () => {
    const keys = await ts.store.listSigningKeys();
    expect(keys.length).toBeGreaterThanOrEqual(1);
    expect(keys.length).toBeLessThanOrEqual(2);
    // Private keys are sealed at rest: no PEM in the store.
    for (const k of keys) expect(k.privateKeySealed).not.toMatch(/PRIVATE KEY/);
    const urlA = `http://127.0.0.1:${a.port}`;
    const urlB = `http://127.0.0.1:${b.port}`;
    const ta = await getToken(urlA, f);
    const tb = await getToken(urlB, f);
    expect(decodePart(ta, 1).iss).toBe(ISSUER);
    for (const url of [urlA, urlB]) {
      for (const t of [ta, tb]) expect((await callApi(url, bearer(t))).status).toBe(200);
    }
    // After one refresh interval both sign with the same key, and only that key is unretired.
    clock.advance(61);
    const ta2 = await getToken(urlA, f);
    const tb2 = await getToken(urlB, f);
    expect(kidOf(ta2)).toBe(kidOf(tb2));
    await new Promise((r) => setTimeout(r, 50));
    const unretired = (await ts.store.listSigningKeys()).filter((k) => k.retiredAt === null);
    expect(unretired.map((k) => k.kid)).toEqual([kidOf(ta2)]);
    // Every key still verifies and is published.
    for (const n of [a, b]) expect((await jwksKids(n)).sort()).toEqual(keys.map((k) => k.kid).sort());
    for (const url of [urlA, urlB]) {
      for (const t of [ta, tb, ta2, tb2]) expect((await callApi(url, bearer(t))).status).toBe(200);
    }
  });

  it('a node started later with a different master key refuses to start', async () => {
    await expect(startNode({ store: ts.store, clock, masterKey: 'another-master-key-0123456789abcdefghij' })).rejects.toThrow(/master key/);
  });
});

describe('rotation', () => {
  it('new tokens carry the new kid; old tokens keep verifying on every node; the old key leaves the JWKS after its last token expired', async () => {
    const urlA = `http://127.0.0.1:${a.port}`;
    const urlB = `http://127.0.0.1:${b.port}`;
    const oldToken = await getToken(urlA, f);
    const oldKid = kidOf(oldToken);
    const oldSigner = await a.identity.keyring.signingKey();

    const rotated = await rotateSigningKey(a.identity.keyring);
    expect(rotated.kid).not.toBe(oldKid);
    expect(rotated.retired).toContain(oldKid);

    const newToken = await getToken(urlA, f);
    expect(kidOf(newToken)).toBe(rotated.kid);

    // Node B has not reloaded yet: the unknown kid makes it pick up the new key.
    for (const url of [urlA, urlB]) {
      expect((await callApi(url, bearer(oldToken))).status).toBe(200);
      expect((await callApi(url, bearer(newToken))).status).toBe(200);
      expect(await jwksKids(url === urlA ? a : b)).toEqual(expect.arrayContaining([oldKid, rotated.kid]));
    }

    // Node B still signs with the old key until its next refresh (≤ 60 s), then switches.
    clock.advance(61);
    expect(kidOf(await getToken(urlB, f))).toBe(rotated.kid);

    const info = await listSigningKeys(a.identity.keyring);
    expect(info[0]).toMatchObject({ kid: rotated.kid, signing: true, verifying: true, retiredAt: null });
    const old = info.find((k) => k.kid === oldKid)!;
    expect(old).toMatchObject({ signing: false, verifying: true });
    expect(Date.parse(old.verifiesUntil!) - Date.parse(old.retiredAt!)).toBe((900 + 120) * 1000);

    // Past retiredAt + 15 min + grace: the old key no longer verifies and leaves the JWKS,
    // even for a (forged) token it signs with a fresh exp.
    clock.t = Date.parse(old.verifiesUntil!) + 1000;
    await a.identity.keyring.reload();
    await b.identity.keyring.reload();
    for (const n of [a, b]) {
      const kids = await jwksKids(n);
      expect(kids).not.toContain(oldKid);
      expect(kids).toContain(rotated.kid);
    }
    const iat = Math.floor(clock.now() / 1000);
    const late = await new SignJWT({ ...decodePart(oldToken, 1), iat, exp: iat + 900 })
      .setProtectedHeader({ alg: 'ES256', kid: oldKid, typ: 'JWT' })
      .sign(oldSigner.key);
    const r = await callApi(urlA, bearer(late));
    expect(r.status).toBe(401);
    expect(r.body.code).toBe('invalid_token');
    expect((await callApi(urlB, bearer(await getToken(urlB, f)))).status).toBe(200);
  });

  it('reloads on unknown kids are rate-limited', async () => {
    const { privateKey } = await generateKeyPair('ES256');
    // Let node B's last unknown-kid reload age past the limit, then send a burst.
    clock.advance(10);
    await b.identity.keyring.reload();
    const before = listCalls;
    const iat = Math.floor(clock.now() / 1000);
    for (let i = 0; i < 8; i++) {
      const t = await new SignJWT({ ...decodePart(await getToken(`http://127.0.0.1:${a.port}`, f), 1) })
        .setProtectedHeader({ alg: 'ES256', kid: `random-${i}-${iat}` })
        .sign(privateKey);
      const r = await callApi(`http://127.0.0.1:${b.port}`, bearer(t));
      expect(r.body.code).toBe('invalid_token');
    }
    expect(listCalls - before).toBe(1);
  });
});
