// The retention sweep against the embedded job store and the disk blob store: one bad record
// (blobs that cannot be deleted, a key outside its folder, an unreadable or over-deep
// record) is logged and skipped; every other tenant's expired jobs are still removed, and
// the bad one is tried again by the next sweep.
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';

import { EmbeddedJobStore } from '../../src/jobs/embedded-store.js';
import { recordKey } from '../../src/jobs/support.js';
import { JobState, type JobRecord } from '../../src/jobs/types.js';
import { RetentionSweeper } from '../../src/pipeline/retention.js';
import { jobKeys } from '../../src/storage/blob-store.js';
import { DiskBlobStore } from '../../src/storage/disk-blob-store.js';
import { BlobRouter } from '../../src/storage/router.js';
import { filesUnder } from '../helpers/node.js';
import { captureLog, makeJob } from '../jobs/contract.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/** A disk store whose deletes fail for chosen folders (a storage outage, a revoked key). */
class FlakyDiskBlobStore extends DiskBlobStore {
  readonly failing = new Set<string>();
  override async deletePrefix(prefix: string): Promise<void> {
    if (this.failing.has(prefix)) throw new Error(`storage refused to delete ${prefix}`);
    return super.deletePrefix(prefix);
  }
}

function recordingLogger() {
  const errors: { obj: Record<string, unknown>; msg: string }[] = [];
  const logger = {
    error: (obj: Record<string, unknown>, msg: string) => void errors.push({ obj, msg }),
    warn: () => undefined,
    info: () => undefined,
  };
  return { errors, logger: logger as unknown as Logger };
}

describe('retention sweep isolation', () => {
  it('skips and logs a record it cannot remove, removes every other tenant’s expired jobs, and retries the bad one later', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'docparse-retention-'));
    dirs.push(dataDir);
    const blobRoot = path.join(dataDir, 'blobs');
    const blobs = new FlakyDiskBlobStore(blobRoot);
    const router = new BlobRouter(blobs, { getStorageConfig: async () => null } as never, {} as never);
    const storeLog = captureLog();
    let store = await EmbeddedJobStore.open({ dataDir, log: storeLog, fsync: false });

    const newFolder = (j: JobRecord) => jobKeys({ tenantId: j.tenantId, documentId: j.documentId, generation: j.generation });
    const longAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
    const expiredJob = (tenantId: string, minutes: number, over: Partial<JobRecord> = {}): JobRecord => {
      const base = makeJob({ tenantId, statusInt: JobState.Completed, expiresAt: longAgo(minutes) });
      return { ...base, uploadKey: newFolder(base).upload, ...over };
    };
    const withBlobs = async (job: JobRecord) => {
      await blobs.write(job.uploadKey, [Buffer.from('a,b\n1,2\n')]);
      await blobs.write(`${job.uploadKey.slice(0, -'/upload'.length)}/artifact.json`, [Buffer.from('{}')]);
      return job;
    };

    // The oldest records are the bad ones, so a sweep that stopped at the first would remove nothing.
    const undeletable = await withBlobs(expiredJob('tenant-flaky', 50));
    blobs.failing.add(jobKeys(undeletable).prefix);
    const missingStorage = expiredJob('tenant-s3', 49, { storageConfigId: 'deleted-config' });
    const strayKey = expiredJob('tenant-stray', 48, { uploadKey: 'jobs/tenant-a/x/y/upload' });
    const good = await Promise.all(['tenant-a', 'tenant-b', 'tenant-c'].map((t, i) => withBlobs(expiredJob(t, 10 - i))));
    const fresh = makeJob({ tenantId: 'tenant-a', statusInt: JobState.Completed });
    const alive = await withBlobs({ ...fresh, uploadKey: newFolder(fresh).upload });
    for (const j of [undeletable, missingStorage, strayKey, ...good, alive]) await store.put(j);
    await store.close();

    // Written by an earlier version: an expiry that is not a timestamp, and metadata nested
    // deeper than a structured clone can copy.
    const jobsDir = path.join(dataDir, 'jobs');
    const fileOf = (j: JobRecord) => path.join(jobsDir, createHash('sha256').update(recordKey(j.tenantId, j.documentId)).digest('hex') + '.json');
    const badExpiry = { ...expiredJob('tenant-d', 40), expiresAt: 'soon' };
    await writeFile(fileOf(badExpiry), JSON.stringify(badExpiry));
    const deep = await withBlobs(expiredJob('tenant-deep', 30));
    const deepText = JSON.stringify({ ...deep, customMetadata: null }).replace(
      '"customMetadata":null',
      `"customMetadata":${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}`,
    );
    await writeFile(fileOf(deep), deepText);

    store = await EmbeddedJobStore.open({ dataDir, log: storeLog, fsync: false });
    expect(storeLog.entries.some((e) => e.level === 'error' && JSON.stringify(e.obj).includes(path.basename(fileOf(badExpiry))))).toBe(true);
    // The unreadable record cannot break the lookups of its app either.
    expect(await store.countUnfinished(badExpiry.appId)).toBe(0);

    const { errors, logger } = recordingLogger();
    const sweeper = new RetentionSweeper(store, router, logger, 60_000);
    const removed = await sweeper.sweep();
    expect(removed).toBe(good.length + 1);
    for (const j of [...good, deep]) {
      expect(
        (await store.listExpired(new Date(), 100)).some((x) => x.documentId === j.documentId),
        j.tenantId,
      ).toBe(false);
    }
    const left = (await filesUnder(blobRoot)).map((f) => path.relative(blobRoot, f));
    for (const j of [...good, deep])
      expect(
        left.some((f) => f.startsWith(`${newFolder(j).prefix}/`)),
        j.tenantId,
      ).toBe(false);
    expect(left.filter((f) => f.startsWith('jobs/tenant-flaky/'))).toHaveLength(2);
    expect(left.filter((f) => f.startsWith(`${newFolder(alive).prefix}/`))).toHaveLength(2); // not expired yet
    expect(await store.get('tenant-a', alive.documentId)).not.toBeNull();
    const logged = errors.map((e) => e.obj.documentId);
    expect(logged).toEqual(expect.arrayContaining([undeletable.documentId, missingStorage.documentId, strayKey.documentId]));
    expect(new Set((await store.listExpired(new Date(), 100)).map((j) => j.documentId))).toEqual(
      new Set([undeletable.documentId, missingStorage.documentId, strayKey.documentId]),
    );

    expect(storeLog.entries.some((e) => e.level === 'warn' && (e.obj as { documentId?: string }).documentId === deep.documentId)).toBe(true);

    // The next sweep tries again: once storage deletes, the flaky tenant's job goes too.
    blobs.failing.clear();
    expect(await sweeper.sweep()).toBe(1);
    expect((await filesUnder(blobRoot)).some((f) => f.includes('tenant-flaky'))).toBe(false);
    await store.close();
  });
});
