// The quota's cost per job in the node, each keeper against the control plane's SQL
// transactions it replaces (issue 28): per job one admission read (committed), one reserve and
// one settle, C jobs at a time, N jobs, one app with room for all of them. Prints the node's
// CPU per job (process.cpuUsage: this process only — PostgreSQL's and Redis' own CPU is not
// in it) and jobs/s. Embedded: PGlite in memory; distributed: a throw-away database and a
// dp-bench- Redis prefix, both removed after.
//
//   node bench/quota/keepers.mjs [--jobs 2000] [--concurrency 32] [--runs 3]
import { randomUUID } from 'node:crypto';
import { args, createDatabase, deleteRedisPrefix, median, REDIS_URL } from '../e2e/lib.mjs';
import { PGliteSqlClient } from '../../dist/db/sql.js';
import { openControlPlaneStore, SqlControlPlaneStore } from '../../dist/tenancy/sql-store.js';
import { SqlQuotaKeeper } from '../../dist/tenancy/quota/sql-keeper.js';
import { LedgerQuotaKeeper } from '../../dist/tenancy/quota/ledger-keeper.js';
import { MemoryTallies } from '../../dist/tenancy/quota/memory-tallies.js';
import { RedisTallies } from '../../dist/tenancy/quota/redis-tallies.js';

const o = args({ jobs: 2000, concurrency: 32, runs: 3 });
const MONTH = new Date().toISOString().slice(0, 7);

async function newApp(store) {
  const tenant = await store.createTenant({ name: 'bench' });
  const app = await store.createApp({
    tenantId: tenant.id,
    name: 'bench',
    licenseRegion: 'local',
    dbCode: 'db1',
    clientId: `bench-${randomUUID()}`,
    secretHash: 'x',
  });
  return { tenantId: tenant.id, appId: app.id };
}

/** N jobs, C at a time: admission, reserve 1, settle 1. Returns CPU ms per job and jobs/s. */
async function run(keeper, app) {
  const quota = 1e9;
  let next = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: o.concurrency }, async () => {
      while (next < o.jobs) {
        next++;
        const chargeKey = randomUUID();
        const job = { chargeKey, tenantId: app.tenantId, appId: app.appId, documentId: chargeKey, month: MONTH };
        await keeper.committed(app.appId, MONTH);
        const held = await keeper.reserve({ ...job, units: 1, quota, holdSeconds: 3600 });
        if (!held.ok) throw new Error('refused');
        const charged = await keeper.settle({ ...job, format: 'csv', units: 1, quota });
        if (!charged.ok) throw new Error('refused');
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  return { cpuMsPerJob: (cpu.user + cpu.system) / 1000 / o.jobs, jobsPerSec: o.jobs / seconds };
}

async function measure(name, keeper, store) {
  const app = await newApp(store);
  await run(keeper, app); // warm-up: the month's tally, JIT, connections
  const rows = [];
  for (let i = 0; i < o.runs; i++) rows.push(await run(keeper, await newApp(store)));
  const m = { name, cpuMsPerJob: median(rows.map((r) => r.cpuMsPerJob)), jobsPerSec: median(rows.map((r) => r.jobsPerSec)), runs: rows };
  console.error(`${name}: ${m.cpuMsPerJob.toFixed(3)} ms CPU/job, ${m.jobsPerSec.toFixed(0)} jobs/s (median of ${o.runs})`);
  return m;
}

const results = [];
const pglite = new SqlControlPlaneStore(await PGliteSqlClient.open());
await pglite.migrate();
results.push(await measure('embedded, SQL transactions (before)', new SqlQuotaKeeper(pglite), pglite));
results.push(await measure('embedded, in-process tallies', new LedgerQuotaKeeper({ db: pglite.db, tallies: new MemoryTallies() }), pglite));
await pglite.close();

const db = await createDatabase();
const prefix = `dp-bench-${randomUUID().slice(0, 8)}`;
const pg = await openControlPlaneStore({ databaseUrl: db.url, dataDir: '/nonexistent' });
try {
  results.push(await measure('distributed, SQL transactions (before)', new SqlQuotaKeeper(pg), pg));
  const redis = new LedgerQuotaKeeper({ db: pg.db, tallies: new RedisTallies({ url: REDIS_URL, prefix }) });
  results.push(await measure('distributed, Redis tallies', redis, pg));
  await redis.close();
} finally {
  await pg.close();
  await db.drop();
  await deleteRedisPrefix(prefix);
}
process.stdout.write(JSON.stringify({ jobs: o.jobs, concurrency: o.concurrency, results }, null, 2) + '\n');
