import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { openJobBackend } from '../../src/jobs/open.js';
import { RedisRateCounters } from '../../src/jobs/redis-counters.js';
import { RedisJobQueue } from '../../src/jobs/redis-queue.js';
import { RedisJobStore } from '../../src/jobs/redis-store.js';
import { HandBack, JobState, type Delivery, type JobRef } from '../../src/jobs/types.js';
import { captureLog, jobBackendContract, makeJob, waitFor } from './contract.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const RUN_PREFIX = `test-jobs-${process.pid}-${randomUUID().slice(0, 8)}`;
let seq = 0;
const freshPrefix = () => `${RUN_PREFIX}:${++seq}`;

const admin = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 2 });

async function deleteKeys(pattern: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await admin.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    if (keys.length) await admin.del(...keys);
  } while (cursor !== '0');
}

beforeAll(async () => {
  await admin.connect();
  await admin.ping();
});
afterAll(async () => {
  await deleteKeys(`${RUN_PREFIX}:*`);
  await admin.quit();
});

const stores = new WeakMap<object, { prefix: string }>();

jobBackendContract('redis', {
  async open({ log }) {
    const prefix = freshPrefix();
    const store = new RedisJobStore({ url: REDIS_URL, prefix });
    const queue = new RedisJobQueue({ url: REDIS_URL, prefix, log, stalledIntervalMs: 1000, lockDurationMs: 2000 });
    const counters = new RedisRateCounters({ url: REDIS_URL, prefix });
    const backend = {
      store,
      queue,
      counters,
      close: async () => {
        await queue.close();
        await store.close();
        await counters.close();
      },
    };
    stores.set(backend, { prefix });
    return backend;
  },
  async openPeerStore(of) {
    return new RedisJobStore({ url: REDIS_URL, prefix: stores.get(of)!.prefix });
  },
});

describe('redis specifics', () => {
  it('an expired record that does not decode is skipped by listExpired (and logged), never failing the sweep for everyone', async () => {
    const prefix = freshPrefix();
    const log = captureLog();
    const store = new RedisJobStore({ url: REDIS_URL, prefix, log });
    try {
      const past = new Date(Date.now() - 1000).toISOString();
      const good = makeJob({ expiresAt: past });
      const bad = makeJob({ expiresAt: past });
      await store.put(good);
      await store.put(bad);
      const badKey = (await admin.keys(`${prefix}:jobs:rec:*`)).find((k) => k.endsWith(Buffer.from(bad.documentId).toString('base64url')))!;
      await admin.hset(badKey, 'r', '{not json');
      const listed = await store.listExpired(new Date(), 100);
      expect(listed.map((j) => j.documentId)).toEqual([good.documentId]);
      expect(log.entries.some((e) => /does not decode/.test(e.msg))).toBe(true);
      // Still in the index: a later sweep (after a repair) sees it again.
      expect(await admin.zcard(`${prefix}:jobs:exp`)).toBe(2);
    } finally {
      await store.close();
    }
  });

  it('keys live under the prefix and a record hash outlives expiresAt only by the grace period', async () => {
    const prefix = freshPrefix();
    const store = new RedisJobStore({ url: REDIS_URL, prefix, expiredGraceMs: 60_000 });
    try {
      const job = makeJob({ expiresAt: new Date(Date.now() + 120_000).toISOString() });
      await store.put(job);
      const keys = await admin.keys(`${prefix}:*`);
      expect(keys.length).toBeGreaterThan(0);
      const rec = keys.find((k) => k.startsWith(`${prefix}:jobs:rec:`))!;
      const ttl = await admin.pttl(rec);
      expect(ttl).toBeGreaterThan(120_000);
      expect(ttl).toBeLessThanOrEqual(180_000);
      expect(await admin.pttl(`${prefix}:jobs:exp`)).toBe(-1);
    } finally {
      await store.close();
    }
  });

  it('listExpired prunes index entries whose hash is gone and still returns up to limit', async () => {
    const prefix = freshPrefix();
    const store = new RedisJobStore({ url: REDIS_URL, prefix });
    try {
      const past = (ms: number) => new Date(Date.now() - ms).toISOString();
      const gone = makeJob({ expiresAt: past(5000) });
      const kept = [makeJob({ expiresAt: past(4000) }), makeJob({ expiresAt: past(3000) })];
      for (const j of [gone, ...kept]) await store.put(j);
      const recKeys = await admin.keys(`${prefix}:jobs:rec:*`);
      for (const k of recKeys) {
        const h = await admin.hget(k, 'g');
        if (h === gone.generation) await admin.del(k); // as if its TTL had fired
      }
      expect((await store.listExpired(new Date(), 2)).map((j) => j.documentId)).toEqual(kept.map((j) => j.documentId));
      expect(await admin.zcard(`${prefix}:jobs:exp`)).toBe(2);
    } finally {
      await store.close();
    }
  });

  it('a delivery whose consumer process died is redelivered by stalled-job recovery', async () => {
    const prefix = freshPrefix();
    const dir = await buildChild();
    const log = captureLog();
    const queue = new RedisJobQueue({ url: REDIS_URL, prefix, log, stalledIntervalMs: 500, lockDurationMs: 1000 });
    let child: ChildProcess | undefined;
    try {
      const ref: JobRef = { tenantId: 'tenant-s', documentId: 'doc:with:colons', generation: randomUUID(), lane: 'heavy' };
      await queue.enqueue(ref);

      child = spawn(process.execPath, [path.join(dir, 'child.mjs'), REDIS_URL, prefix], { stdio: ['ignore', 'pipe', 'inherit'] });
      const firstLine = await new Promise<string>((resolve, reject) => {
        let buf = '';
        child!.stdout!.on('data', (c: Buffer) => {
          buf += c.toString();
          const i = buf.indexOf('\n');
          if (i >= 0) resolve(buf.slice(0, i));
        });
        child!.on('exit', (code) => reject(new Error(`child exited ${code} before a delivery`)));
        setTimeout(() => reject(new Error('child got no delivery')), 20_000);
      });
      const first = JSON.parse(firstLine) as Delivery;
      expect(first).toEqual({ ref, attempt: 1 });
      expect((await queue.depth()).active).toBe(1);

      child.kill('SIGKILL');
      await new Promise((r) => child!.once('exit', r));

      const got: Delivery[] = [];
      queue.consume('heavy', 1, async (d) => void got.push(d));
      await waitFor(() => got.length >= 1, 30_000, 'redelivery after the consumer died');
      expect(got[0]).toEqual({ ref, attempt: 2 });
      expect(log.entries.some((e) => e.msg.includes('stalled'))).toBe(true);
    } finally {
      if (child && child.exitCode === null) child.kill('SIGKILL');
      await queue.close();
    }
  }, 60_000);

  it('perTenant holds across nodes: a tenant with one slot runs on one node while the other node takes another tenant', async () => {
    const prefix = freshPrefix();
    const log = captureLog();
    const nodes = [0, 1].map(() => new RedisJobQueue({ url: REDIS_URL, prefix, log, stalledIntervalMs: 1000, lockDurationMs: 2000 }));
    try {
      const started: { node: number; id: string }[] = [];
      const finish = new Map<string, () => void>();
      nodes.forEach((q, node) =>
        q.consume(
          'heavy',
          1,
          async (d) => {
            started.push({ node, id: d.ref.documentId });
            await new Promise<void>((r) => finish.set(d.ref.documentId, r));
          },
          { perTenant: 1 },
        ),
      );
      const ref = (tenantId: string, documentId: string): JobRef => ({ tenantId, documentId, generation: randomUUID(), lane: 'heavy' });
      await nodes[0].enqueue(ref('tenant-a', 'a1'));
      await waitFor(() => started.length === 1, 15_000, 'a1 to start');
      await nodes[0].enqueue(ref('tenant-a', 'a2'));
      await nodes[1].enqueue(ref('tenant-b', 'b1'));
      await waitFor(() => started.length === 2, 15_000, 'b1 to start');
      await new Promise((r) => setTimeout(r, 500));
      expect(started.map((s) => s.id)).toEqual(['a1', 'b1']);
      expect(new Set(started.map((s) => s.node)).size).toBe(2); // a1 and b1 on different nodes: a2 held neither
      finish.get('a1')!();
      finish.get('b1')!();
      await waitFor(() => started.length === 3, 15_000, 'a2 to start once a1 is done');
      expect(started[2].id).toBe('a2');
      finish.get('a2')!();
    } finally {
      await Promise.all(nodes.map((q) => q.close()));
    }
  }, 60_000);

  it('a delivery handed back by a stopping node runs at once on another node, with the same attempt', async () => {
    const prefix = freshPrefix();
    const log = captureLog();
    const stopping = new RedisJobQueue({ url: REDIS_URL, prefix, log });
    const other = new RedisJobQueue({ url: REDIS_URL, prefix, log });
    try {
      const runs: { node: string; attempt: number }[] = [];
      let stopped: Promise<void> | null = null;
      stopping.consume('light', 1, async (d) => {
        runs.push({ node: 'stopping', attempt: d.attempt });
        // The node stops taking deliveries first (worker-loop.ts stop), then hands back.
        stopped = stopping.stopConsuming();
        throw new HandBack('the node is stopping');
      });
      await stopping.enqueue({ tenantId: 't', documentId: 'handed-back', generation: randomUUID(), lane: 'light' });
      await waitFor(() => stopped !== null, 15_000, 'the first run');
      await stopped;
      other.consume('light', 1, async (d) => {
        runs.push({ node: 'other', attempt: d.attempt });
      });
      // Taken from wait by the other node, not after a lock lapses or a delay.
      await waitFor(() => runs.length === 2, 15_000, 'the run on the other node');
      expect(runs).toEqual([
        { node: 'stopping', attempt: 1 },
        { node: 'other', attempt: 1 },
      ]);
      expect(log.entries.filter((e) => e.level === 'error' || e.msg.includes('stalled'))).toEqual([]);
    } finally {
      await Promise.all([stopping.close(), other.close()]);
    }
  }, 60_000);

  it('openJobBackend with a Redis URL opens the Redis backend', async () => {
    const prefix = freshPrefix();
    const backend = await openJobBackend({ redisUrl: REDIS_URL, dataDir: '/nonexistent', prefix });
    try {
      expect(backend.kind).toBe('redis');
      const job = makeJob({ statusInt: JobState.Queued });
      await backend.store.put(job);
      expect(await backend.store.get(job.tenantId, job.documentId)).toEqual(job);
      expect(await backend.counters.addToWindow('k', 2, 60)).toBe(2);
    } finally {
      await backend.close();
    }
  });

  it('additions under lazyBelow are batched: every one counts, another node sees them within a flush, and near the bound the answer is the shared total', async () => {
    const prefix = freshPrefix();
    const [a, b] = [new RedisRateCounters({ url: REDIS_URL, prefix }), new RedisRateCounters({ url: REDIS_URL, prefix })];
    try {
      const lazy = { lazyBelow: 100 };
      expect(await a.addToWindow('bytes', 10, 3600, lazy)).toBe(10); // the window's first on this node: sent at once
      for (let total = 20; total <= 60; total += 10) expect(await a.addToWindow('bytes', 10, 3600, lazy)).toBe(total);
      await waitFor(async () => (await b.addToWindow('bytes', 0, 3600)) === 60);
      expect(await b.addToWindow('bytes', 30, 3600)).toBe(90);
      // 60 known + 40 reaches the bound: sent at once, answered with what both nodes added.
      expect(await a.addToWindow('bytes', 40, 3600, lazy)).toBe(130);
      // What waits to be sent is sent when the counters close.
      expect(await a.addToWindow('other', 1, 3600, lazy)).toBe(1);
      expect(await a.addToWindow('other', 1, 3600, lazy)).toBe(2);
      await a.close();
      expect(await b.addToWindow('other', 0, 3600)).toBe(2);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('reserved counters expire with their window; a release never recreates a counter that is gone', async () => {
    const prefix = freshPrefix();
    const counters = new RedisRateCounters({ url: REDIS_URL, prefix });
    try {
      const r = await counters.reserveInWindow([{ key: 'held', limit: 3 }], 60);
      if (!r.taken) throw new Error('expected a slot');
      const held = `${prefix}:rc:60:${r.window}:held`;
      expect(await admin.pexpiretime(held)).toBe((r.window + 1) * 60_000 + 1000);
      await counters.releaseInWindow(['gone'], 60, r.window);
      expect(await admin.exists(`${prefix}:rc:60:${r.window}:gone`)).toBe(0);
    } finally {
      await counters.close();
    }
  });
});

/**
 * Transpiles src/jobs (and the one module of src/errors it imports) to plain JS next to
 * node_modules, in the same layout, plus a child entry that consumes the heavy lane with our
 * RedisJobQueue, prints its delivery and hangs (until killed).
 */
async function buildChild(): Promise<string> {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
  const out = path.join(root, 'node_modules/.cache', `jobs-test-${process.pid}`);
  const transpile = async (from: string, to: string, only?: string) => {
    await mkdir(path.join(out, to), { recursive: true });
    for (const f of await readdir(path.join(root, from))) {
      if (!f.endsWith('.ts') || (only && f !== only)) continue;
      const js = ts.transpileModule(await readFile(path.join(root, from, f), 'utf8'), {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false },
      }).outputText;
      await writeFile(path.join(out, to, f.replace(/\.ts$/, '.js')), js);
    }
  };
  await mkdir(out, { recursive: true });
  await writeFile(path.join(out, 'package.json'), '{"type":"module"}');
  await transpile('src/jobs', 'jobs');
  await transpile('src/errors', 'errors', 'dependency-unavailable.ts');
  await writeFile(
    path.join(out, 'child.mjs'),
    `import { RedisJobQueue } from './jobs/redis-queue.js';
const [url, prefix] = process.argv.slice(2);
const q = new RedisJobQueue({ url, prefix, stalledIntervalMs: 500, lockDurationMs: 1000 });
q.consume('heavy', 1, async (d) => {
  process.stdout.write(JSON.stringify(d) + '\\n');
  await new Promise(() => {});
});
`,
  );
  afterAllCleanup.push(() => rm(out, { recursive: true, force: true }));
  return out;
}
const afterAllCleanup: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const f of afterAllCleanup) await f();
});
