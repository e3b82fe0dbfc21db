// What one group commit of charges into the embedded control plane (PGlite on disk) costs the
// node, by rows per commit (issue 28, third round: why the ledger waits 10 ms between commits),
// and what one statement costs: `SELECT 1` through our SqlClient, and through PGlite's own
// `query()` (extended protocol) and `exec()` (simple protocol) for comparison (fifth round).
// With --other, the same against another tree's dist, alternated run by run. Wall time per
// commit too: with a durable commit (an fdatasync of the WAL, off the event loop) it is mostly
// the disk's, not the node's.
//
//   TMPDIR=/mnt/ext4j node bench/quota/ledger-commits.mjs [--other /path/to/other/dist] [--commits 300] [--runs 3] [--sizes 1,4,32,256]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { args, median } from '../e2e/lib.mjs';

const o = args({ other: '', commits: 300, runs: 3, sizes: '1,4,32,256' });
const here = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../dist');
const dists = { this: here, ...(o.other ? { other: path.resolve(o.other) } : {}) };
const sizes = String(o.sizes).split(',').map(Number);

const trees = {};
for (const [name, dist] of Object.entries(dists)) {
  const { openControlPlaneStore } = await import(path.join(dist, 'tenancy/sql-store.js'));
  const { chargeUsageBatch } = await import(path.join(dist, 'tenancy/store/usage.js'));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dp-bench-ledger-'));
  const store = await openControlPlaneStore({ dataDir: dir });
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
  const commit = (rows) => chargeUsageBatch(store.db, Array.from({ length: rows }, charge));
  for (const rows of sizes) for (let i = 0; i < 50; i++) await commit(rows); // warm-up: PGlite's code compiled, statements prepared
  trees[name] = {
    dir,
    store,
    commit,
    perCommit: Object.fromEntries(sizes.map((n) => [n, []])),
    wallPerCommit: Object.fromEntries(sizes.map((n) => [n, []])),
    select: [],
  };
}

let lastWall = 0;
const cpuPer = async (n, fn) => {
  const c0 = process.cpuUsage();
  const w0 = performance.now();
  for (let i = 0; i < n; i++) await fn();
  lastWall = (performance.now() - w0) / n;
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000 / n;
};

// PGlite's own calls, on this tree's database (the same engine whichever tree).
const bare = { 'PGlite query() (extended protocol)': [], 'PGlite exec() (simple protocol)': [] };
const pglite = trees.this.store.db.db;
try {
  for (let run = 0; run < o.runs; run++) {
    const order = run % 2 ? Object.keys(trees).reverse() : Object.keys(trees);
    for (const name of order) {
      const t = trees[name];
      for (const rows of run % 2 ? [...sizes].reverse() : sizes) {
        t.perCommit[rows].push(await cpuPer(o.commits, () => t.commit(rows)));
        t.wallPerCommit[rows].push(lastWall);
        console.error(
          `${name}: ${rows} rows a commit, run ${run + 1}: ${t.perCommit[rows].at(-1).toFixed(3)} ms CPU, ${lastWall.toFixed(3)} ms wall per commit`,
        );
      }
      t.select.push(await cpuPer(o.commits * 4, () => t.store.db.query('SELECT 1')));
    }
    if (pglite) {
      bare['PGlite query() (extended protocol)'].push(await cpuPer(o.commits * 4, () => pglite.query('SELECT 1')));
      bare['PGlite exec() (simple protocol)'].push(await cpuPer(o.commits * 4, () => pglite.exec('SELECT 1')));
    }
  }
  const names = Object.keys(trees);
  console.log(
    `load: ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}; data dirs under ${os.tmpdir()}; medians of ${o.runs} runs`,
  );
  console.log(`| ms CPU | ${names.map((n) => `${n} (${dists[n]})`).join(' | ')} |\n|:--|${names.map(() => '--:').join('|')}|`);
  console.log(`| SELECT 1 through SqlClient | ${names.map((n) => median(trees[n].select).toFixed(3)).join(' | ')} |`);
  for (const rows of sizes) {
    console.log(
      `| ledger commit of ${rows} row${rows > 1 ? 's' : ''} (per row) | ${names.map((n) => `${median(trees[n].perCommit[rows]).toFixed(3)} (${(median(trees[n].perCommit[rows]) / rows).toFixed(3)})`).join(' | ')} |`,
    );
  }
  for (const rows of sizes) {
    console.log(
      `| ledger commit of ${rows} row${rows > 1 ? 's' : ''}, ms wall | ${names.map((n) => median(trees[n].wallPerCommit[rows]).toFixed(3)).join(' | ')} |`,
    );
  }
  for (const [k, v] of Object.entries(bare))
    if (v.length)
      console.log(
        `| SELECT 1 through ${k} | ${median(v).toFixed(3)} |${names
          .slice(1)
          .map(() => ' |')
          .join('')}`,
      );
} finally {
  for (const t of Object.values(trees)) {
    await t.store.close?.();
    fs.rmSync(t.dir, { recursive: true, force: true });
  }
}
