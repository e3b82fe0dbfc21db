// One notification, one sender at a time, across nodes: senders on separate PostgreSQL
// connections (as on separate nodes) claiming the same due rows at once never get the same
// row, and a row whose lease ran out (its sender died mid-attempt) is claimed again.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobState, type JobRecord } from '../../src/jobs/types.js';
import { openControlPlaneStore, type SqlControlPlaneStore } from '../../src/tenancy/sql-store.js';
import { WebhookDeliveryStore } from '../../src/webhooks/delivery-store.js';
import { payloadOf } from '../../src/webhooks/payload.js';
import { createTempDatabase, type TempDatabase } from '../helpers/pg.js';

describe('webhook outbox claims (PostgreSQL)', () => {
  let db: TempDatabase;
  const nodes: SqlControlPlaneStore[] = [];

  beforeAll(async () => {
    db = await createTempDatabase();
    for (let i = 0; i < 3; i++) nodes.push(await openControlPlaneStore({ databaseUrl: db.url, dataDir: '/nonexistent' }));
  });
  afterAll(async () => {
    for (const n of nodes) await n.close();
    await db?.drop();
  });

  const job = (i: number) =>
    ({
      tenantId: 't1',
      appId: 'a1',
      documentId: `doc-${i}`,
      generation: randomUUID(),
      statusInt: JobState.Completed,
      completedAt: new Date().toISOString(),
      documentUnits: 1,
      error: null,
      callbackUrl: 'https://hooks.example.com/x',
    }) as unknown as JobRecord & { callbackUrl: string };

  it('three senders claiming 60 due rows at once share them without overlap, none over its limit; a second enqueue of one job is a no-op', async () => {
    const stores = nodes.map((n) => new WebhookDeliveryStore(n.db));
    const jobs = Array.from({ length: 60 }, (_, i) => job(i));
    for (const j of jobs) await stores[0].enqueue(j, payloadOf(j));
    await stores[1].enqueue(jobs[0], payloadOf(jobs[0]));
    const claimed: string[][] = [[], [], []];
    for (let round = 0; round < 10; round++) {
      const got = await Promise.all(stores.map((s, i) => s.claimDue(`node-${i}`, { limit: 4, leaseSeconds: 60 })));
      for (const rows of got) expect(rows.length).toBeLessThanOrEqual(4);
      got.forEach((rows, i) => claimed[i].push(...rows.map((r) => r.id)));
    }
    const all = claimed.flat();
    expect(all).toHaveLength(60);
    expect(new Set(all).size).toBe(60);
    // Nothing is left to claim while the leases hold.
    expect(await stores[2].claimDue('node-2', { limit: 100, leaseSeconds: 60 })).toEqual([]);
  });

  it('a row whose lease ran out is claimed again (same webhook-id), and the late sender cannot stamp it', async () => {
    const [a, b] = nodes.map((n) => new WebhookDeliveryStore(n.db));
    const j = job(1000);
    await a.enqueue(j, payloadOf(j));
    const [first] = await a.claimDue('dead-node', { limit: 100, leaseSeconds: 0.2 });
    expect(first.documentId).toBe('doc-1000');
    await new Promise((r) => setTimeout(r, 400));
    const again = await b.claimDue('live-node', { limit: 100, leaseSeconds: 60 });
    expect(again.map((r) => r.id)).toEqual([first.id]);
    expect(again[0].attempts).toBe(2);
    expect(await a.markDelivered(first.id, 'dead-node', 200)).toBe(false);
    expect(await b.markDelivered(first.id, 'live-node', 200)).toBe(true);
    expect((await b.get('t1', 'doc-1000', j.generation))?.deliveredAt).not.toBeNull();
  });
});
