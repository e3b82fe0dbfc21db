// Jobs that wait for PostgreSQL during an outage (to read the quota, to record their usage)
// resume together when it returns: the node's one probe sees it and wakes them all, instead of
// each job sleeping out its own back-off (11 s after a 20 s outage before: 0.5, 1, 2, 4, 8, 16 s
// …). While it is down each job asks once and then waits: the database is not polled per job.
// Figures (PostgreSQL accepting again → every job completed) are printed, not asserted.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startNode, type RunningNode } from '../../src/node.js';
import { monthOf } from '../../src/tenancy/month.js';
import { waitFor } from '../helpers/node.js';
import { startPostgres, startRedis, type TestServer } from '../helpers/servers.js';
import { client, DEMO, signIn, Timings, type Client } from './harness.js';

vi.setConfig({ testTimeout: 240_000, hookTimeout: 120_000 });

/** What the node logged at warn level and above, one object per line. */
const logged: { msg: string; documentId?: string }[] = [];
const logStream = new Writable({
  write(chunk: Buffer, _enc, done) {
    for (const line of chunk.toString().split('\n')) if (line.trim()) logged.push(JSON.parse(line));
    done();
  },
});

let redis: TestServer;
let pgServer: TestServer;
let node: RunningNode;
let dataDir: string;
let c: Client;
const timings = new Timings();

beforeAll(async () => {
  [redis, pgServer] = await Promise.all([startRedis(), startPostgres()]);
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'dp-resume-'));
  const config = loadConfig({
    PORT: '0',
    DOCPARSE_DATA_DIR: dataDir,
    DOCPARSE_WORKER_THREADS: '2',
    DOCPARSE_SEED_DEMO: 'true',
    DOCPARSE_DEMO_CLIENT_ID: DEMO.clientId,
    DOCPARSE_DEMO_CLIENT_SECRET: DEMO.clientSecret,
    DATABASE_URL: pgServer.url,
    REDIS_URL: redis.url,
    DOCPARSE_MASTER_KEY: randomBytes(32).toString('hex'),
  });
  node = await startNode(config, { logger: pino({ level: 'warn' }, logStream), redisPrefix: `dp-resume-${randomUUID().slice(0, 8)}` });
  c = client(`http://127.0.0.1:${node.port}`);
  await waitFor(async () => (await c.ready()).status === 200, 'the node to be ready');
  await signIn(c);
});

afterAll(async () => {
  timings.print('Jobs waiting for PostgreSQL resume when it returns (private server, SIGKILL, restarted on the same port)');
  await node?.close();
  await Promise.all([redis?.close(), pgServer?.close()]);
  if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
});

/** Units held by jobs in progress: in Redis when the node keeps its quota there, else in the control plane. */
async function heldUnits(): Promise<number> {
  const db = new pg.Client({ connectionString: pgServer.url });
  await db.connect();
  const redisClient = new Redis(redis.url);
  try {
    const { rows } = await db.query<{ n: string }>('SELECT COALESCE(SUM(units), 0) AS n FROM usage_holds');
    let held = Number(rows[0].n);
    for (const key of await redisClient.keys('*:quota:*')) held += Number((await redisClient.hget(key, 'held')) ?? 0);
    return held;
  } finally {
    await db.end();
    redisClient.disconnect();
  }
}

const status = async (id: string): Promise<number | undefined> => (await c.status(id)).body?.statusInt;

describe('after a PostgreSQL outage', () => {
  it('jobs waiting to record their usage complete as soon as it is back, each charged once, none lost', async () => {
    // Two parses of a few seconds each, one per thread: PostgreSQL goes down while they run.
    const csv = 'id,name,value\n' + Array.from({ length: 1_200_000 }, (_, i) => `${i},n${i},${i / 7}`).join('\n');
    const ids = ['during-1', 'during-2'];
    for (const id of ids) expect((await c.upload(id, csv)).status).toBe(202);
    await waitFor(async () => (await Promise.all(ids.map(status))).every((s) => s === 3), 'both parses to start', 60_000);
    await waitFor(async () => (await heldUnits()) >= ids.length, 'both jobs to hold their unit', 30_000);
    await pgServer.stop();
    const down = performance.now();

    // They finish parsing, cannot record their usage, and wait with their results.
    await waitFor(async () => (await Promise.all(ids.map(status))).every((s) => s === 4), 'both jobs to reach materializing', 90_000);
    // Long enough that a job sleeping its own back-off would be in an 8–16 s sleep by now.
    await new Promise((r) => setTimeout(r, 16_000));
    expect(await Promise.all(ids.map(status))).toEqual([4, 4]);
    timings.add('outage length', Math.round(performance.now() - down));

    const restart = performance.now();
    await pgServer.start();
    const back = performance.now();
    await waitFor(async () => (await Promise.all(ids.map(status))).every((s) => s === 8 || s === 9), 'both jobs to finish', 60_000);
    const finished = performance.now();
    timings.add('PostgreSQL restart (start() → accepting)', Math.round(back - restart));
    timings.add('PostgreSQL accepting → both jobs completed (polled every 100 ms)', Math.round(finished - back));

    expect(await Promise.all(ids.map(status))).toEqual([8, 8]);
    for (const id of ids) expect((await c.result(id)).status).toBe(200);
    const charges = (await node.controlPlane.listUsage({ month: monthOf(new Date()) })).filter((u) => ids.includes(u.documentId));
    expect(charges.map((u) => u.documentId).sort()).toEqual(ids);
    // Each job asked once (at most twice, should a probe answer a moment before the pool's
    // next connection does) and then waited for the probe: it did not retry on its own.
    for (const id of ids) {
      const tries = logged.filter((l) => l.documentId === id && /could not record usage/.test(l.msg)).length;
      expect(tries, `${id} tried to record its usage ${tries} times during the outage`).toBeGreaterThanOrEqual(1);
      expect(tries).toBeLessThanOrEqual(2);
    }
  });
});
