// Fairness between tenants through the API, in the distributed mode (PostgreSQL + Redis): a
// flood of uploads from tenant A does not keep tenant B's one small job waiting behind it.
// The uploads are all queued before a worker node starts, so the order the worker takes them in
// is the queue's alone (no race with the uploads), and the test asserts that order (B's
// position among A's jobs), never a time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { csvOf, uploadCsv } from '../helpers/cluster.js';
import { createApp, createTestEnv, destroyTestEnv, getToken, startTestNode, waitFor, type TestEnv, type TestNode } from '../helpers/node.js';

const FLOOD = 300;
const FAIR_TURN = 8;
/** Light handlers of the worker: 4 per thread (node.ts), with one thread. */
const HANDLERS = 4;

interface Status {
  documentId: string;
  statusInt: number;
  startedAt: string | null;
  completedAt: string | null;
}

async function statuses(url: string, token: string, ids: string[]): Promise<Status[]> {
  const out: Status[] = [];
  for (let i = 0; i < ids.length; i += 100) {
    const res = await fetch(`${url}/api/v1/documents/status/batch`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ documentIds: ids.slice(i, i + 100) }),
    });
    expect(res.status).toBe(200);
    out.push(...((await res.json()) as { results: Status[] }).results);
  }
  return out;
}

describe('fairness between tenants (distributed)', () => {
  let env: TestEnv;
  let api: TestNode;
  let worker: TestNode | null = null;

  beforeAll(async () => {
    env = await createTestEnv('distributed', { DOCPARSE_QUEUE_FAIR_TURN: String(FAIR_TURN) });
    api = await startTestNode(env, {}, ['api', 'auth']);
  });
  afterAll(async () => {
    await worker?.close();
    await api?.close();
    if (env) await destroyTestEnv(env);
  });

  it(`tenant B's one job runs among the first jobs, ahead of almost all of tenant A's ${FLOOD} queued before it`, async () => {
    const a = await createApp(api.node, { maxConcurrentJobs: 10_000 });
    const b = await createApp(api.node, { maxConcurrentJobs: 10_000 });
    const tokenA = await getToken(api.url, a.clientId, a.clientSecret);
    const tokenB = await getToken(api.url, b.clientId, b.clientSecret);

    const aIds = Array.from({ length: FLOOD }, (_, i) => `a-${i}`);
    const body = csvOf(1, 20);
    // Eight at a time: the flood is in the queue before B's upload.
    for (let i = 0; i < aIds.length; i += 8) {
      const replies = await Promise.all(aIds.slice(i, i + 8).map((id) => uploadCsv(api.url, tokenA, id, body)));
      for (const r of replies) expect(r.status).toBe(202);
    }
    expect((await uploadCsv(api.url, tokenB, 'b-0', body)).status).toBe(202);

    worker = await startTestNode(env, { DOCPARSE_WORKER_THREADS: '1' }, ['worker']);
    const [bDone] = await waitFor(
      async () => {
        const [s] = await statuses(api.url, tokenB, ['b-0']);
        return s.statusInt === 8 ? [s] : null;
      },
      "B's job to complete",
      120_000,
    );
    // Let A's flood finish too, so every A job has its times.
    const aDone = await waitFor(
      async () => {
        const all = await statuses(api.url, tokenA, aIds);
        return all.every((s) => s.statusInt === 8) ? all : null;
      },
      "A's flood to complete",
      300_000,
    );

    const before = (field: 'startedAt' | 'completedAt') => aDone.filter((s) => Date.parse(s[field]!) < Date.parse(bDone[field]!)).length;
    // Started: behind at most the A jobs in the plain wait list (A's first turn) and those the
    // worker's handlers took with them. Without turns B would start after all 300.
    expect(before('startedAt')).toBeLessThanOrEqual(FAIR_TURN + HANDLERS);
    // Completed: the parsing host gives its thread to B's task in turn, not after A's queued there.
    expect(before('completedAt')).toBeLessThanOrEqual(FAIR_TURN + 2 * HANDLERS);
  }, 600_000);
});
