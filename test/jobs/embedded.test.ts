import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import { EmbeddedRateCounters } from '../../src/jobs/embedded-counters.js';
import { EmbeddedJobQueue, recoverUnfinished } from '../../src/jobs/embedded-queue.js';
import { EmbeddedJobStore } from '../../src/jobs/embedded-store.js';
import { openJobBackend } from '../../src/jobs/open.js';
import { JobState, type Delivery, type JobRecord } from '../../src/jobs/types.js';
import { captureLog, jobBackendContract, makeJob, sleep, waitFor } from './contract.js';

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const d = await mkdtemp(path.join(tmpdir(), 'docparse-jobs-'));
  dirs.push(d);
  return d;
}
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

jobBackendContract('embedded', {
  async open({ log }) {
    const dataDir = await tempDir();
    const store = await EmbeddedJobStore.open({ dataDir, log, fsync: false });
    const queue = new EmbeddedJobQueue({ log });
    const counters = new EmbeddedRateCounters();
    return {
      store,
      queue,
      counters,
      close: async () => {
        await queue.close();
        await store.close();
        await counters.close();
      },
    };
  },
});

describe('embedded persistence and recovery', () => {
  it('a store reopened from the same directory has every change; recoverUnfinished re-enqueues states 1–7', async () => {
    const dataDir = await tempDir();
    const log = captureLog();
    const store = await EmbeddedJobStore.open({ dataDir, log });
    const tenantId = 'tenant-r';
    const past = new Date(Date.now() - 1000).toISOString();
    const jobs: Record<string, JobRecord> = {
      session: makeJob({ tenantId, statusInt: JobState.NotQueued }),
      received: makeJob({ tenantId, statusInt: JobState.Received }),
      queued: makeJob({ tenantId, statusInt: JobState.Queued }),
      processing: makeJob({ tenantId, statusInt: JobState.Queued }),
      retrying: makeJob({ tenantId, statusInt: JobState.Retrying }),
      heavy: makeJob({ tenantId, statusInt: JobState.ProviderProcessing, lane: 'heavy', format: 'pdf' }),
      done: makeJob({ tenantId, statusInt: JobState.Materializing }),
      failed: makeJob({ tenantId, statusInt: JobState.Failed }),
      expired: makeJob({ tenantId, statusInt: JobState.Queued, expiresAt: past }),
      deleted: makeJob({ tenantId, statusInt: JobState.Queued }),
    };
    for (const j of Object.values(jobs)) await store.put(j);
    const processing = await store.transition(jobs.processing, JobState.Processing, { startedAt: new Date().toISOString(), attempts: 1 });
    const done = await store.transition(jobs.done, JobState.Completed, { artifactKey: 'artifacts/done', completedAt: new Date().toISOString() });
    await store.delete(tenantId, jobs.deleted.documentId);
    const overwritten = makeJob({ tenantId, documentId: jobs.queued.documentId, statusInt: JobState.Received });
    await store.put(overwritten);
    await store.close();

    // a torn write (temp file never renamed) and a corrupt file must not break the load
    const jobsDir = path.join(dataDir, 'jobs');
    await writeFile(path.join(jobsDir, 'abc.json.123.1.tmp'), '{"half');
    await writeFile(path.join(jobsDir, 'garbage.json'), 'not json');

    const reopened = await EmbeddedJobStore.open({ dataDir, log });
    expect(await reopened.get(tenantId, jobs.session.documentId)).toEqual(jobs.session);
    expect(await reopened.get(tenantId, jobs.processing.documentId)).toEqual(processing);
    expect(await reopened.get(tenantId, jobs.done.documentId)).toEqual(done);
    expect(await reopened.get(tenantId, jobs.queued.documentId)).toEqual(overwritten);
    expect(await reopened.get(tenantId, jobs.deleted.documentId)).toBeNull();
    expect(await reopened.get(tenantId, jobs.expired.documentId)).toBeNull();
    expect((await reopened.listExpired(new Date(), 10)).map((j) => j.documentId)).toEqual([jobs.expired.documentId]);
    expect(await reopened.countUnfinished(jobs.session.appId)).toBe(1);
    expect((await readdir(jobsDir)).some((n) => n.endsWith('.tmp'))).toBe(false);
    expect(log.entries.some((e) => e.level === 'error' && (e.obj as { file?: string }).file?.endsWith('garbage.json'))).toBe(true);

    const queue = new EmbeddedJobQueue({ log });
    const n = await recoverUnfinished(reopened, queue);
    const expected = [overwritten, jobs.received, processing!, jobs.retrying, jobs.heavy];
    expect(n).toBe(expected.length);
    const got: Delivery[] = [];
    queue.consume('light', 2, async (d) => void got.push(d));
    queue.consume('heavy', 1, async (d) => void got.push(d));
    await waitFor(() => got.length >= expected.length, 10_000, 'recovered deliveries');
    await sleep(200);
    const key = (r: { documentId: string; generation: string; lane: string }) => `${r.documentId}|${r.generation}|${r.lane}`;
    expect(got.map((d) => key(d.ref)).sort()).toEqual(expected.map(key).sort());
    await queue.close();
    await reopened.close();
  });

  it('openJobBackend without a Redis URL opens the embedded backend under dataDir', async () => {
    const dataDir = await tempDir();
    const backend = await openJobBackend({ dataDir });
    expect(backend.kind).toBe('embedded');
    const job = makeJob();
    await backend.store.put(job);
    await backend.close();
    const again = await openJobBackend({ dataDir });
    expect(await again.store.get(job.tenantId, job.documentId)).toEqual(job);
    await again.close();
  });
});
