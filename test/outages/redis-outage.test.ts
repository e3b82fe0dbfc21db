// Redis goes down under a running node (a private redis-server, killed with SIGKILL) and comes
// back on the same port: every request that needs Redis answers 503 with Retry-After at once,
// readiness names Redis, requests that do not need it keep working, and the node serves again
// by itself when Redis returns — with the job accepted before the outage still there (AOF).
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TestServer } from '../helpers/servers.js';
import { waitFor } from '../helpers/node.js';
import {
  expectNotReady,
  expectUnavailableOAuth,
  expectUnavailableProblem,
  readyAgain,
  startOutageRig,
  Timings,
  uploadAndComplete,
  type Client,
  type OutageRig,
} from './harness.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

let redis: TestServer;
let c: Client;
let rig: OutageRig;
const timings = new Timings();

beforeAll(async () => {
  ({ redis, c } = rig = await startOutageRig({ persistentRedis: true }));
});

afterAll(async () => {
  timings.print('Redis outage (private redis-server, SIGKILL, restarted on the same port)');
  await rig?.close();
});

describe('Redis unreachable', () => {
  it('answers 503 at once where Redis is needed, keeps the rest working, and recovers by itself', async () => {
    await uploadAndComplete(c, 'before-outage');

    await redis.stop();
    const down = performance.now();

    const ready = await c.ready();
    timings.add('/health/ready names Redis', ready.ms);
    expectNotReady(ready, 'jobStore', 'Redis');

    const upload = await c.upload('during-outage');
    timings.add('upload → 503', upload.ms);
    expectUnavailableProblem(upload, 'Redis');

    const status = await c.status('before-outage');
    timings.add('status poll → 503', status.ms);
    expectUnavailableProblem(status, 'Redis');

    const batch = await c.batch(['before-outage', 'nope']);
    timings.add('batch status → 503', batch.ms);
    expectUnavailableProblem(batch, 'Redis');

    const result = await c.result('before-outage');
    timings.add('result → 503', result.ms);
    expectUnavailableProblem(result, 'Redis');

    // The failure limiter's counters live in Redis.
    const token = await c.token();
    timings.add('token → 503', token.ms);
    expectUnavailableOAuth(token, 'Redis');

    // Not needing Redis: liveness and the API description.
    expect((await c.live()).status).toBe(200);
    expect((await c.openapi()).status).toBe(200);

    // A longer outage: still answered, still 503 (no request waits for Redis).
    await new Promise((r) => setTimeout(r, 3000));
    expectUnavailableProblem(await c.status('before-outage'), 'Redis');
    timings.add('outage length', Math.round(performance.now() - down));

    await redis.start();
    const back = performance.now();
    timings.add('Redis back → /health/ready 200', await readyAgain(c, back));

    // Everything works again, and AOF kept the job accepted before the outage.
    const after = await c.status('before-outage');
    expect(after.status).toBe(200);
    expect(after.body.statusInt).toBe(8);
    expect((await c.result('before-outage')).status).toBe(200);
    expect((await c.token()).status).toBe(200);
    // The workers reconnected too: a new upload is processed to the end.
    const t0 = performance.now();
    await uploadAndComplete(c, 'after-outage');
    timings.add('upload after recovery → completed', Math.round(performance.now() - t0));
  });
});

/** Whether some quota tally in this Redis holds units for a job in progress (a k:<chargeKey> field). */
async function holdsUnits(url: string): Promise<boolean> {
  const r = new Redis(url);
  try {
    const keys = await r.keys('*:quota:*');
    for (const key of keys) if (Object.keys(await r.hgetall(key)).some((f) => f.startsWith('k:'))) return true;
    return false;
  } finally {
    r.disconnect();
  }
}

/** A CSV that takes the parser about a second: long enough to lose Redis in the middle. */
function bigCsv(rows = 300_000): string {
  return (
    'id,name,value,when\n' +
    Array.from({ length: rows }, (_, i) => `${i},name${i},${i * 1.5},2024-01-${String((i % 28) + 1).padStart(2, '0')}`).join('\n') +
    '\n'
  );
}

describe('Redis lost in the middle of a job', () => {
  it('the job is delivered again when Redis returns and completes', async () => {
    const up = await c.upload('mid-job', bigCsv());
    expect(up.status).toBe(202);
    await waitFor(async () => (await c.status('mid-job')).body?.statusInt === 3, 'the job to be processing', 30_000);
    // 3 is written just before the job's first hold: Redis lost in between would only make the
    // run wait for it (no second attempt). The hold in the quota tally means the parse is under way.
    await waitFor(() => holdsUnits(redis.url), 'the job to hold its first Document Unit', 30_000);

    await redis.stop();
    // Longer than the parse: the worker finishes it while Redis is away and cannot record it.
    await new Promise((r) => setTimeout(r, 3000));
    await redis.start();
    const back = performance.now();

    const done = await waitFor(
      async () => {
        const s = await c.status('mid-job').catch(() => null);
        return s?.status === 200 && (s.body.statusInt === 8 || s.body.statusInt === 9) ? s.body : null;
      },
      'the job to finish after Redis returned',
      60_000,
    );
    timings.add('job interrupted by the outage: Redis back → completed', Math.round(performance.now() - back));
    expect(done.statusInt).toBe(8);
    expect(done.attempts).toBeGreaterThanOrEqual(2);
  });
});

describe('Redis hung (SIGSTOP: the connection stays open, nothing answers)', () => {
  it('requests still answer 503 (after the command timeout at most), and the node recovers on SIGCONT', async () => {
    await uploadAndComplete(c, 'before-hang');
    redis.freeze();
    try {
      const first = await Promise.all([c.status('before-hang'), c.upload('during-hang'), c.token()]);
      const next = await Promise.all([c.status('before-hang'), c.upload('during-hang-2'), c.token()]);
      timings.add('hung: first status poll → 503', first[0].ms);
      timings.add('hung: next status poll → 503', next[0].ms);
      for (const r of [first[0], first[1], next[0], next[1]]) expectUnavailableProblem(r, 'Redis');
      for (const r of [first[2], next[2]]) expectUnavailableOAuth(r, 'Redis');
      expectNotReady(await c.ready(), 'jobStore', 'Redis');
    } finally {
      redis.thaw();
    }
    timings.add('hung: SIGCONT → /health/ready 200', await readyAgain(c, performance.now()));
    expect((await c.status('before-hang')).body.statusInt).toBe(8);
  });
});
