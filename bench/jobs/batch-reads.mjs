// A batch status poll's read in the Redis job store (issue 28): getMany of N job records, this
// dist against another, alternated round by round in one process, on the same Redis. Reports
// the process's CPU (user + system, ioredis and decoding included) per record read, and the
// wall time per getMany. Redis's own CPU is not in it.
//
//   node bench/jobs/batch-reads.mjs [--other /path/to/other/dist] [--ids 50] [--reads 1000] [--rounds 3]
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { args, deleteRedisPrefix, fmt, median, REDIS_URL, ROOT, uptimeLine } from '../e2e/lib.mjs';

const o = args({ other: '', ids: 50, reads: 1000, rounds: 3 });
const dists = [['this', path.join(ROOT, 'dist')], ...(o.other ? [['other', path.resolve(o.other)]] : [])];
const prefix = `dp-bench-${randomBytes(4).toString('hex')}`;

function record(i) {
  const now = new Date();
  return {
    tenantId: 'tenant-bench',
    appId: 'app-bench',
    documentId: `doc-${i}`,
    generation: randomBytes(8).toString('hex'),
    statusInt: 2,
    format: 'csv',
    lane: 'light',
    fileName: 'small.csv',
    options: { csvRoute: 'Tabular' },
    customMetadata: null,
    uploadKey: `jobs/tenant-bench/${i}/upload`,
    sizeBytes: 2048,
    sha256: randomBytes(32).toString('hex'),
    attempts: 0,
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
    startedAt: null,
    completedAt: null,
    expiresAt: new Date(now.getTime() + 3600_000).toISOString(),
    error: null,
    artifactKey: null,
    artifactBytes: null,
    documentUnits: null,
    storageConfigId: null,
    requestId: null,
  };
}

const stores = [];
for (const [name, dist] of dists) {
  const { RedisJobStore } = await import(pathToFileURL(path.join(dist, 'jobs/redis-store.js')).href);
  stores.push({ name, store: new RedisJobStore({ url: REDIS_URL, prefix }), cpu: [], wall: [] });
}
try {
  const ids = Array.from({ length: o.ids }, (_, i) => `doc-${i}`);
  for (let i = 0; i < o.ids; i++) {
    const r = record(i);
    await stores[0].store.put(r);
    // As the worker leaves it: a patch field beside the record.
    await stores[0].store.transition(r, 3, { startedAt: new Date().toISOString(), attempts: 1 });
  }
  for (const s of stores) for (let i = 0; i < 100; i++) await s.store.getMany('tenant-bench', ids); // warm-up
  for (let round = 0; round < o.rounds; round++) {
    for (const s of round % 2 ? [...stores].reverse() : stores) {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      for (let i = 0; i < o.reads; i++) {
        const got = await s.store.getMany('tenant-bench', ids);
        if (got.length !== o.ids || !got.every(Boolean)) throw new Error(`${s.name}: a record was not read`);
      }
      const c = process.cpuUsage(c0);
      s.cpu.push(((c.user + c.system) / (o.reads * o.ids)) | 0);
      s.wall.push((performance.now() - t0) / o.reads);
    }
  }
  const lines = [
    `getMany of ${o.ids} records × ${o.reads}, ${o.rounds} rounds alternated; load ${uptimeLine()}`,
    '',
    '| dist | CPU µs per record (per round) | median | wall ms per getMany (median) |',
    '|:--|:--|--:|--:|',
    ...stores.map((s) => `| ${s.name} | ${s.cpu.join(', ')} | ${median(s.cpu)} | ${fmt(median(s.wall), 2)} |`),
  ];
  process.stdout.write(lines.join('\n') + '\n');
} finally {
  await Promise.all(stores.map((s) => s.store.close()));
  await deleteRedisPrefix(prefix);
}
