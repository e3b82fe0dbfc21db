// The embedded job store's journal: what survives a write cut short, a compaction and the move
// from the earlier one-file-per-job format, and the group commit (writes that arrive together
// share an fsync, and none resolves before the fsync that covers it).
import { createHash } from 'node:crypto';
import { appendFile, mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import { EmbeddedJobStore, JOURNAL_FILE } from '../../src/jobs/embedded-store.js';
import { recordKey } from '../../src/jobs/support.js';
import { JobState, type JobRecord } from '../../src/jobs/types.js';
import { captureLog, makeJob } from './contract.js';

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const d = await mkdtemp(path.join(tmpdir(), 'docparse-journal-'));
  dirs.push(d);
  return d;
}
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const journalOf = (dataDir: string) => path.join(dataDir, 'jobs', JOURNAL_FILE);
const started = () => ({ startedAt: new Date().toISOString(), attempts: 1 });
const completed = (n: number) => ({ completedAt: new Date().toISOString(), artifactKey: `a/${n}`, artifactBytes: n, documentUnits: 1 });

/** Every job through the states a light job takes, up to completed. */
async function runToCompletion(store: EmbeddedJobStore, jobs: JobRecord[]): Promise<JobRecord[]> {
  return Promise.all(
    jobs.map(async (job, i) => {
      await store.put({ ...job, statusInt: JobState.Queued });
      await store.transition(job, JobState.Processing, started());
      await store.transition(job, JobState.Materializing);
      return (await store.transition(job, JobState.Completed, completed(i)))!;
    }),
  );
}

describe('embedded job store journal', () => {
  it('a write cut short at the end of the journal loses only itself; the store appends cleanly after it', async () => {
    const dataDir = await tempDir();
    const log = captureLog();
    const store = await EmbeddedJobStore.open({ dataDir, log });
    const kept = [makeJob(), makeJob(), makeJob()];
    for (const j of kept) await store.put(j);
    const queued = await store.transition(kept[1], JobState.Queued);
    await store.close();

    // The process died in the middle of writing a line for another job.
    const torn = makeJob();
    const line = JSON.stringify({ k: recordKey(torn.tenantId, torn.documentId), r: torn });
    await appendFile(journalOf(dataDir), line.slice(0, line.length >> 1));

    const reopened = await EmbeddedJobStore.open({ dataDir, log });
    expect(await reopened.get(kept[0].tenantId, kept[0].documentId)).toEqual(kept[0]);
    expect(await reopened.get(kept[1].tenantId, kept[1].documentId)).toEqual(queued);
    expect(await reopened.get(torn.tenantId, torn.documentId)).toBeNull();
    expect(log.entries.some((e) => e.level === 'warn' && /journal lines skipped/.test(e.msg))).toBe(true);
    const after = makeJob();
    await reopened.put(after);
    await reopened.close();

    const third = await EmbeddedJobStore.open({ dataDir, log });
    expect(await third.get(after.tenantId, after.documentId)).toEqual(after);
    expect(await third.get(kept[2].tenantId, kept[2].documentId)).toEqual(kept[2]);
    await third.close();
  });

  it('compaction keeps every live record and drops removed ones; the journal stays near the size of what is live', async () => {
    const dataDir = await tempDir();
    const compactAtBytes = 16 * 1024;
    const store = await EmbeddedJobStore.open({ dataDir, fsync: false, compactAtBytes });
    // Five documents uploaded again and again: about 600 kB of journal lines for 5 live records.
    const ids = Array.from({ length: 5 }, (_, i) => `doc-${i}`);
    let latest: JobRecord[] = [];
    for (let round = 0; round < 40; round++)
      latest = await runToCompletion(
        store,
        ids.map((documentId) => makeJob({ documentId })),
      );
    const [gone, ...kept] = latest;
    await store.delete(gone.tenantId, gone.documentId);
    const waiting = makeJob({ tenantId: 'tenant-w' });
    await store.put(waiting);
    await store.close();

    expect((await stat(journalOf(dataDir))).size).toBeLessThan(4 * compactAtBytes);
    expect((await readdir(path.join(dataDir, 'jobs'))).sort()).toEqual([JOURNAL_FILE]);
    expect(((await stat(journalOf(dataDir))).mode & 0o777).toString(8)).toBe('600');

    const reopened = await EmbeddedJobStore.open({ dataDir, fsync: false, compactAtBytes });
    for (const j of kept) expect(await reopened.get(j.tenantId, j.documentId)).toEqual(j);
    expect(await reopened.get(gone.tenantId, gone.documentId)).toBeNull();
    expect(await reopened.get(waiting.tenantId, waiting.documentId)).toEqual(waiting);
    expect((await reopened.listUnfinished()).map((j) => j.documentId)).toEqual([waiting.documentId]);
    await reopened.close();
  });

  it('a data dir of the earlier one-file-per-job format is moved into the journal and its files removed', async () => {
    const dataDir = await tempDir();
    const jobsDir = path.join(dataDir, 'jobs');
    await mkdir(jobsDir, { recursive: true });
    const queued = makeJob({ statusInt: JobState.Queued });
    const done = makeJob({ statusInt: JobState.Completed, artifactKey: 'a/done', completedAt: new Date().toISOString() });
    const session = makeJob({ statusInt: JobState.NotQueued });
    const fileOf = (j: JobRecord) => path.join(jobsDir, createHash('sha256').update(recordKey(j.tenantId, j.documentId)).digest('hex') + '.json');
    for (const j of [queued, done, session]) await writeFile(fileOf(j), JSON.stringify(j), { mode: 0o600 });
    await writeFile(path.join(jobsDir, 'garbage.json'), 'not json');

    const log = captureLog();
    const store = await EmbeddedJobStore.open({ dataDir, log });
    for (const j of [queued, done, session]) expect(await store.get(j.tenantId, j.documentId)).toEqual(j);
    expect(await store.countUnfinished(queued.appId)).toBe(1);
    // The unreadable file is reported and left for an operator; the others are gone.
    expect((await readdir(jobsDir)).sort()).toEqual(['garbage.json', JOURNAL_FILE]);
    expect(log.entries.some((e) => e.level === 'error' && (e.obj as { file?: string }).file?.endsWith('garbage.json'))).toBe(true);
    const next = await store.transition(queued, JobState.Processing, started());
    await store.close();

    const reopened = await EmbeddedJobStore.open({ dataDir, log });
    expect(await reopened.get(queued.tenantId, queued.documentId)).toEqual(next);
    expect(await reopened.get(done.tenantId, done.documentId)).toEqual(done);
    expect(await reopened.get(session.tenantId, session.documentId)).toEqual(session);
    await reopened.close();
  });

  it('writes that arrive together share an fsync, and every one is on disk when its call resolves', async () => {
    const dataDir = await tempDir();
    let fsyncs = 0;
    /** The latest-started fsync that has finished. */
    let finished = 0;
    const syncFile = async (fh: FileHandle) => {
      const n = ++fsyncs;
      await fh.datasync();
      finished = Math.max(finished, n);
    };
    const store = await EmbeddedJobStore.open({ dataDir, syncFile });
    const jobs = Array.from({ length: 200 }, () => makeJob());
    const before = fsyncs;
    // A put resolves only once an fsync that started after it was called has finished.
    const coveredBySync = await Promise.all(
      jobs.map(async (j) => {
        const startedBefore = fsyncs;
        await store.put(j);
        return finished > startedBefore;
      }),
    );
    expect(coveredBySync.every(Boolean)).toBe(true);
    expect(fsyncs - before).toBeLessThan(jobs.length / 4);
    const done = await runToCompletion(store, jobs);
    expect(fsyncs - before).toBeLessThan(jobs.length);
    await store.close();

    const reopened = await EmbeddedJobStore.open({ dataDir });
    for (const j of done) expect(await reopened.get(j.tenantId, j.documentId)).toEqual(j);
    await reopened.close();
  });

  it('a put waits for its fsync; a step between (processing) waits only for its write', async () => {
    const dataDir = await tempDir();
    let hold: Promise<void> | null = null;
    let release!: () => void;
    let syncHeld!: () => void;
    const held = new Promise<void>((r) => (syncHeld = r));
    const syncFile = async (fh: FileHandle) => {
      if (hold) {
        syncHeld();
        await hold;
      }
      await fh.datasync();
    };
    const store = await EmbeddedJobStore.open({ dataDir, syncFile });
    const running = makeJob({ statusInt: JobState.Queued });
    await store.put(running);
    hold = new Promise<void>((r) => (release = r));

    const job = makeJob();
    let resolved = false;
    const put = store.put(job).then(() => (resolved = true));
    await held;
    const processing = await store.transition(running, JobState.Processing, started());
    expect(processing?.statusInt).toBe(JobState.Processing);
    expect(resolved).toBe(false);
    release();
    await put;
    await store.close();

    const reopened = await EmbeddedJobStore.open({ dataDir });
    expect(await reopened.get(job.tenantId, job.documentId)).toEqual(job);
    expect(await reopened.get(running.tenantId, running.documentId)).toEqual(processing);
    await reopened.close();
  });
});
