// What one group commit of charges into the embedded control plane (PGlite on disk) costs the
// node, by rows per commit (issue 28, third round: why the ledger waits 25 ms between commits).
//
//   node bench/quota/ledger-commits.mjs [--commits 300] [--runs 2] [--sizes 1,3,8,16]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { args, median } from '../e2e/lib.mjs';
import { openControlPlaneStore } from '../../dist/tenancy/sql-store.js';
import { chargeUsageBatch } from '../../dist/tenancy/store/usage.js';

const o = args({ commits: 300, runs: 2, sizes: '1,3,8,16' });
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dp-bench-ledger-'));
const store = await openControlPlaneStore({ dataDir: dir });
try {
  const tenant = await store.createTenant({ name: 'bench' });
  const app = await store.createApp({
    tenantId: tenant.id,
    name: 'bench',
    licenseRegion: 'local',
    dbCode: 'db1',
    clientId: `bench-${randomUUID()}`,
    secretHash: 'x',
  });
  const month = new Date().toISOString().slice(0, 7);
  const charge = () => ({ chargeKey: randomUUID(), tenantId: tenant.id, appId: app.id, documentId: randomUUID(), month, format: 'csv', units: 1 });
  const sizes = String(o.sizes).split(',').map(Number);
  const perCommit = Object.fromEntries(sizes.map((n) => [n, []]));
  for (let i = 0; i < 100; i++) await chargeUsageBatch(store.db, [charge()]); // warm-up: PGlite's code compiled
  for (let run = 0; run < o.runs; run++) {
    for (const rows of run % 2 ? [...sizes].reverse() : sizes) {
      const c0 = process.cpuUsage();
      for (let i = 0; i < o.commits; i++) await chargeUsageBatch(store.db, Array.from({ length: rows }, charge));
      const c = process.cpuUsage(c0);
      perCommit[rows].push((c.user + c.system) / 1000 / o.commits);
      console.error(`${rows} rows a commit, run ${run + 1}: ${perCommit[rows].at(-1).toFixed(3)} ms CPU per commit`);
    }
  }
  // A statement that does no work: what PGlite costs per statement before any row is written.
  const empty = [];
  for (let run = 0; run < o.runs; run++) {
    const c0 = process.cpuUsage();
    for (let i = 0; i < o.commits; i++) await store.db.query('SELECT 1');
    const c = process.cpuUsage(c0);
    empty.push((c.user + c.system) / 1000 / o.commits);
  }
  console.log(`SELECT 1: ${median(empty).toFixed(3)} ms CPU per statement (median of ${o.runs})`);
  console.log('| rows a commit | ms CPU per commit (median) | ms CPU per row |\n|--:|--:|--:|');
  for (const rows of sizes) console.log(`| ${rows} | ${median(perCommit[rows]).toFixed(3)} | ${(median(perCommit[rows]) / rows).toFixed(3)} |`);
} finally {
  await store.close?.();
  fs.rmSync(dir, { recursive: true, force: true });
}
