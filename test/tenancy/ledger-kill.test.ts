// A charge that settle answered is in the embedded ledger after kill -9 of the node (issue 28,
// fifth round: the PGlite client commits with its own one-message statements). A child process
// settles charges in group commits and prints each key once settle resolved; it is killed with
// SIGKILL while settling more. Reopened, the ledger holds every printed key, and settling one
// again charges nothing.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openControlPlaneStore } from '../../src/tenancy/sql-store.js';
import { isCharged, unitsUsed } from '../../src/tenancy/store/usage.js';
import { LedgerQuotaKeeper } from '../../src/tenancy/quota/ledger-keeper.js';
import { MemoryTallies } from '../../src/tenancy/quota/memory-tallies.js';
import { REPO_ROOT } from '../helpers/http.js';

const MONTH = '2026-11';
const dist = (p: string) => JSON.stringify(join(REPO_ROOT, 'dist', p));

describe('embedded ledger and kill -9', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  it('keeps every charge that settle answered, and a retried settle charges it once', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'dp-ledger-kill-'));
    dirs.push(dataDir);
    const script = `
      const { openControlPlaneStore } = await import(${dist('tenancy/sql-store.js')});
      const { LedgerQuotaKeeper } = await import(${dist('tenancy/quota/ledger-keeper.js')});
      const { MemoryTallies } = await import(${dist('tenancy/quota/memory-tallies.js')});
      const { randomUUID } = await import('node:crypto');
      const store = await openControlPlaneStore({ dataDir: process.argv[1] });
      const tenant = await store.createTenant({ name: 'Kill' });
      const app = await store.createApp({ tenantId: tenant.id, name: 'k', licenseRegion: 'local', dbCode: 'db1', clientId: 'dp_' + randomUUID(), secretHash: 'x' });
      console.log(JSON.stringify({ tenantId: tenant.id, appId: app.id }));
      const keeper = new LedgerQuotaKeeper({ db: store.db, tallies: new MemoryTallies() });
      const one = async () => {
        const c = { chargeKey: randomUUID(), tenantId: tenant.id, appId: app.id, documentId: randomUUID(), month: '${MONTH}', format: 'csv', units: 1, quota: 1e9 };
        await keeper.reserve({ ...c, holdSeconds: 600 });
        const r = await keeper.settle(c);
        if (r.ok) console.log(c.chargeKey);
      };
      // Eight jobs settling at a time, for ever: settles share group commits.
      await Promise.all(Array.from({ length: 8 }, async () => { for (;;) await one(); }));`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script, dataDir], { stdio: ['ignore', 'pipe', 'inherit'] });
    const lines: string[] = [];
    let buffered = '';
    await new Promise<void>((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', (code) => reject(new Error(`child exited (${code}) before it was killed`)));
      child.stdout!.on('data', (d: Buffer) => {
        buffered += d.toString();
        const parts = buffered.split('\n');
        buffered = parts.pop()!;
        lines.push(...parts);
        // Killed while charges are in flight, right after these were answered.
        if (lines.length > 200 && child.exitCode === null) {
          child.kill('SIGKILL');
          resolve();
        }
      });
    });
    await new Promise((r) => (child.exitCode === null && child.signalCode === null ? child.once('exit', r) : r(null)));
    const { tenantId, appId } = JSON.parse(lines[0]) as { tenantId: string; appId: string };
    const answered = lines.slice(1);
    expect(answered.length).toBeGreaterThanOrEqual(200);

    const store = await openControlPlaneStore({ dataDir });
    try {
      const missing = [];
      for (const key of answered) if (!(await isCharged(store.db, key))) missing.push(key);
      expect(missing).toEqual([]);
      const used = await unitsUsed(store.db, appId, MONTH);
      expect(used).toBeGreaterThanOrEqual(answered.length);
      // The node's retry of a settle it had answered: charged once.
      const keeper = new LedgerQuotaKeeper({ db: store.db, tallies: new MemoryTallies() });
      const again = { chargeKey: answered[0], tenantId, appId, documentId: randomUUID(), month: MONTH, format: 'csv', units: 1, quota: 1e9 };
      expect(await keeper.settle(again)).toEqual({ ok: true });
      expect(await unitsUsed(store.db, appId, MONTH)).toBe(used);
      await keeper.close();
    } finally {
      await store.close();
    }
  }, 180_000);
});
