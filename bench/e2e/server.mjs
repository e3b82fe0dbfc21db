// Bench server: one docparse node started in-process from dist (startNode(loadConfig(env))),
// with the Redis key prefix from BENCH_REDIS_PREFIX (a dedicated 'dp-bench-…' prefix, never the
// default 'docparse'), and one tenant + high-limit plan + app created through the control
// plane. Prints one JSON line {port, clientId, clientSecret, pid, jobs}; SIGTERM closes it.
// Started by lib.mjs startBenchServer(), which owns (and removes) the data dir, database and keys.
import { randomUUID } from 'node:crypto';
import { loadConfig } from '../../dist/config.js';
import { startNode } from '../../dist/node.js';
import { hashSecret, generateClientSecret } from '../../dist/identity/secrets.js';

const prefix = process.env.BENCH_REDIS_PREFIX || undefined;
if (process.env.REDIS_URL && !prefix?.startsWith('dp-bench-')) throw new Error('redis mode needs a dp-bench- prefix');

// BENCH_ROLES: e.g. 'api,auth' for a node without the worker role (as `docparse serve --role api --role auth`).
const roles = process.env.BENCH_ROLES ? process.env.BENCH_ROLES.split(',') : undefined;
const node = await startNode(loadConfig(process.env, roles), { redisPrefix: prefix });
const store = node.controlPlane;
const tenant = await store.createTenant({ name: `bench-${randomUUID().slice(0, 6)}` });
await store.setTenantState(tenant.id, 'Active');
const plan = await store.createPlan({
  name: `bench-${randomUUID().slice(0, 6)}`,
  maxDocumentUnitsPerMonth: 100_000_000,
  advancedPdfExtraction: true,
  ocrPdfExtraction: true,
  maxFileSizeBytes: Number(process.env.BENCH_MAX_FILE_BYTES ?? 4 * 1024 ** 3),
  maxConcurrentJobs: 100_000,
  maxBytesPerSecond: 64 * 1024 ** 3,
});
/** An app of the plan in the tenant; its credentials. */
async function benchApp(tenantId) {
  const clientId = `bench-${randomUUID()}`;
  const clientSecret = generateClientSecret();
  await store.createApp({
    tenantId,
    name: 'bench app',
    licenseRegion: 'local',
    dbCode: 'db1',
    clientId,
    secretHash: await hashSecret(clientSecret),
    planId: plan.id,
  });
  return { clientId, clientSecret };
}
const { clientId, clientSecret } = await benchApp(tenant.id);
// BENCH_TENANTS=N: N − 1 more tenants with an app each (bench/e2e/fairness.mjs), printed as `others`.
const others = [];
for (let i = 1; i < Number(process.env.BENCH_TENANTS || 1); i++) {
  const t = await store.createTenant({ name: `bench-${randomUUID().slice(0, 6)}` });
  await store.setTenantState(t.id, 'Active');
  others.push(await benchApp(t.id));
}

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  const t = setTimeout(() => process.exit(0), 15_000);
  t.unref();
  try {
    await node.close();
  } finally {
    process.exit(0);
  }
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.stdout.write(JSON.stringify({ port: node.port, clientId, clientSecret, others, pid: process.pid, jobs: node.jobs.kind }) + '\n');
