// checkRedisDurability against real redis-server processes configured each way: AOF (fine),
// nothing persisted, RDB snapshots only, an evicting maxmemory-policy, CONFIG disabled (as on
// managed services), and no Redis at all. It warns, never throws.
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { checkRedisDurability } from '../../src/jobs/redis-durability.js';
import { freePort, startRedis, type RedisServerOptions, type TestServer } from '../helpers/servers.js';

vi.setConfig({ testTimeout: 30_000 });

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function redisWith(opts: RedisServerOptions): Promise<TestServer> {
  const s = await startRedis(opts);
  servers.push(s);
  return s;
}

function captureLog() {
  const warnings: string[] = [];
  const infos: string[] = [];
  return { warnings, infos, log: { warn: (_: object, msg: string) => void warnings.push(msg), info: (_: object, msg: string) => void infos.push(msg) } };
}

describe('checkRedisDurability', () => {
  it('AOF and noeviction: durable, no warning', async () => {
    const s = await redisWith({ persistent: true });
    const { log, warnings, infos } = captureLog();
    const r = await checkRedisDurability(s.url, log);
    expect(r).toMatchObject({ durable: true, appendonly: 'yes', maxmemoryPolicy: 'noeviction', problems: [] });
    expect(warnings).toEqual([]);
    expect(infos).toHaveLength(1);
  });

  it('nothing persisted: warns that every accepted job is lost on restart', async () => {
    const s = await redisWith({ persistent: false });
    const { log, warnings } = captureLog();
    const r = await checkRedisDurability(s.url, log);
    expect(r.durable).toBe(false);
    expect(r.appendonly).toBe('no');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/does not persist.*every accepted job is lost when Redis restarts.*appendonly yes/);
  });

  it('RDB snapshots only: warns that jobs after the last snapshot are lost', async () => {
    const s = await redisWith({ persistent: false, config: { save: '3600 1' } });
    const { log, warnings } = captureLog();
    const r = await checkRedisDurability(s.url, log);
    expect(r.durable).toBe(false);
    expect(warnings[0]).toMatch(/only RDB snapshots.*after the last snapshot are lost/);
  });

  it('an evicting maxmemory-policy: warns that jobs can disappear', async () => {
    const s = await redisWith({ persistent: true, config: { 'maxmemory-policy': 'allkeys-lru' } });
    const { log, warnings } = captureLog();
    const r = await checkRedisDurability(s.url, log);
    expect(r).toMatchObject({ durable: false, appendonly: 'yes', maxmemoryPolicy: 'allkeys-lru' });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/evicts keys.*allkeys-lru.*noeviction/);
  });

  it('CONFIG disabled (managed Redis): warns that it could not verify, does not throw', async () => {
    const s = await redisWith({ persistent: true, config: { 'rename-command': ['CONFIG', ''] } });
    const { log, warnings } = captureLog();
    const r = await checkRedisDurability(s.url, log);
    expect(r.durable).toBeNull();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/could not verify that Redis persists/);
  });

  it('takes a connected client and leaves it open', async () => {
    const s = await redisWith({ persistent: false });
    const redis = new Redis(s.url);
    try {
      const r = await checkRedisDurability(redis, captureLog().log);
      expect(r.durable).toBe(false);
      expect(await redis.ping()).toBe('PONG');
    } finally {
      redis.disconnect();
    }
  });

  it('no Redis at the URL: warns within a few seconds, does not throw', async () => {
    const port = await freePort();
    const { log, warnings } = captureLog();
    const t0 = Date.now();
    const r = await checkRedisDurability(`redis://127.0.0.1:${port}`, log);
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(r.durable).toBeNull();
    expect(warnings[0]).toMatch(/could not verify/);
  });
});
