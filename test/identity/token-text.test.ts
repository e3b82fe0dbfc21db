// The token endpoint and credentials that are not text: client_id=a%00b used to be a 500 (the
// look-up failed in PostgreSQL) that gave its attempt back. Now it is RFC 6749 invalid_request
// (400), counted like a wrong secret, so it cannot be used to guess for free.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_FAILURE_LIMITS } from '../../src/identity/attempt-limiter.js';
import { type AppFixture, type TestNode, type TestStore, TestClock, basic, createAppFixture, openTestStore, postToken, startNode } from './harness.js';

const { perClientAndAddress } = DEFAULT_FAILURE_LIMITS;
const from = (address: string) => ({ 'x-forwarded-for': address });
const grant = (clientId: string, clientSecret: string) => ({
  grant_type: 'client_credentials',
  client_id: clientId,
  client_secret: clientSecret,
  scope: 'Service.API',
});

describe('token endpoint: credentials that are not text', () => {
  let ts: TestStore;
  let node: TestNode;
  let f: AppFixture;

  beforeAll(async () => {
    ts = await openTestStore();
    node = await startNode({ store: ts.store, clock: new TestClock(), trustProxy: true });
    f = await createAppFixture(ts.store);
  });
  afterAll(async () => {
    await node?.close();
    await ts?.close();
  });

  it('client_id=a%00b is 400 invalid_request, and each one counts as a failed attempt', async () => {
    const address = '203.0.113.10';
    for (let i = 0; i < perClientAndAddress; i++) {
      const r = await postToken(node.authUrl, grant('a\u0000b', 'whatever-secret'), from(address));
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      expect(r.body.error).toBe('invalid_request');
      expect(r.body.error_description).toMatch(/client_id contains a NUL character/);
    }
    // The pair has used up its failures: refused before anything else is looked at.
    const throttled = await postToken(node.authUrl, grant('a\u0000b', 'whatever-secret'), from(address));
    expect(throttled.status).toBe(429);
    expect(throttled.body.error).toBe('invalid_client');
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('a client_secret with NUL counts against the real client: after the limit even its right secret is refused from that address', async () => {
    const address = '203.0.113.11';
    for (let i = 0; i < perClientAndAddress; i++) {
      const r = await postToken(node.authUrl, grant(f.app.clientId, 'x\u0000y'), from(address));
      expect(r.status).toBe(400);
      expect(r.body.error_description).toMatch(/client_secret contains a NUL character/);
    }
    expect((await postToken(node.authUrl, grant(f.app.clientId, f.secret), from(address))).status).toBe(429);
    // Elsewhere the client is not locked out.
    expect((await postToken(node.authUrl, grant(f.app.clientId, f.secret), from('203.0.113.12'))).status).toBe(200);
  });

  it('HTTP Basic credentials with NUL are refused the same way', async () => {
    const r = await postToken(node.authUrl, { grant_type: 'client_credentials' }, { ...from('203.0.113.13'), authorization: basic('a\u0000b', 'secret') });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error: 'invalid_request', error_description: expect.stringMatching(/client_id contains a NUL character/) });
  });

  it('a form that is not UTF-8 is 400 invalid_request', async () => {
    const res = await fetch(`${node.authUrl}/connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: Buffer.concat([Buffer.from('grant_type=client_credentials&client_id='), Buffer.from([0xc3, 0x28]), Buffer.from('&client_secret=s')]),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'invalid_request', error_description: 'the form is not valid UTF-8' });
  });
});
