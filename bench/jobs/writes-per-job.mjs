// Per small job in the distributed mode (issue 28): the node's write syscalls on each of its
// sockets (strace over the measured jobs, grouped by the peer: Redis, PostgreSQL, HTTP
// clients, the parsing process's pipe), and the Redis commands it sent, by name (INFO
// commandstats). Redis must be one this bench has alone (commandstats counts every client):
// start one on a spare port and pass it, e.g.
//
//   redis-server --port 6391 --save '' --appendonly no --daemonize yes
//   BENCH_REDIS_URL=redis://127.0.0.1:6391 TMPDIR=/mnt/ext4j node bench/jobs/writes-per-job.mjs [--jobs 1000] [--warmup 300]
//
// strace slows the node a lot: the counts are what this bench is for, not its timing.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { args, client, fmt, getToken, REDIS_URL, runSmallJobs, sleep, smallCsv, startBenchServer, uptimeLine } from '../e2e/lib.mjs';

const o = args({ jobs: 1000, warmup: 300, concurrency: 32, 'poll-ms': 20, rows: 50 });
const require = createRequire(import.meta.url);
const { Redis } = require('ioredis');
const redisPort = Number(new URL(REDIS_URL).port || 6379);
if (redisPort === 6379) throw new Error('pass BENCH_REDIS_URL: a Redis this bench has alone (commandstats counts every client)');

const redis = new Redis(REDIS_URL);
async function commandStats() {
  const out = new Map();
  for (const line of (await redis.info('commandstats')).split('\n')) {
    const m = /^cmdstat_([^:]+):calls=(\d+)/.exec(line.trim());
    if (m) out.set(m[1], Number(m[2]));
  }
  return out;
}

/** Socket inode → { local, remote } ports, from /proc/net/tcp{,6}. */
function socketPorts() {
  const out = new Map();
  for (const f of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of fs.readFileSync(f, 'utf8').split('\n').slice(1)) {
      const c = line.trim().split(/\s+/);
      if (c.length < 10) continue;
      out.set(c[9], { local: parseInt(c[1].split(':')[1], 16), remote: parseInt(c[2].split(':')[1], 16) });
    }
  }
  return out;
}

/** Redis's name for each of its clients by their port: the client name, or the last command it sent. */
async function redisClients() {
  const out = new Map();
  for (const line of (await redis.client('LIST')).split('\n')) {
    const f = Object.fromEntries(line.split(' ').map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
    if (!f.addr) continue;
    out.set(Number(f.addr.split(':').at(-1)), f.name ? `name ${f.name.replace(/^.*?:bull:/, 'bull:')}` : `last ${f.cmd}`);
  }
  return out;
}

/** fd → what the peer is, for the node's open sockets and pipes; each Redis connection apart. */
async function fdPeers(pid) {
  const ports = socketPorts();
  const clients = await redisClients();
  const out = new Map();
  for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
    let link;
    try {
      link = fs.readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue;
    }
    const sock = /^socket:\[(\d+)\]$/.exec(link);
    if (sock) {
      const p = ports.get(sock[1]);
      if (!p) out.set(fd, 'unix socket (parsing process)');
      else if (p.remote === redisPort) out.set(fd, `Redis fd ${fd} (${clients.get(p.local) ?? '?'})`);
      else if (p.remote === 5432) out.set(fd, 'PostgreSQL');
      else out.set(fd, p.remote === 0 ? 'HTTP listen' : 'HTTP clients');
    } else if (link.startsWith('pipe:')) out.set(fd, 'pipe');
    else out.set(fd, link.startsWith('/') ? 'file' : link);
  }
  return out;
}

const csv = smallCsv(o.rows);
const server = await startBenchServer('redis');
const c = client(server.url, { maxSockets: o.concurrency + 8 });
const traceFile = path.join(os.tmpdir(), `writes-per-job-${process.pid}.strace`);
try {
  const token = await getToken(c, server.clientId, server.clientSecret);
  const auth = { authorization: `Bearer ${token}` };
  const run = (total) => runSmallJobs(c, auth, csv, { total, concurrency: o.concurrency, pollMs: o['poll-ms'], idPrefix: 'writes' });
  await run(o.warmup);
  const load = uptimeLine();
  const strace = spawn('strace', ['-f', '-qq', '-e', 'trace=write,writev,sendto,sendmsg', '-e', 'signal=none', '-o', traceFile, '-p', String(server.pid)], {
    stdio: 'ignore',
  });
  await sleep(1500); // attached to every thread
  const before = await commandStats();
  const r = await run(o.jobs);
  const after = await commandStats();
  const peers = await fdPeers(server.pid);
  strace.kill('SIGINT');
  await new Promise((res) => strace.once('exit', res));

  const writes = new Map();
  for (const line of fs.readFileSync(traceFile, 'utf8').split('\n')) {
    const m = /(write|writev|sendto|sendmsg)\((\d+),/.exec(line);
    if (!m) continue;
    const what = `${peers.get(m[2]) ?? 'closed since (HTTP clients, files)'}: ${m[1]}`;
    writes.set(what, (writes.get(what) ?? 0) + 1);
  }
  const per = (n) => fmt(n / o.jobs, 2);
  const cmds = [...after].map(([k, n]) => [k, n - (before.get(k) ?? 0)]).filter(([k, n]) => n > 0 && k !== 'info');
  const lines = [
    `Per small job, distributed mode (${o.jobs} jobs, ${o.concurrency} clients, ${r.failed} failed; load ${load}):`,
    '',
    '| node write syscalls, by peer | per job |',
    '|:--|--:|',
    ...[...writes].sort((a, b) => b[1] - a[1]).map(([k, n]) => `| ${k} | ${per(n)} |`),
    `| **all** | **${per([...writes.values()].reduce((a, b) => a + b, 0))}** |`,
    `| Redis, all connections | ${per([...writes].filter(([k]) => k.startsWith('Redis')).reduce((a, [, n]) => a + n, 0))} |`,
    '',
    '| Redis commands (INFO commandstats) | per job |',
    '|:--|--:|',
    ...cmds.sort((a, b) => b[1] - a[1]).map(([k, n]) => `| ${k} | ${per(n)} |`),
    `| **all** | **${per(cmds.reduce((a, [, n]) => a + n, 0))}** |`,
  ];
  process.stdout.write(lines.join('\n') + '\n');
} finally {
  fs.rmSync(traceFile, { force: true });
  redis.disconnect();
  c.close();
  await server.stop();
}
