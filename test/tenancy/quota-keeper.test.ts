// The quota keepers hold and charge Document Units against an app's monthly quota, a hard
// limit, without a control-plane transaction per decision: in process on the embedded control
// plane (PGlite), in Redis in front of PostgreSQL in a cluster (two keepers here are two
// nodes). Whatever they decide, the usage ledger is the durable truth: every charge is in it
// before settle answers, once per charge key, and a tally that is lost (a restart, Redis
// losing its keys) comes back from it.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openControlPlaneStore, type SqlControlPlaneStore } from '../../src/tenancy/sql-store.js';
import { LedgerQuotaKeeper } from '../../src/tenancy/quota/ledger-keeper.js';
import { MemoryTallies } from '../../src/tenancy/quota/memory-tallies.js';
import { RedisTallies } from '../../src/tenancy/quota/redis-tallies.js';
import type { QuotaKeeper } from '../../src/tenancy/quota/keeper.js';
import type { QuotaCheck } from '../../src/tenancy/types.js';
import { createTempDatabase, type TempDatabase } from '../helpers/pg.js';
import { TEST_REDIS_URL } from '../helpers/node.js';
import { freshPGliteStore } from './fixtures.js';

const MONTH = '2026-11';

/** A clock the keepers share, so a hold's expiry can be reached without waiting. */
let clock = Date.now();
const now = () => clock;

interface Backend {
  store: SqlControlPlaneStore;
  /** Keepers deciding for the same apps: one in embedded mode (the only writer), two nodes in a cluster. */
  nodes: QuotaKeeper[];
  /** A keeper as after a restart of the node (embedded) or a new node joining (cluster). */
  restart(): Promise<QuotaKeeper>;
  /** Redis only: deletes every tally, as a Redis that lost its keys. */
  loseTallies?(): Promise<void>;
  close(): Promise<void>;
}

async function embedded(): Promise<Backend> {
  const store = await freshPGliteStore();
  const keepers: QuotaKeeper[] = [];
  const keeper = () => {
    const k = new LedgerQuotaKeeper({ db: store.db, tallies: new MemoryTallies(), now });
    keepers.push(k);
    return k;
  };
  return {
    store,
    nodes: [keeper()],
    restart: async () => keeper(),
    close: async () => {
      for (const k of keepers) await k.close();
      await store.close();
    },
  };
}

async function distributed(): Promise<Backend> {
  const db: TempDatabase = await createTempDatabase();
  const prefix = `dp-test-quota-${randomUUID().slice(0, 8)}`;
  const stores: SqlControlPlaneStore[] = [];
  const keepers: QuotaKeeper[] = [];
  const node = async () => {
    const store = await openControlPlaneStore({ databaseUrl: db.url, dataDir: '/nonexistent' });
    stores.push(store);
    const k = new LedgerQuotaKeeper({ db: store.db, tallies: new RedisTallies({ url: TEST_REDIS_URL, prefix }), now });
    keepers.push(k);
    return k;
  };
  const nodes = [await node(), await node()];
  const admin = new Redis(TEST_REDIS_URL);
  const tallyKeys = async () => {
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, found] = await admin.scan(cursor, 'MATCH', `${prefix}:quota:*`, 'COUNT', 1000);
      cursor = next;
      keys.push(...found);
    } while (cursor !== '0');
    return keys;
  };
  return {
    store: stores[0],
    nodes,
    restart: node,
    loseTallies: async () => {
      const keys = await tallyKeys();
      if (keys.length) await admin.del(...keys);
    },
    close: async () => {
      for (const k of keepers) await k.close();
      for (const s of stores) await s.close();
      const keys = await tallyKeys();
      if (keys.length) await admin.del(...keys);
      await admin.quit();
      await db.drop();
    },
  };
}

const hold = (appId: string, tenantId: string, chargeKey: string, units: number, quota: number, month = MONTH) => ({
  chargeKey,
  tenantId,
  appId,
  documentId: `doc-${chargeKey}`,
  month,
  units,
  quota,
  holdSeconds: 3600,
});
const charge = (appId: string, tenantId: string, chargeKey: string, units: number, quota: number, month = MONTH) => ({
  chargeKey,
  tenantId,
  appId,
  documentId: `doc-${chargeKey}`,
  month,
  format: 'csv',
  units,
  quota,
});
const granted = (checks: QuotaCheck[]) => checks.filter((c) => c.ok).length;

for (const [mode, open] of [
  ['embedded: in process over PGlite', embedded],
  ['distributed: Redis over PostgreSQL, two nodes', distributed],
] as const) {
  describe(`quota keeper (${mode})`, () => {
    let b: Backend;
    beforeAll(async () => {
      b = await open();
    });
    afterAll(async () => {
      await b?.close();
    });
    afterEach(() => {
      clock = Date.now();
    });

    async function newApp() {
      const tenant = await b.store.createTenant({ name: 'Quota' });
      const app = await b.store.createApp({
        tenantId: tenant.id,
        name: 'quota',
        licenseRegion: 'local',
        dbCode: 'db1',
        clientId: `dp_${randomUUID().replace(/-/g, '')}`,
        secretHash: 'scrypt$hash',
      });
      const ledger = async () => b.store.unitsUsed(app.id, MONTH);
      const rows = async (key?: string) => (await b.store.listUsage({ appId: app.id })).filter((u) => key === undefined || u.chargeKey === key);
      return { appId: app.id, tenantId: tenant.id, ledger, rows };
    }
    /** The node that takes the i-th request: requests alternate between the cluster's nodes. */
    const node = (i: number) => b.nodes[i % b.nodes.length];

    it('thirty jobs reserving at once against a quota of 10: ten are held, charged and in the ledger; the quota is then full', async () => {
      const app = await newApp();
      const keys = Array.from({ length: 30 }, () => randomUUID());
      const reserved = await Promise.all(keys.map((k, i) => node(i).reserve(hold(app.appId, app.tenantId, k, 1, 10))));
      expect(granted(reserved)).toBe(10);
      expect(await node(0).committed(app.appId, MONTH)).toBe(10);
      const holders = keys.filter((_, i) => reserved[i].ok);
      const settled = await Promise.all(holders.map((k, i) => node(i + 1).settle(charge(app.appId, app.tenantId, k, 1, 10))));
      expect(granted(settled)).toBe(10);
      expect(await app.ledger()).toBe(10);
      expect(await node(1).committed(app.appId, MONTH)).toBe(10);
      expect(await node(0).reserve(hold(app.appId, app.tenantId, randomUUID(), 1, 10))).toEqual({ ok: false, used: 10, held: 0, quota: 10 });
    });

    it('eight jobs holding 1 unit each, settling 3 each at once against a quota of 10: three are charged (9 units), five refused and charged nothing', async () => {
      const app = await newApp();
      const keys = Array.from({ length: 8 }, () => randomUUID());
      expect(granted(await Promise.all(keys.map((k, i) => node(i).reserve(hold(app.appId, app.tenantId, k, 1, 10)))))).toBe(8);
      const settled = await Promise.all(keys.map((k, i) => node(i + 1).settle(charge(app.appId, app.tenantId, k, 3, 10))));
      expect(granted(settled)).toBe(3);
      expect(await app.ledger()).toBe(9);
      expect((await app.rows()).map((r) => r.chargeKey).sort()).toEqual(keys.filter((_, i) => settled[i].ok).sort());
      // The refused jobs' holds went with their refusal.
      expect(await node(0).committed(app.appId, MONTH)).toBe(9);
    });

    it('a settle retried (on this node or another) charges once', async () => {
      const app = await newApp();
      const key = randomUUID();
      expect(await node(0).reserve(hold(app.appId, app.tenantId, key, 4, 10))).toEqual({ ok: true });
      const settles = await Promise.all([
        node(0).settle(charge(app.appId, app.tenantId, key, 4, 10)),
        node(1).settle(charge(app.appId, app.tenantId, key, 4, 10)),
      ]);
      expect(settles).toEqual([{ ok: true }, { ok: true }]);
      expect(await node(0).settle(charge(app.appId, app.tenantId, key, 4, 10))).toEqual({ ok: true });
      expect(await app.rows(key)).toHaveLength(1);
      expect(await app.ledger()).toBe(4);
      expect(await node(1).committed(app.appId, MONTH)).toBe(4);
      // The quota still has exactly its 6 other units.
      expect(await node(0).reserve(hold(app.appId, app.tenantId, randomUUID(), 6, 10))).toEqual({ ok: true });
      expect((await node(1).reserve(hold(app.appId, app.tenantId, randomUUID(), 1, 10))).ok).toBe(false);
    });

    it('after a restart the charged units come back from the ledger, and a job charged before it re-runs without being refused or charged again', async () => {
      const app = await newApp();
      const key = randomUUID();
      await node(0).reserve(hold(app.appId, app.tenantId, key, 5, 5));
      expect(await node(0).settle(charge(app.appId, app.tenantId, key, 5, 5))).toEqual({ ok: true });
      // Killed before the job was marked completed: the job runs again under its charge key.
      const again = await b.restart();
      expect(await again.committed(app.appId, MONTH)).toBe(5);
      expect(await again.reserve(hold(app.appId, app.tenantId, key, 1, 5))).toEqual({ ok: true });
      expect(await again.settle(charge(app.appId, app.tenantId, key, 5, 5))).toEqual({ ok: true });
      expect(await app.rows(key)).toHaveLength(1);
      expect(await again.committed(app.appId, MONTH)).toBe(5);
      expect(await again.reserve(hold(app.appId, app.tenantId, randomUUID(), 1, 5))).toEqual({ ok: false, used: 5, held: 0, quota: 5 });
    });

    it('a released hold and a hold whose node died (lapsed) give their units back', async () => {
      const app = await newApp();
      const [a, dead] = [randomUUID(), randomUUID()];
      await node(0).reserve(hold(app.appId, app.tenantId, a, 3, 5));
      await node(1).reserve(hold(app.appId, app.tenantId, dead, 2, 5));
      expect(await node(0).reserve(hold(app.appId, app.tenantId, randomUUID(), 1, 5))).toEqual({ ok: false, used: 0, held: 5, quota: 5 });
      await node(0).release({ chargeKey: a, appId: app.appId, month: MONTH });
      expect(await node(1).committed(app.appId, MONTH)).toBe(2);
      clock += 3600_000 + 1;
      expect(await node(0).committed(app.appId, MONTH)).toBe(0);
      expect(await node(1).reserve(hold(app.appId, app.tenantId, randomUUID(), 5, 5))).toEqual({ ok: true });
    });

    it('a job holding units at the end of a month and finishing in the next is charged to the next, and its hold leaves the last', async () => {
      const app = await newApp();
      const key = randomUUID();
      await node(0).reserve(hold(app.appId, app.tenantId, key, 4, 4, '2026-10'));
      expect(await node(1).committed(app.appId, '2026-10')).toBe(4);
      expect(await node(1).settle(charge(app.appId, app.tenantId, key, 4, 4, MONTH))).toEqual({ ok: true });
      expect(await node(0).committed(app.appId, '2026-10')).toBe(0);
      expect(await node(0).committed(app.appId, MONTH)).toBe(4);
      expect(await b.store.unitsUsed(app.appId, MONTH)).toBe(4);
    });

    it('a plan change applies at once: the quota is the one passed with each decision', async () => {
      const app = await newApp();
      const key = randomUUID();
      await node(0).reserve(hold(app.appId, app.tenantId, key, 3, 5));
      expect(await node(1).settle(charge(app.appId, app.tenantId, key, 3, 5))).toEqual({ ok: true });
      expect((await node(0).reserve(hold(app.appId, app.tenantId, randomUUID(), 3, 5))).ok).toBe(false);
      expect(await node(1).reserve(hold(app.appId, app.tenantId, randomUUID(), 3, 6))).toEqual({ ok: true });
    });

    if (mode.startsWith('distributed')) {
      it('when Redis loses its keys, the charged units are seeded again from the ledger and the quota holds', async () => {
        const app = await newApp();
        const keys = Array.from({ length: 7 }, () => randomUUID());
        for (const [i, k] of keys.entries()) {
          await node(i).reserve(hold(app.appId, app.tenantId, k, 1, 10));
          await node(i).settle(charge(app.appId, app.tenantId, k, 1, 10));
        }
        const inFlight = randomUUID();
        await node(0).reserve(hold(app.appId, app.tenantId, inFlight, 2, 10));
        await b.loseTallies!();
        // Both nodes rebuild at once; they agree on one seed.
        expect(await Promise.all([node(0).committed(app.appId, MONTH), node(1).committed(app.appId, MONTH)])).toEqual([7, 7]);
        // Jobs reserving at once after the loss still cannot cross the quota.
        const reserved = await Promise.all(Array.from({ length: 6 }, (_, i) => node(i).reserve(hold(app.appId, app.tenantId, randomUUID(), 1, 10))));
        expect(granted(reserved)).toBe(3);
        // The job in flight lost its hold: it settles against what is left (nothing), and is charged nothing.
        expect((await node(1).settle(charge(app.appId, app.tenantId, inFlight, 2, 10))).ok).toBe(false);
        expect(await app.ledger()).toBe(7);
      });
    }
  });
}

describe('quota keeper (embedded) across a restart of the node', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'dp-quota-'));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('the month’s charges come back from the ledger on disk; the holds of the jobs that were running do not', async () => {
    const first = await openControlPlaneStore({ dataDir });
    const tenant = await first.createTenant({ name: 'Restart' });
    const app = await first.createApp({
      tenantId: tenant.id,
      name: 'r',
      licenseRegion: 'local',
      dbCode: 'db1',
      clientId: `dp_${randomUUID()}`,
      secretHash: 'x',
    });
    const keeper = new LedgerQuotaKeeper({ db: first.db, tallies: new MemoryTallies() });
    const done = randomUUID();
    await keeper.reserve(hold(app.id, tenant.id, done, 6, 10));
    expect(await keeper.settle(charge(app.id, tenant.id, done, 6, 10))).toEqual({ ok: true });
    await keeper.reserve(hold(app.id, tenant.id, randomUUID(), 4, 10)); // running when the node stops
    expect(await keeper.committed(app.id, MONTH)).toBe(10);
    await keeper.close();
    await first.close();

    const second = await openControlPlaneStore({ dataDir });
    try {
      const after = new LedgerQuotaKeeper({ db: second.db, tallies: new MemoryTallies() });
      expect(await after.committed(app.id, MONTH)).toBe(6);
      expect(await after.reserve(hold(app.id, tenant.id, randomUUID(), 5, 10))).toEqual({ ok: false, used: 6, held: 0, quota: 10 });
      expect(await after.reserve(hold(app.id, tenant.id, randomUUID(), 4, 10))).toEqual({ ok: true });
    } finally {
      await second.close();
    }
  });
});
