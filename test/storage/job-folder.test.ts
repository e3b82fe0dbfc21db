// Where a job's blobs live: one folder per job (tenant, hashed document id and generation),
// and the folders of earlier layouts still found from a stored record; a key outside the
// job's own folder is refused, since deleting its folder could reach other jobs' blobs.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';

import { jobFolder, jobKeys } from '../../src/storage/blob-store.js';

const job = { tenantId: 't1', documentId: 'invoice 7/2026', generation: '6f1c1d2e-0000-4000-8000-000000000001' };
const digest = createHash('sha256').update(job.documentId).digest('hex');

describe('job folders', () => {
  it('puts a new job in one folder named by its document and generation', () => {
    const keys = jobKeys(job);
    expect(keys.prefix).toBe(`jobs/t1/${digest}.${job.generation}`);
    expect(keys.upload).toBe(`${keys.prefix}/upload`);
    expect(jobFolder({ ...job, uploadKey: keys.upload })).toBe(keys.prefix);
  });

  it('finds the folder of a job stored under an earlier layout', () => {
    for (const doc of [digest, Buffer.from(job.documentId).toString('base64url')]) {
      const uploadKey = `jobs/t1/${doc}/${job.generation}/upload`;
      expect(jobFolder({ ...job, uploadKey })).toBe(`jobs/t1/${doc}/${job.generation}`);
      expect(jobKeys({ ...job, uploadKey }).artifact).toBe(`jobs/t1/${doc}/${job.generation}/artifact.json`);
    }
  });

  it('refuses a stored key outside the job’s own folder', () => {
    const other = '6f1c1d2e-0000-4000-8000-000000000002';
    for (const uploadKey of [
      `jobs/t2/${digest}.${job.generation}/upload`, // another tenant
      `jobs/t1/${digest}.${other}/upload`, // another generation
      `jobs/t1/.${job.generation}/upload`, // no document part
      `jobs/t1/upload`, // the tenant's folder
      `jobs/t1/${digest}/${other}/upload`, // earlier layout, another generation
      `jobs/t1/${digest}/${job.generation}/parts/upload`, // deeper than a job folder
      `blobs/t1/${digest}.${job.generation}/upload`,
    ]) {
      expect(() => jobFolder({ ...job, uploadKey }), uploadKey).toThrow(/outside its own folder/);
    }
  });
});
