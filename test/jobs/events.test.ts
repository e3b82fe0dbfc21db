// The job event feed on both backends: every put and transition reaches a follower in order,
// from the store's own writes (on Redis, the PUBLISH inside its scripts, seen by a second
// backend as another node would); a job's channel is subscribed only while someone follows it;
// cancels reach the nodes that listen for them.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { openJobBackend, type JobBackend } from '../../src/jobs/open.js';
import { jobChannel, type JobEvent, type JobIdentity } from '../../src/jobs/events.js';
import { JobState } from '../../src/jobs/types.js';
import { makeJob, waitFor } from './contract.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const dirs: string[] = [];
const admin = new Redis(REDIS_URL, { maxRetriesPerRequest: 2 });

afterAll(async () => {
  await admin.quit();
  for (const d of dirs) await fs.rm(d, { recursive: true, force: true });
});

async function backends(kind: 'embedded' | 'redis'): Promise<{ writer: JobBackend; reader: JobBackend; prefix: string; close(): Promise<void> }> {
  const prefix = `test-events-${randomUUID().slice(0, 8)}`;
  if (kind === 'embedded') {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'dp-events-'));
    dirs.push(dataDir);
    const b = await openJobBackend({ dataDir });
    return { writer: b, reader: b, prefix, close: () => b.close() };
  }
  // Two backends on one Redis: the job written through one, followed through the other.
  const writer = await openJobBackend({ redisUrl: REDIS_URL, dataDir: os.tmpdir(), prefix });
  const reader = await openJobBackend({ redisUrl: REDIS_URL, dataDir: os.tmpdir(), prefix });
  return {
    writer,
    reader,
    prefix,
    close: async () => {
      await Promise.all([writer.close(), reader.close()]);
      const keys = await admin.keys(`${prefix}*`);
      if (keys.length) await admin.del(...keys);
    },
  };
}

for (const kind of ['embedded', 'redis'] as const) {
  describe(`job events (${kind})`, () => {
    it('a follower sees every put and transition of the job, in order, and nothing after it stops', async () => {
      const b = await backends(kind);
      try {
        const job = makeJob({ statusInt: JobState.Queued });
        const seen: JobEvent[] = [];
        const stop = await b.reader.events.follow(job.tenantId, job.documentId, (e) => seen.push(e));
        if (kind === 'redis') expect(await admin.pubsub('NUMSUB', jobChannel(b.prefix, job.tenantId, job.documentId))).toEqual([expect.any(String), 1]);
        await b.writer.store.put(job);
        for (const s of [JobState.Processing, JobState.Retrying, JobState.Processing, JobState.Materializing, JobState.Completed] as const)
          await b.writer.store.transition(job, s);
        await waitFor(() => seen.length === 6, 15_000, 'six events');
        expect(seen.map((e) => (e.kind === 'state' ? e.statusInt : -1))).toEqual([2, 3, 5, 3, 4, 8]);
        expect(seen.every((e) => e.generation === job.generation)).toBe(true);
        // Progress goes the same way.
        b.writer.events.progress(job, { fraction: 0.5, done: 2, total: 4 });
        await waitFor(() => seen.length === 7, 15_000, 'the progress event');
        expect(seen[6]).toEqual({ kind: 'progress', generation: job.generation, fraction: 0.5, done: 2, total: 4 });
        stop();
        // Nobody follows: the channel is let go.
        if (kind === 'redis')
          await waitFor(async () => (await admin.pubsub('NUMSUB', jobChannel(b.prefix, job.tenantId, job.documentId)))[1] === 0, 15_000, 'the unsubscribe');
        const other = makeJob({ tenantId: job.tenantId, documentId: job.documentId, statusInt: JobState.Queued });
        await b.writer.store.put(other);
        await new Promise((r) => setTimeout(r, 100));
        expect(seen).toHaveLength(7);
      } finally {
        await b.close();
      }
    });

    it('a cancel announced by one node reaches the nodes that listen for cancels', async () => {
      const b = await backends(kind);
      try {
        const heard: JobIdentity[] = [];
        b.reader.events.onCancel((j) => heard.push(j));
        if (kind === 'redis') await waitFor(async () => (await admin.pubsub('NUMSUB', `${b.prefix}:jobs:cancel`))[1] === 1, 15_000, 'the cancel subscription');
        const job = makeJob();
        await b.writer.events.announceCancel(job);
        await waitFor(() => heard.length === 1, 15_000, 'the cancel');
        expect(heard[0]).toEqual({ tenantId: job.tenantId, documentId: job.documentId, generation: job.generation });
      } finally {
        await b.close();
      }
    });
  });
}
