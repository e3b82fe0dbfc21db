// The embedded control plane's memory bound (src/db/sql.ts PGLITE_MEMORY_SETTINGS): PostgreSQL's
// shared memory, which it sizes at start and touches whole, stays at the stated 12 MB (8 MB of
// it shared buffers), not the 16 MB a server's default of 100 connections asks for.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PGliteSqlClient } from '../../src/db/sql.js';

const MB = 1024 * 1024;

describe('PGlite memory bound', () => {
  let db: PGliteSqlClient;
  beforeAll(async () => {
    db = await PGliteSqlClient.open();
  }, 60_000);
  afterAll(async () => {
    await db?.close();
  });

  it('sizes shared memory for its one backend, not for a server’s connections', async () => {
    const { rows } = await db.query<{ total: string; buffers: string }>(
      `SELECT sum(allocated_size)::text AS total,
              sum(allocated_size) FILTER (WHERE name = 'Buffer Blocks')::text AS buffers
         FROM pg_shmem_allocations`,
    );
    expect(Number(rows[0]!.buffers)).toBeLessThanOrEqual(8.1 * MB);
    expect(Number(rows[0]!.total)).toBeLessThanOrEqual(12 * MB);
  });
});
