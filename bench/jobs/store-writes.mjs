// Sequential job-store writes on Redis (put + 3 transitions per job), for comparing two builds:
// node bench/jobs/store-writes.mjs <repo root with dist/> [jobs]. Keys under a random prefix, removed after.
import { randomUUID } from 'node:crypto';
const [which, n] = [process.argv[2], Number(process.argv[3] ?? 2000)];
const { RedisJobStore } = await import(`${which}/dist/jobs/redis-store.js`);
const prefix = `bench-${randomUUID().slice(0, 8)}`;
const store = new RedisJobStore({ url: 'redis://127.0.0.1:6379', prefix });
const now = new Date();
const rec = (i) => ({
  tenantId: 't',
  appId: 'a',
  documentId: `d${i}`,
  generation: `g${i}`,
  statusInt: 2,
  format: 'csv',
  lane: 'light',
  fileName: null,
  options: {},
  customMetadata: null,
  uploadKey: 'k',
  sizeBytes: 1,
  sha256: 'x',
  attempts: 0,
  createdAt: now.toISOString(),
  updatedAt: now.toISOString(),
  startedAt: null,
  completedAt: null,
  expiresAt: new Date(Date.now() + 3600e3).toISOString(),
  error: null,
  artifactKey: null,
  artifactBytes: null,
  documentUnits: null,
  storageConfigId: null,
});
await store.put(rec(-1));
const t = process.hrtime.bigint();
for (let i = 0; i < n; i++) {
  const r = rec(i);
  await store.put(r);
  await store.transition(r, 3, { attempts: 1 });
  await store.transition(r, 4);
  await store.transition(r, 8, { documentUnits: 1 });
}
const ms = Number(process.hrtime.bigint() - t) / 1e6;
console.log(which.split('/').pop(), `${n} jobs x 4 writes: ${ms.toFixed(0)} ms, ${((ms * 1000) / (n * 4)).toFixed(1)} µs per write`);
const keys = await store.redis.keys(`${prefix}*`);
if (keys.length) await store.redis.del(...keys);
await store.close();
