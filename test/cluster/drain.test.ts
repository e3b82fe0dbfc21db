// Graceful drain of a worker node with jobs in flight (Redis mode). Two all-in-one nodes share
// a private Redis, PostgreSQL and S3 bucket; B is parsing when it gets SIGTERM. At once its
// node-state says it no longer accepts traffic and readiness fails, while it still answers;
// it takes no new job, and the parses that outlast its grace period are cut short and handed
// back: A takes them at once and completes them, this run not counted as an attempt. B exits 0;
// no job is lost and none is charged twice.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { chargesPerDocument, startCluster, type TestCluster } from '../helpers/cluster.js';
import { tempDir, type ChildNode } from '../helpers/http.js';
import { writeWideXlsx } from '../helpers/workbooks.js';
import { getToken, waitFor } from '../helpers/node.js';
import type { JobRecord } from '../../src/jobs/types.js';

vi.setConfig({ testTimeout: 400_000, hookTimeout: 240_000 });

/**
 * A workbook whose parse outlasts B's grace period many times over (about 4 s per 60,000 rows
 * on a loaded 2-core machine), in a small upload (7 MB).
 */
const ROWS = 150_000;
const JOBS = 4;
/** B's whole stop: the notice, then what is left for its running jobs. */
const GRACE_SECONDS = 3;
const NOTICE_SECONDS = 2;

let cluster: TestCluster;
let a: ChildNode;
let b: ChildNode;
let dir: string;
let workbook: Buffer;

beforeAll(async () => {
  dir = await tempDir('dp-drain-');
  await writeWideXlsx(path.join(dir, 'wide.xlsx'), ROWS, 8);
  workbook = await fs.readFile(path.join(dir, 'wide.xlsx'));
  cluster = await startCluster();
  a = await cluster.startNode('node-a');
  b = await cluster.startNode('node-b', {
    env: { LOG_LEVEL: 'info', DOCPARSE_SHUTDOWN_GRACE_SECONDS: String(GRACE_SECONDS), DOCPARSE_DRAIN_NOTICE_SECONDS: String(NOTICE_SECONDS) },
  });
});

afterAll(async () => {
  await cluster?.close();
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

type NodeState = { state: string; acceptingTraffic: boolean; workerPool: { running: number } | null };
const nodeState = async (n: ChildNode) => (await (await fetch(`${n.url}/health/node-state`)).json()) as NodeState;

describe('graceful drain on SIGTERM (Redis mode)', () => {
  it('says it drains at once, hands back the parses it cannot finish, exits 0; nothing lost or charged twice', async () => {
    const { store, control } = cluster;
    const app = await cluster.createApp();
    const token = await getToken(a.url, app.clientId, app.clientSecret);
    const ids = Array.from({ length: JOBS }, (_, i) => `drain-${i}`);
    for (const id of ids) {
      const res = await fetch(`${a.url}/api/v1/documents/upload?${new URLSearchParams({ fileName: `${id}.xlsx`, documentId: id })}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
        body: workbook,
      });
      expect(res.status, await res.text()).toBe(202);
    }
    await waitFor(async () => (await nodeState(b)).workerPool!.running >= 1, 'node B to be parsing', 120_000);

    b.child.kill('SIGTERM');
    // Draining, said at once, while B still answers.
    const draining = await waitFor(async () => {
      const s = await nodeState(b);
      return s.acceptingTraffic ? null : s;
    }, 'node B to say it is draining');
    expect(draining.acceptingTraffic).toBe(false);
    expect(draining.state).toBe('draining');
    const ready = await fetch(`${b.url}/health/ready`);
    expect(ready.status).toBe(503);
    expect(((await ready.json()) as { code: string }).code).toBe('not_ready');

    const { code, signal } = await b.exited;
    expect(signal).toBeNull();
    expect(code, b.stderr()).toBe(0);
    const handedBack = b
      .stdout()
      .split('\n')
      .filter((l) => l.includes('"job handed back: the node is stopping"'))
      .map((l) => (JSON.parse(l) as { documentId: string }).documentId);
    console.log(`\nDrain: ${JOBS} jobs, node B stopped while parsing; handed back: ${handedBack.join(', ') || 'none'}`);
    expect(handedBack.length).toBeGreaterThanOrEqual(1);

    // Nothing lost: every job completes on A, the handed-back ones too, in their first attempt.
    const done = await waitFor(
      async () => {
        const recs = await store.getMany(app.tenantId, ids);
        return recs.every((r) => r?.statusInt === 8 || r?.statusInt === 9) ? (recs as JobRecord[]) : null;
      },
      'every job to finish',
      300_000,
    );
    // With each job's error, so that a failure says why.
    expect(done.map((r) => [r.documentId, r.statusInt, r.error?.message ?? null])).toEqual(ids.map((id) => [id, 8, null]));
    for (const r of done.filter((j) => handedBack.includes(j.documentId))) expect(r.attempts, r.documentId).toBe(1);

    // Nothing charged twice: one usage row per document.
    const charges = await chargesPerDocument(control, app.appId);
    expect(charges.size).toBe(JOBS);
    expect([...charges.values()].every((n) => n === 1)).toBe(true);
    expect((await fetch(`${a.url}/health/ready`)).status).toBe(200);
  });
});
