// Two `docparse serve` processes share a private Redis, a private PostgreSQL and an S3
// bucket (s3rver). 100 CSV jobs are uploaded; while both nodes are parsing, one is killed
// with SIGKILL. The other takes over the dead node's delivery after its lock expires: every
// job completes (0 lost) and every document is charged once (0 charged twice). The takeover
// time — from the kill until the last delivery in flight at the kill has moved on — is
// printed, and only bounded loosely here (it depends on the machine; ≤ 15 s by design).
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Redis } from 'ioredis';
import { CLUSTER_PREFIX as PREFIX, chargesPerDocument, csvOf, startCluster, uploadCsv, type TestCluster } from '../helpers/cluster.js';
import type { ChildNode } from '../helpers/http.js';
import { getToken, waitFor } from '../helpers/node.js';
import type { JobRecord } from '../../src/jobs/types.js';

vi.setConfig({ testTimeout: 300_000, hookTimeout: 180_000 });

const JOBS = 100;
/** Rows per CSV: a few hundred milliseconds of parsing, so both nodes are busy when one dies. */
const ROWS = 40_000;

let cluster: TestCluster;
let admin: Redis;
const nodes: ChildNode[] = [];

beforeAll(async () => {
  cluster = await startCluster();
  for (const name of ['node-a', 'node-b']) nodes.push(await cluster.startNode(name));
  admin = new Redis(cluster.redis.url);
});

afterAll(async () => {
  await admin?.quit();
  await cluster?.close();
});

/** Deliveries BullMQ holds as active on the light lane (one per busy node here). */
const activeDeliveries = () => admin.llen(`${PREFIX}:bull:light:active`);

describe('takeover after kill -9 of a worker node (Redis mode)', () => {
  it('loses no job, charges none twice, and takes over the dead node’s delivery', async () => {
    const [a, b] = nodes;
    const { store, control } = cluster;
    const app = await cluster.createApp();
    const token = await getToken(a.url, app.clientId, app.clientSecret);
    const ids = Array.from({ length: JOBS }, (_, i) => `job-${String(i).padStart(3, '0')}`);

    // Upload everything to node A; both nodes' workers take deliveries from the shared queue.
    let uploaded = 0;
    const uploads = (async () => {
      for (const [i, id] of ids.entries()) {
        const res = await uploadCsv(a.url, token, id, csvOf(i, ROWS));
        expect(res.status, await res.text()).toBe(202);
        uploaded++;
      }
    })();

    // Kill B while both nodes hold a delivery (B has been parsing for a moment).
    await waitFor(async () => uploaded >= 10 && (await activeDeliveries()) >= 2, 'both nodes to be parsing', 120_000);
    const inFlight = (await store.getMany(app.tenantId, ids)).filter((r): r is JobRecord => r !== null && [3, 4, 7].includes(r.statusInt));
    b.child.kill('SIGKILL');
    const killedAt = performance.now();
    await b.exited;

    // Takeover: every delivery in flight at the kill moves on (its record changes state or is
    // transitioned again). A's own moves on within its parse; B's only after the takeover.
    const pending = new Map(inFlight.map((r) => [r.documentId, `${r.statusInt}@${r.updatedAt}`]));
    const movedAfter = new Map<string, number>();
    await waitFor(
      async () => {
        const now = await store.getMany(app.tenantId, [...pending.keys()]);
        now.forEach((r, i) => {
          const id = [...pending.keys()][i];
          if (r && `${r.statusInt}@${r.updatedAt}` !== pending.get(id) && !movedAfter.has(id)) movedAfter.set(id, performance.now() - killedAt);
        });
        return movedAfter.size === pending.size;
      },
      'the deliveries in flight at the kill to move on',
      60_000,
    );
    const takeoverMs = Math.round(Math.max(...movedAfter.values()));

    await uploads;
    // 0 lost: every job completes on the surviving node.
    const done = await waitFor(
      async () => {
        const recs = await store.getMany(app.tenantId, ids);
        return recs.every((r) => r?.statusInt === 8 || r?.statusInt === 9) ? recs : null;
      },
      'every job to finish',
      240_000,
    );
    const completed = done.filter((r) => r?.statusInt === 8).length;

    // 0 charged twice: one usage row per document.
    const perDocument = await chargesPerDocument(control, app.appId);
    const chargedTwice = [...perDocument.values()].filter((n) => n > 1).length;

    console.log(
      [
        '\nTakeover after kill -9 (2 nodes, 1 parsing thread each, shared Redis/PostgreSQL/S3)',
        `| jobs | in flight at kill | completed | failed | charged twice | takeover (kill → last in-flight delivery moved on) |`,
        `|---:|---:|---:|---:|---:|---:|`,
        `| ${JOBS} | ${inFlight.length} | ${completed} | ${JOBS - completed} | ${chargedTwice} | ${takeoverMs} ms |`,
        `per delivery (ms after kill): ${[...movedAfter.entries()].map(([id, ms]) => `${id} ${Math.round(ms)}`).join(', ')}`,
      ].join('\n'),
    );

    expect(inFlight.length).toBeGreaterThanOrEqual(1);
    expect(completed).toBe(JOBS);
    expect(perDocument.size).toBe(JOBS);
    expect(chargedTwice).toBe(0);
    expect(takeoverMs).toBeLessThan(60_000);
    // The survivor is still healthy.
    expect((await fetch(`${a.url}/health/ready`)).status).toBe(200);
  });
});
