// Two `docparse serve` processes share a private Redis, a private PostgreSQL and an S3
// bucket (s3rver). 100 CSV jobs are uploaded; while both nodes are parsing, one is killed
// with SIGKILL. The other takes over the dead node's delivery after its lock expires: every
// job completes (0 lost) and every document is charged once (0 charged twice). The takeover
// time — from the kill until the last delivery in flight at the kill has moved on — is
// printed, and only bounded loosely here (it depends on the machine; ≤ 15 s by design).
import fs from 'node:fs/promises';
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Redis } from 'ioredis';
import { RedisJobStore } from '../../src/jobs/redis-store.js';
import { openControlPlaneStore, type SqlControlPlaneStore } from '../../src/tenancy/sql-store.js';
import { hashSecret, generateClientSecret } from '../../src/identity/secrets.js';
import { planInput } from '../tenancy/fixtures.js';
import { startPostgres, startRedis, type TestServer } from '../helpers/servers.js';
import { startS3, type TestS3 } from '../helpers/s3.js';
import { spawnServe, tempDir, type ChildNode } from '../helpers/http.js';
import { getToken, waitFor } from '../helpers/node.js';
import type { JobRecord } from '../../src/jobs/types.js';

vi.setConfig({ testTimeout: 300_000, hookTimeout: 180_000 });

const JOBS = 100;
/** Rows per CSV: a few hundred milliseconds of parsing, so both nodes are busy when one dies. */
const ROWS = 40_000;
const PREFIX = 'docparse'; // the nodes' default Redis key prefix

let redis: TestServer;
let pg: TestServer;
let s3: TestS3;
let control: SqlControlPlaneStore;
let store: RedisJobStore;
let admin: Redis;
const nodes: ChildNode[] = [];
const dirs: string[] = [];

function nodeEnv(name: string, dataDir: string, masterKey: string): Record<string, string> {
  return {
    DOCPARSE_NODE_ID: name,
    DOCPARSE_DATA_DIR: dataDir,
    DATABASE_URL: pg.url,
    REDIS_URL: redis.url,
    DOCPARSE_MASTER_KEY: masterKey,
    DOCPARSE_S3_BUCKET: s3.bucket,
    DOCPARSE_S3_ENDPOINT: s3.endpoint,
    DOCPARSE_S3_ACCESS_KEY_ID: s3.accessKeyId,
    DOCPARSE_S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
    DOCPARSE_S3_FORCE_PATH_STYLE: 'true',
    DOCPARSE_WORKER_THREADS: '1',
    DOCPARSE_RETENTION_SECONDS: '3600',
    LOG_LEVEL: 'warn',
  };
}

beforeAll(async () => {
  [redis, pg, s3] = await Promise.all([startRedis(), startPostgres(), startS3()]);
  const masterKey = randomBytes(32).toString('hex');
  for (const name of ['node-a', 'node-b']) {
    const dir = await tempDir(`dp-takeover-${name}-`);
    dirs.push(dir);
    // One after the other: the first applies the migrations and creates the signing key.
    nodes.push(await spawnServe(nodeEnv(name, dir, masterKey)));
  }
  control = await openControlPlaneStore({ databaseUrl: pg.url, dataDir: dirs[0] });
  store = new RedisJobStore({ url: redis.url, prefix: PREFIX });
  admin = new Redis(redis.url);
});

afterAll(async () => {
  for (const n of nodes) n.kill();
  await Promise.allSettled([store?.close(), control?.close(), admin?.quit()]);
  await Promise.allSettled([redis?.close(), pg?.close(), s3?.close(), ...dirs.map((d) => fs.rm(d, { recursive: true, force: true }))]);
});

/** A tenant and an app whose plan admits all the jobs at once. */
async function createApp(): Promise<{ clientId: string; clientSecret: string; tenantId: string; appId: string }> {
  const tenant = await control.createTenant({ name: `takeover-${randomUUID().slice(0, 6)}` });
  await control.setTenantState(tenant.id, 'Active');
  const plan = await control.createPlan(
    planInput({ maxConcurrentJobs: 1000, maxBytesPerSecond: 1024 ** 3, maxFileSizeBytes: 1024 ** 3, maxDocumentUnitsPerMonth: 1_000_000 }),
  );
  const clientId = `c-${randomUUID()}`;
  const clientSecret = generateClientSecret();
  const app = await control.createApp({
    tenantId: tenant.id,
    name: 'takeover',
    licenseRegion: 'local',
    dbCode: 'db1',
    clientId,
    secretHash: await hashSecret(clientSecret),
    planId: plan.id,
  });
  return { clientId, clientSecret, tenantId: tenant.id, appId: app.id };
}

function csv(seed: number): string {
  const lines = ['id,name,value,when'];
  for (let i = 0; i < ROWS; i++) lines.push(`${i},n${seed}-${i},${(i * 1.5 + seed).toFixed(2)},2024-01-${String((i % 28) + 1).padStart(2, '0')}`);
  return lines.join('\n') + '\n';
}

/** Deliveries BullMQ holds as active on the light lane (one per busy node here). */
const activeDeliveries = () => admin.llen(`${PREFIX}:bull:light:active`);

describe('takeover after kill -9 of a worker node (Redis mode)', () => {
  it('loses no job, charges none twice, and takes over the dead node’s delivery', async () => {
    const [a, b] = nodes;
    const app = await createApp();
    const token = await getToken(a.url, app.clientId, app.clientSecret);
    const ids = Array.from({ length: JOBS }, (_, i) => `job-${String(i).padStart(3, '0')}`);

    // Upload everything to node A; both nodes' workers take deliveries from the shared queue.
    let uploaded = 0;
    const uploads = (async () => {
      for (const [i, id] of ids.entries()) {
        const res = await fetch(`${a.url}/api/v1/documents/upload?${new URLSearchParams({ fileName: `${id}.csv`, csvRoute: 'Tabular', documentId: id })}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}` },
          body: csv(i),
        });
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
    const usage = await control.listUsage({ appId: app.appId });
    const perDocument = new Map<string, number>();
    for (const u of usage) perDocument.set(u.documentId, (perDocument.get(u.documentId) ?? 0) + 1);
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
