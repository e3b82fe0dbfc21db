// The embedded control plane answers a commit only once its WAL is on disk (src/db/pglite-durable-fs.ts).
// A child node runs the real path (control-plane store on a data dir, the ledger's group
// commits) under `strace -f -y`, printing a marker before each call and after its answer; between
// the two, a WAL segment must be fdatasynced. PGlite alone (-F, and NODEFS's no-op syncs) makes no
// sync at all. A checkpoint fsyncs the data files, and the WAL before pg_control.
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/http.js';

const dist = (p: string) => JSON.stringify(join(REPO_ROOT, 'dist', p));
const hasStrace = spawnSync('strace', ['-V']).status === 0;

describe.skipIf(!hasStrace)('embedded control plane durability (strace)', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  it('fdatasyncs the WAL between each commit and its answer, and syncs a checkpoint in order', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'dp-durable-'));
    dirs.push(dataDir);
    const script = `
      const { openControlPlaneStore } = await import(${dist('tenancy/sql-store.js')});
      const { LedgerBatch } = await import(${dist('tenancy/quota/ledger-batch.js')});
      const { writeSync } = await import('node:fs');
      const { randomUUID } = await import('node:crypto');
      const mark = (s) => writeSync(2, 'DPMARK ' + s + '\\n');
      const store = await openControlPlaneStore({ dataDir: process.argv[1] });
      mark('before tenant');
      const tenant = await store.createTenant({ name: 'Durable' });
      mark('after tenant');
      const app = await store.createApp({ tenantId: tenant.id, name: 'd', licenseRegion: 'local', dbCode: 'db1', clientId: 'dp_' + randomUUID(), secretHash: 'x' });
      const ledger = new LedgerBatch(store.db);
      for (let i = 0; i < 5; i++) {
        const charge = { chargeKey: randomUUID(), tenantId: tenant.id, appId: app.id, documentId: randomUUID(), month: '2026-11', format: 'csv', units: 1 };
        mark('before charge ' + i);
        if (!(await ledger.write(charge))) throw new Error('not charged');
        mark('after charge ' + i);
      }
      mark('before checkpoint');
      await store.db.query('CHECKPOINT');
      mark('after checkpoint');
      await store.close();`;
    const r = spawnSync(
      'strace',
      ['-f', '-y', '-qq', '-e', 'trace=fsync,fdatasync,write', '-e', 'signal=none', process.execPath, '--input-type=module', '-e', script, dataDir],
      { encoding: 'utf8', timeout: 120_000, maxBuffer: 64 << 20 },
    );
    expect(r.status, r.stderr.slice(-2000)).toBe(0);
    const lines = r.stderr.split('\n').filter((l) => /DPMARK|\bf(data)?sync\(/.test(l) && !l.startsWith('DPMARK'));
    const between = (name: string): string[] => {
      const from = lines.findIndex((l) => l.includes(`DPMARK before ${name}\\n`));
      const to = lines.findIndex((l) => l.includes(`DPMARK after ${name}\\n`));
      expect(from, `marker ${name}`).toBeGreaterThanOrEqual(0);
      expect(to).toBeGreaterThan(from);
      return lines.slice(from + 1, to);
    };
    const walDatasync = (l: string) => /fdatasync\(\d+<[^>]*\/pg_wal\/[0-9A-F]{24}>/.test(l);

    expect(between('tenant').some(walDatasync)).toBe(true);
    for (let i = 0; i < 5; i++) expect(between(`charge ${i}`).some(walDatasync), `charge ${i}`).toBe(true);

    // A checkpoint: data files fsynced, then the WAL (its checkpoint record) before pg_control.
    const ckpt = between('checkpoint');
    expect(ckpt.some((l) => /fsync\(\d+<[^>]*\/base\/\d+\/\d+>/.test(l))).toBe(true);
    const control = ckpt.findIndex((l) => /fsync\(\d+<[^>]*\/global\/pg_control>/.test(l));
    expect(control).toBeGreaterThan(0);
    expect(ckpt.slice(0, control).some(walDatasync)).toBe(true);
  }, 180_000);
});
