// A job that finishes parsing while PostgreSQL is down keeps its result and is charged once
// the control plane is back — it is not failed (before: the charge failed, three quick
// retries were used up, and every such job failed for good).
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import pg from 'pg';
import { Redis } from 'ioredis';
import type { TestServer } from '../helpers/servers.js';
import { waitFor } from '../helpers/node.js';
import { startOutageRig, type Client, type OutageNode, type OutageRig } from './harness.js';
import { monthOf } from '../../src/tenancy/month.js';

vi.setConfig({ testTimeout: 180_000, hookTimeout: 120_000 });

let pgServer: TestServer;
let node: OutageNode;
let c: Client;
let rig: OutageRig;

beforeAll(async () => {
  ({ pg: pgServer, node, c } = rig = await startOutageRig());
});

afterAll(async () => {
  await rig?.close();
});

/** Units held by jobs in progress: in Redis when the node keeps its quota there, else in the control plane. */
async function heldUnits(): Promise<number> {
  const db = new pg.Client({ connectionString: pgServer.url });
  await db.connect();
  const redisClient = new Redis(rig.redis.url);
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

describe('a parse that finishes during a PostgreSQL outage', () => {
  it('waits in materializing, then completes and is charged exactly once when PostgreSQL returns', async () => {
    // Parses for a few seconds on one thread: PostgreSQL goes down while it runs.
    const csv = 'id,name,value\n' + Array.from({ length: 1_500_000 }, (_, i) => `${i},n${i},${i / 7}`).join('\n');
    const up = await c.upload('during-parse', csv);
    expect(up.status, JSON.stringify(up.body)).toBe(202);
    await waitFor(async () => (await c.status('during-parse')).body?.statusInt === 3, 'the parse to start', 30_000);
    // The job holds its unit once the parse is under way.
    await waitFor(async () => (await heldUnits()) > 0, 'the job to hold its unit', 30_000);
    await pgServer.stop();

    // The parse ends; the charge cannot be recorded: the job waits with its result.
    await waitFor(async () => (await c.status('during-parse')).body?.statusInt === 4, 'the job to reach materializing', 60_000);
    await new Promise((r) => setTimeout(r, 3000));
    expect((await c.status('during-parse')).body?.statusInt).toBe(4);

    await pgServer.start();
    const done = await waitFor(
      async () => {
        const s = (await c.status('during-parse')).body;
        return s?.statusInt === 8 || s?.statusInt === 9 ? s : null;
      },
      'the job to finish after the outage',
      90_000,
    );
    expect(done.statusInt).toBe(8);
    expect((await c.result('during-parse')).status).toBe(200);
    const charges = await node.node.controlPlane.listUsage({ month: monthOf(new Date()) });
    expect(charges.filter((u) => u.documentId === 'during-parse')).toHaveLength(1);
  });
});
