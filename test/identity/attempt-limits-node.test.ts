// The failed-attempt limits on a whole node, embedded (process counters) and distributed
// (Redis counters), with DOCPARSE_TRUST_PROXY=true so X-Forwarded-For names the address:
// guesses from one address throttle only that address, never the client elsewhere.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, destroyTestEnv, startTestNode, type Mode, type TestEnv, type TestNode } from '../helpers/node.js';

const CLIENT_ID = 'demo-client';
const SECRET = 'demo-secret-0123456789';

async function requestToken(url: string, address: string, secret: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${url}/connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': `10.0.0.1, ${address}` },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: CLIENT_ID, client_secret: secret }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

for (const mode of ['embedded', 'distributed'] as Mode[]) {
  describe(`token endpoint attempt limits on a ${mode} node`, () => {
    let env: TestEnv;
    let n: TestNode;

    beforeAll(async () => {
      env = await createTestEnv(mode, { DOCPARSE_TRUST_PROXY: 'true' });
      n = await startTestNode(env);
    });

    afterAll(async () => {
      await n?.close();
      if (env) await destroyTestEnv(env);
    });

    it('30 concurrent wrong guesses from A: 10 judged, A throttled even with the right secret, B unaffected', async () => {
      // The node's windows follow the real clock: start well inside one (they are 60 s long).
      const left = 60_000 - (Date.now() % 60_000);
      if (left < 10_000) await new Promise((r) => setTimeout(r, left + 100));
      const guesses = await Promise.all(Array.from({ length: 30 }, (_, i) => requestToken(n.url, '192.0.2.10', `wrong-${i}`)));
      expect(guesses.filter((r) => r.status === 401)).toHaveLength(10);
      expect(guesses.filter((r) => r.status === 429)).toHaveLength(20);
      expect((await requestToken(n.url, '192.0.2.10', SECRET)).status).toBe(429);
      const atB = await requestToken(n.url, '192.0.2.20', SECRET);
      expect(atB.status).toBe(200);
      expect(atB.body.access_token).toEqual(expect.any(String));
    });
  });
}
