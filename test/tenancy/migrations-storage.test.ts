// Migration 7 on a control plane that has storage configs from before the presets (PGlite, the
// embedded engine; PostgreSQL runs the same SQL in store.postgres.test.ts): an `other-s3`
// config becomes `custom`, every config keeps checksums only when required (what it had),
// and the new providers are taken while unknown ones are still refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PGliteSqlClient } from '../../src/db/sql.js';
import { migrate, migrations } from '../../src/tenancy/migrations.js';

describe('migration 7: storage presets', () => {
  let db: PGliteSqlClient;
  beforeAll(async () => {
    db = await PGliteSqlClient.open();
    await migrate(
      db,
      migrations.filter((m) => m.version < 7),
    );
    await db.query(`INSERT INTO tenants (id, name) VALUES ('t1', 'Old Storage Ltd')`);
    const insert = (id: string, provider: string) =>
      db.query(
        `INSERT INTO storage_configs (id, tenant_id, provider, endpoint, region, bucket, access_key_id, secret_access_key_sealed)
         VALUES ($1, 't1', $2, 'https://s3.example.com', 'us-east-1', 'docs', 'AK', 'v1.sealed')`,
        [id, provider],
      );
    await insert('old-other', 'other-s3');
    await insert('old-aws', 's3');
    await migrate(db);
  }, 60_000);
  afterAll(async () => {
    await db?.close();
  });

  it('other-s3 becomes custom; every earlier config keeps checksums when required', async () => {
    const { rows } = await db.query<{ id: string; provider: string; checksums: string }>('SELECT id, provider, checksums FROM storage_configs ORDER BY id');
    expect(rows).toEqual([
      { id: 'old-aws', provider: 's3', checksums: 'when_required' },
      { id: 'old-other', provider: 'custom', checksums: 'when_required' },
    ]);
  });

  it('takes the new providers and checksum modes, refuses others', async () => {
    const insert = (id: string, provider: string, checksums = 'when_required') =>
      db.query(
        `INSERT INTO storage_configs (id, tenant_id, provider, endpoint, region, bucket, access_key_id, secret_access_key_sealed, checksums)
         VALUES ($1, 't1', $2, 'https://s3.example.com', 'us-east-1', 'docs', 'AK', 'v1.sealed', $3)`,
        [id, provider, checksums],
      );
    for (const p of ['b2', 'spaces', 'custom']) await insert(`new-${p}`, p, 'when_supported');
    await expect(insert('again-other', 'other-s3')).rejects.toThrow(/provider_check/);
    await expect(insert('bad-mode', 'minio', 'always')).rejects.toThrow(/checksums_check/);
  });
});
