// The job-end watcher: the job backend contract passes through it unchanged (the worker, intake
// and cancel see the same store), and it writes a notification exactly for transitions that end
// a job with a callbackUrl — completed, failed, and failed with code `cancelled` (a cancel) —
// on the real embedded store and a real control plane (PGlite with the migrations).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedRateCounters } from '../../src/jobs/embedded-counters.js';
import { EmbeddedJobQueue } from '../../src/jobs/embedded-queue.js';
import { EmbeddedJobStore } from '../../src/jobs/embedded-store.js';
import { JobState, type JobError } from '../../src/jobs/types.js';
import { openControlPlaneStore, type SqlControlPlaneStore } from '../../src/tenancy/sql-store.js';
import { WebhookDeliveryStore } from '../../src/webhooks/delivery-store.js';
import { NotifyingJobStore } from '../../src/webhooks/notifying-store.js';
import { jobBackendContract, makeJob } from '../jobs/contract.js';

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const d = await mkdtemp(path.join(tmpdir(), 'docparse-notify-'));
  dirs.push(d);
  return d;
}
let control: SqlControlPlaneStore;
let deliveries: WebhookDeliveryStore;
let nudges = 0;
const watch = (store: EmbeddedJobStore) => new NotifyingJobStore(store, { deliveries, written: () => nudges++, logger: pino({ level: 'silent' }) });

beforeAll(async () => {
  control = await openControlPlaneStore({ dataDir: await tempDir() });
  deliveries = new WebhookDeliveryStore(control.db);
});
afterAll(async () => {
  await control?.close();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

jobBackendContract('embedded, through the webhook watcher', {
  async open({ log }) {
    const inner = await EmbeddedJobStore.open({ dataDir: await tempDir(), log, fsync: false });
    const queue = new EmbeddedJobQueue({ log });
    const counters = new EmbeddedRateCounters();
    return {
      store: watch(inner),
      queue,
      counters,
      close: async () => {
        await queue.close();
        await inner.close();
        await counters.close();
      },
    };
  },
});

describe('notifications written on job ends', () => {
  it('completed, failed and cancelled jobs with a callbackUrl get one row each, typed; others get none', async () => {
    const store = watch(await EmbeddedJobStore.open({ dataDir: await tempDir(), fsync: false }));
    const callbackUrl = 'https://hooks.example.com/in';
    const end = async (over: Parameters<typeof makeJob>[0], to: 8 | 9, error: JobError | null) => {
      const job = makeJob({ statusInt: JobState.Queued, ...over });
      await store.put(job);
      expect(await store.transition(job, JobState.Processing, { startedAt: new Date().toISOString() })).not.toBeNull();
      // Not an end: nothing written.
      expect(await deliveries.get(job.tenantId, job.documentId, job.generation)).toBeNull();
      if (to === JobState.Completed) await store.transition(job, JobState.Materializing);
      await store.transition(job, to, { completedAt: new Date().toISOString(), documentUnits: to === 8 ? 3 : null, error });
      return deliveries.get(job.tenantId, job.documentId, job.generation);
    };
    const before = nudges;
    const completed = await end({ callbackUrl }, JobState.Completed, null);
    expect(completed?.payload).toEqual({
      type: 'document.completed',
      documentId: completed!.documentId,
      status: 'completed',
      statusInt: 8,
      completedAt: expect.any(String),
      documentUnits: 3,
    });
    expect(completed?.callbackUrl).toBe(callbackUrl);
    const failed = await end({ callbackUrl }, JobState.Failed, { code: 'extraction_failed', message: 'bad', stage: 'extract' });
    expect(failed?.payload).toMatchObject({ type: 'document.failed', statusInt: 9, error: { code: 'extraction_failed' } });
    const cancelled = await end({ callbackUrl }, JobState.Failed, { code: 'cancelled', message: 'cancelled', stage: 'cancel' } as unknown as JobError);
    expect(cancelled?.payload).toMatchObject({ type: 'document.cancelled', status: 'failed', error: { code: 'cancelled' } });
    expect(nudges - before).toBe(3);
    expect(await end({}, JobState.Completed, null)).toBeNull();
    expect(nudges - before).toBe(3);
  });
});
