// Failed-attempt limits of the token endpoint over real HTTP, on the embedded and on the Redis
// counters: concurrent guesses cannot pass the limit together, a (client id, address) pair
// that is throttled does not lock the client out at another address, and the per-client-id
// ceiling bounds guessing spread over many addresses. Addresses come from X-Forwarded-For
// (the front trusts it like DOCPARSE_TRUST_PROXY=true).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedRateCounters } from '../../src/jobs/embedded-counters.js';
import { RedisRateCounters } from '../../src/jobs/redis-counters.js';
import type { RateCounters } from '../../src/jobs/types.js';
import { DEFAULT_FAILURE_LIMITS, addressBucket } from '../../src/identity/attempt-limiter.js';
import { type AppFixture, type TestNode, type TestStore, TestClock, createAppFixture, openTestStore, postToken, startNode } from './harness.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const { perClientAndAddress, perAddress, perClient, windowSeconds } = DEFAULT_FAILURE_LIMITS;

/** A fresh documentation address (RFC 5737) per call, so tests do not share address counters. */
let lastAddress = 0;
const freshAddress = () => {
  lastAddress++;
  return `203.0.${Math.floor(lastAddress / 250)}.${(lastAddress % 250) + 1}`;
};

const grant = (f: AppFixture, secret = f.secret) => ({
  grant_type: 'client_credentials',
  client_id: f.app.clientId,
  client_secret: secret,
  scope: 'Service.API',
});

const from = (address: string) => ({ 'x-forwarded-for': address });

const backends: { name: string; open(clock: TestClock): { counters: RateCounters; cleanup(): Promise<void> } }[] = [
  {
    name: 'embedded',
    open: (clock) => {
      const counters = new EmbeddedRateCounters({ now: clock.now });
      return { counters, cleanup: () => counters.close() };
    },
  },
  {
    name: 'Redis',
    open: (clock) => {
      const prefix = `test-identity-${randomUUID().slice(0, 8)}`;
      const counters = new RedisRateCounters({ url: REDIS_URL, prefix, now: clock.now });
      return {
        counters,
        cleanup: async () => {
          const keys = await counters.redis.keys(`${prefix}:*`);
          if (keys.length) await counters.redis.del(...keys);
          await counters.close();
        },
      };
    },
  },
];

for (const backend of backends) {
  describe(`token endpoint attempt limits (${backend.name} counters)`, () => {
    let ts: TestStore;
    let node: TestNode;
    let cleanup: () => Promise<void>;
    // One second into a window an hour ahead: no test runs into the window's end by accident,
    // and Redis keeps the keys of this clock's windows (they expire at their window's end).
    const clock = new TestClock();
    clock.t = (Math.floor(Date.now() / 3_600_000) + 2) * 3_600_000 + 1000;

    beforeAll(async () => {
      ts = await openTestStore();
      const opened = backend.open(clock);
      cleanup = opened.cleanup;
      node = await startNode({ store: ts.store, clock, counters: opened.counters, trustProxy: true });
    });

    afterAll(async () => {
      await node?.close();
      await cleanup?.();
      await ts?.close();
    });

    it(`100 concurrent wrong guesses: only ${perClientAndAddress} are evaluated, the rest are refused unevaluated`, async () => {
      const f = await createAppFixture(ts.store);
      const a = freshAddress();
      const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => postToken(node.authUrl, grant(f, `wrong-${i}`), from(a))));
      const evaluated = answers.filter((r) => r.status === 401);
      const refused = answers.filter((r) => r.status === 429);
      expect(evaluated).toHaveLength(perClientAndAddress);
      expect(refused).toHaveLength(100 - perClientAndAddress);
      for (const r of evaluated) expect(r.body).toEqual({ error: 'invalid_client', error_description: expect.stringMatching(/wrong client_secret/) });
      for (const r of refused) {
        expect(r.body).toEqual({ error: 'invalid_client', error_description: expect.stringMatching(/too many failed attempts/) });
        expect(r.headers.get('retry-after')).toMatch(/^\d+$/);
      }
      // No guessing oracle: the right secret is refused too.
      expect((await postToken(node.authUrl, grant(f), from(a))).status).toBe(429);
    });

    it('guesses from address A do not lock out the right secret from address B', async () => {
      const f = await createAppFixture(ts.store);
      const [a, b] = [freshAddress(), freshAddress()];
      for (let i = 0; i < perClientAndAddress; i++) expect((await postToken(node.authUrl, grant(f, `wrong-${i}`), from(a))).status).toBe(401);
      expect((await postToken(node.authUrl, grant(f), from(a))).status).toBe(429);

      const atB = await postToken(node.authUrl, grant(f), from(b));
      expect(atB.status).toBe(200);
      expect(atB.body.access_token).toEqual(expect.any(String));
      // B's own wrong guesses are judged (and counted) on their own.
      expect((await postToken(node.authUrl, grant(f, 'wrong'), from(b))).status).toBe(401);
      expect((await postToken(node.authUrl, grant(f), from(b))).status).toBe(200);
      // A is still throttled.
      expect((await postToken(node.authUrl, grant(f), from(a))).status).toBe(429);
    });

    it('a throttled pair stays locked, even for the right secret, until its window ends (Retry-After)', async () => {
      const f = await createAppFixture(ts.store);
      const a = freshAddress();
      for (let i = 0; i < perClientAndAddress; i++) await postToken(node.authUrl, grant(f, `wrong-${i}`), from(a));
      const blocked = await postToken(node.authUrl, grant(f), from(a));
      expect(blocked.status).toBe(429);
      expect(blocked.headers.get('cache-control')).toBe('no-store');
      expect(blocked.headers.get('pragma')).toBe('no-cache');
      const retryAfter = Number(blocked.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(windowSeconds);
      expect(blocked.body.error_description).toBe(`too many failed attempts; retry after ${retryAfter} s`);

      const start = clock.t;
      try {
        clock.advance(retryAfter - 1);
        expect((await postToken(node.authUrl, grant(f), from(a))).status).toBe(429);
        clock.advance(1);
        expect((await postToken(node.authUrl, grant(f), from(a))).status).toBe(200);
      } finally {
        clock.t = start;
      }
    });

    it(`an address is limited to ${perAddress} failures whatever the client id, without locking those clients out elsewhere`, async () => {
      const f = await createAppFixture(ts.store);
      const [a, b] = [freshAddress(), freshAddress()];
      for (let i = 0; i < perAddress; i++) {
        expect((await postToken(node.authUrl, { ...grant(f), client_id: `dp_unknown_${randomUUID()}` }, from(a))).status).toBe(401);
      }
      expect((await postToken(node.authUrl, grant(f), from(a))).status).toBe(429);
      expect((await postToken(node.authUrl, grant(f), from(b))).status).toBe(200);
    });

    it(`the per-client-id ceiling (${perClient}) bounds guessing spread over many addresses`, async () => {
      const f = await createAppFixture(ts.store);
      const other = await createAppFixture(ts.store);
      const addresses = Array.from({ length: perClient / perClientAndAddress }, freshAddress);
      const answers = await Promise.all(
        addresses.flatMap((a) => Array.from({ length: perClientAndAddress + 2 }, (_, i) => postToken(node.authUrl, grant(f, `wrong-${i}`), from(a)))),
      );
      expect(answers.filter((r) => r.status === 401)).toHaveLength(perClient);
      // The ceiling is reached: the client id is refused from a clean address too…
      const clean = freshAddress();
      expect((await postToken(node.authUrl, grant(f), from(clean))).status).toBe(429);
      // …but other clients are not, there or anywhere.
      expect((await postToken(node.authUrl, grant(other), from(clean))).status).toBe(200);
      expect((await postToken(node.authUrl, grant(other), from(addresses[0]))).status).toBe(200);
    });

    it('the right secret gives its slot back: successful requests, even concurrent ones, are never throttled', async () => {
      const f = await createAppFixture(ts.store);
      const a = freshAddress();
      // Were successes counted, the third would be the pair's 11th attempt.
      for (let i = 0; i < perClientAndAddress - 1; i++) expect((await postToken(node.authUrl, grant(f, `wrong-${i}`), from(a))).status).toBe(401);
      for (let i = 0; i < 3; i++) expect((await postToken(node.authUrl, grant(f), from(a))).status).toBe(200);
      const b = freshAddress();
      const burst = await Promise.all(Array.from({ length: perClientAndAddress }, () => postToken(node.authUrl, grant(f), from(b))));
      expect(burst.map((r) => r.status)).toEqual(Array(perClientAndAddress).fill(200));
      expect((await postToken(node.authUrl, grant(f), from(b))).status).toBe(200);
    });
  });
}

describe('addressBucket', () => {
  it('counts IPv4 (also IPv4-mapped) as is, IPv6 by its /64', () => {
    expect(addressBucket('198.51.100.7')).toBe('198.51.100.7');
    expect(addressBucket('::ffff:198.51.100.7')).toBe('198.51.100.7');
    expect(addressBucket('2001:db8:1:2:aaaa:bbbb:cccc:dddd')).toBe('2001:db8:1:2::/64');
    expect(addressBucket('2001:0db8:0001:0002::1')).toBe('2001:db8:1:2::/64');
    expect(addressBucket('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressBucket('::1')).toBe('0:0:0:0::/64');
    expect(addressBucket('not an address')).toBe('not an address');
  });

  it('a host rotating through its IPv6 /64 meets one address limit', async () => {
    const clock = new TestClock();
    const counters = new EmbeddedRateCounters({ now: clock.now });
    const ts = await openTestStore();
    const node = await startNode({ store: ts.store, clock, counters, trustProxy: true });
    try {
      const f = await createAppFixture(ts.store);
      for (let i = 0; i < perClientAndAddress; i++) {
        expect((await postToken(node.authUrl, grant(f, 'wrong'), from(`2001:db8:5:6::${i + 1}`))).status).toBe(401);
      }
      expect((await postToken(node.authUrl, grant(f), from('2001:db8:5:6:ffff::99'))).status).toBe(429);
      expect((await postToken(node.authUrl, grant(f), from('2001:db8:5:7::1'))).status).toBe(200);
    } finally {
      await node.close();
      await counters.close();
      await ts.close();
    }
  });
});
