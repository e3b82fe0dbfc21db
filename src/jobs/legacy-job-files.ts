// The embedded job store's earlier on-disk format: one file per job,
// `<sha256(recordKey)>.json`, written to a `.tmp` file and renamed. Read once when a data dir
// made by an earlier version is opened; the store moves the records into its journal and
// then removes the files.

import { createHash } from 'node:crypto';
import { readdir, readFile, unlink } from 'node:fs/promises';
import path from 'node:path';

import type { JobRecord } from './types.js';
import { recordFlaw, recordKey, type JobLogger } from './support.js';

export interface LegacyRecord {
  key: string;
  job: JobRecord;
  file: string;
}

/** Name of a job's file in the earlier format. */
export function legacyFileName(key: string): string {
  return createHash('sha256').update(key).digest('hex') + '.json';
}

/**
 * The readable per-job files of dir. Interrupted writes (`.tmp`) are removed: the file they
 * would have replaced is intact. An unreadable file is logged and left where it is.
 */
export async function readLegacyJobFiles(dir: string, log: JobLogger): Promise<LegacyRecord[]> {
  const out: LegacyRecord[] = [];
  for (const name of await readdir(dir)) {
    const file = path.join(dir, name);
    if (name.endsWith('.tmp')) {
      await unlink(file).catch(() => undefined);
      continue;
    }
    if (!name.endsWith('.json')) continue;
    try {
      const job = JSON.parse(await readFile(file, 'utf8')) as JobRecord;
      const flaw = recordFlaw(job);
      if (flaw) throw new Error(flaw);
      const key = recordKey(job.tenantId, job.documentId);
      if (legacyFileName(key) !== name) throw new Error('file name does not match record');
      out.push({ key, job, file });
    } catch (err) {
      log.error({ file, err: String(err) }, 'jobs: skipping unreadable job file');
    }
  }
  return out;
}

/** Removes files whose records are safely elsewhere; one already gone is fine. */
export async function removeLegacyJobFiles(files: string[]): Promise<void> {
  for (const file of files) {
    await unlink(file).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
  }
}
