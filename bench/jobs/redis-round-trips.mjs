// Redis commands a small job costs the node in the distributed mode (issue 28): a bench server
// (Redis + PostgreSQL, bench/e2e/lib.mjs), the small-jobs load (C clients uploading a 50-row
// CSV, one watcher polling batch status), and Redis's MONITOR counting, over the measured jobs,
// every command the node sent under its key prefix, by what sent it. A script call (EVALSHA)
// is one command, named from its SHA (ours and BullMQ's); a MULTI … EXEC block is one; the
// commands a script runs inside Redis are counted apart. Background work (lock renewals,
// stalled checks, the change feed's poll) is in the count too, spread over the jobs.
//
//   node bench/jobs/redis-round-trips.mjs [--jobs 300] [--warmup 100] [--concurrency 32] [--poll-ms 20]
//
// MONITOR slows Redis for everyone while it runs: keep runs short on a shared Redis.
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { args, client, fmt, getToken, REDIS_URL, ROOT, runSmallJobs, sleep, smallCsv, startBenchServer, uptimeLine } from '../e2e/lib.mjs';

const o = args({ jobs: 300, warmup: 100, concurrency: 32, 'poll-ms': 20, rows: 50 });
const require = createRequire(import.meta.url);
const { Redis } = require('ioredis');
const sha1 = (s) => createHash('sha1').update(s).digest('hex');

/** SHA → script name: BullMQ's scripts, and ours as this tree's dist defines them. */
async function scriptNames() {
  const names = new Map();
  const bull = require('bullmq/dist/cjs/scripts/index.js');
  for (const s of Object.values(bull)) if (s?.content) names.set(sha1(s.content), `bullmq ${s.name}`);
  const dist = (p) => import(pathToFileURL(path.join(ROOT, 'dist', p)).href);
  const [{ RedisJobStore }, { RedisTallies }, { RedisRateCounters }, { TenantSlots }] = await Promise.all([
    dist('jobs/redis-store.js'),
    dist('tenancy/quota/redis-tallies.js'),
    dist('jobs/redis-counters.js'),
    dist('jobs/tenant-slots.js'),
  ]);
  const opened = [
    new RedisJobStore({ url: REDIS_URL, prefix: 'dp-bench-names' }),
    new RedisTallies({ url: REDIS_URL, prefix: 'dp-bench-names' }),
    new RedisRateCounters({ url: REDIS_URL, prefix: 'dp-bench-names' }),
  ];
  const slots = { scriptsSet: {}, defineCommand: (name, d) => (slots.scriptsSet[name] = { sha: sha1(d.lua) }) };
  new TenantSlots(slots, { prefix: 'x', lane: 'heavy', perTenant: 1, leaseMs: 1, parkMs: 1 });
  for (const r of [...opened.map((x) => x.redis), slots]) for (const [name, s] of Object.entries(r.scriptsSet)) names.set(s.sha, name);
  await Promise.all(opened.map((x) => x.close()));
  return names;
}

const names = await scriptNames();
const csv = smallCsv(o.rows);
const server = await startBenchServer('redis');
const c = client(server.url, { maxSockets: o.concurrency + 8 });
const prefix = `${server.redisPrefix}:`;
const sent = new Map(); // what → commands
const inScripts = new Map();
let counting = false;
const inMulti = new Set(); // connections between MULTI and EXEC
const monitor = await new Redis(REDIS_URL).monitor();
monitor.on('monitor', (_time, argv, source) => {
  if (!counting || !argv.some((a) => typeof a === 'string' && a.includes(prefix))) {
    // MULTI and EXEC name no key: followed by source.
    const cmd = String(argv[0]).toUpperCase();
    if (counting && cmd === 'MULTI') inMulti.add(source);
    if (counting && cmd === 'EXEC' && inMulti.delete(source)) bump(sent, 'MULTI … EXEC');
    return;
  }
  const cmd = String(argv[0]).toUpperCase();
  if (source === 'lua') return bump(inScripts, cmd);
  if (inMulti.has(source)) return;
  if (cmd === 'EVALSHA' || cmd === 'EVAL') return bump(sent, names.get(cmd === 'EVAL' ? sha1(argv[1]) : argv[1]) ?? `script ${String(argv[1]).slice(0, 8)}`);
  bump(sent, cmd);
});
function bump(m, k) {
  m.set(k, (m.get(k) ?? 0) + 1);
}

try {
  const token = await getToken(c, server.clientId, server.clientSecret);
  const auth = { authorization: `Bearer ${token}` };
  const run = async (total) => (await runSmallJobs(c, auth, csv, { total, concurrency: o.concurrency, pollMs: o['poll-ms'], idPrefix: 'trips' })).failed;
  await run(o.warmup);
  const load = uptimeLine();
  counting = true;
  const failed = await run(o.jobs);
  await sleep(200); // the last replies' MONITOR lines
  counting = false;
  const per = (n) => fmt(n / o.jobs, 2);
  const total = [...sent.values()].reduce((a, b) => a + b, 0);
  const lines = [
    `Redis commands the node sent per small job (${o.jobs} jobs, ${o.concurrency} clients, ${failed} failed; load ${load}):`,
    '',
    '| sent by | per job |',
    '|:--|--:|',
    ...[...sent].sort((a, b) => b[1] - a[1]).map(([k, n]) => `| ${k} | ${per(n)} |`),
    `| **all** | **${per(total)}** |`,
    '',
    `Commands run inside scripts, per job: ${per([...inScripts.values()].reduce((a, b) => a + b, 0))}.`,
  ];
  process.stdout.write(lines.join('\n') + '\n');
} finally {
  monitor.disconnect();
  c.close();
  await server.stop();
}
