// One e-mail, one sender at a time, across nodes: senders on separate PostgreSQL connections
// (as on separate nodes) claiming the same due e-mails at once never get the same one, and
// none gets more than it asked for (a LIMIT inside UPDATE … WHERE id IN (…) once handed one
// sender more rows than its limit under concurrent claims).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueMail, OutboxStore } from '../../src/mail/outbox-store.js';
import { openControlPlaneStore, type SqlControlPlaneStore } from '../../src/tenancy/sql-store.js';
import { createTempDatabase, type TempDatabase } from '../helpers/pg.js';

describe('mail outbox claims (PostgreSQL)', () => {
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

  it('three senders claiming 60 due e-mails at once share them without overlap, none over its limit', async () => {
    for (let i = 0; i < 60; i++) {
      const id = await enqueueMail(nodes[0].db, {
        dedupeKey: `claims-${i}`,
        message: { template: 'tenant-active', params: { tenantId: 't1', tenantName: `claims ${i}`, reactivated: false } },
        recipients: [`owner-${i}@example.com`],
        tenantId: null,
      });
      expect(id).not.toBeNull();
    }
    const stores = nodes.map((n) => new OutboxStore(n.db));
    const claimed: string[][] = [[], [], []];
    for (let round = 0; round < 10; round++) {
      const got = await Promise.all(stores.map((s, i) => s.claimDue(`node-${i}`, { limit: 4, leaseSeconds: 60 })));
      for (const rows of got) expect(rows.length).toBeLessThanOrEqual(4);
      got.forEach((rows, i) => claimed[i].push(...rows.map((r) => r.id)));
    }
    const all = claimed.flat();
    expect(all).toHaveLength(60);
    expect(new Set(all).size).toBe(60);
    expect(await stores[2].claimDue('node-2', { limit: 100, leaseSeconds: 60 })).toEqual([]);
  });
});
