// Test fixtures for the control plane: fresh PGlite stores cloned from one migrated snapshot
// (a cold PGlite start costs seconds, a clone well under one), and small record builders.
import { randomUUID } from 'node:crypto';
import { PGliteSqlClient } from '../../src/db/sql.js';
import { SqlControlPlaneStore } from '../../src/tenancy/sql-store.js';
import type { NewPlan } from '../../src/tenancy/types.js';

let snapshot: Promise<Blob> | null = null;

/** A migrated, empty, in-memory PGlite store. Close it when done. */
export async function freshPGliteStore(): Promise<SqlControlPlaneStore> {
  snapshot ??= (async () => {
    const db = await PGliteSqlClient.open();
    const store = new SqlControlPlaneStore(db);
    await store.migrate();
    const blob = await db.db.dumpDataDir('none');
    await db.close();
    return blob;
  })();
  return new SqlControlPlaneStore(await PGliteSqlClient.fromSnapshot(await snapshot));
}

export function planInput(over: Partial<NewPlan> = {}): NewPlan {
  return {
    name: `plan-${randomUUID().slice(0, 8)}`,
    maxDocumentUnitsPerMonth: 1000,
    advancedPdfExtraction: false,
    ocrPdfExtraction: false,
    maxFileSizeBytes: 100 * 1024 * 1024,
    maxConcurrentJobs: 4,
    maxBytesPerSecond: 10 * 1024 * 1024,
    ...over,
  };
}

export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
