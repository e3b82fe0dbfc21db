// Three `docparse serve` processes on 127.0.0.1 share a private Redis, PostgreSQL and S3
// bucket: one API-only (`--role api`), one worker-only (`--role worker`) and one all-in-one.
// Uploads go to both API nodes in turn; every job completes once, is charged once, and both
// API nodes answer status, batch and result for every job, whichever node took the upload and
// whichever parsed it — a job uploaded to the API-only node and parsed on the worker-only node
// has its result served by the all-in-one node, and the other way round.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { chargesPerDocument, csvOf, startCluster, uploadCsv, type TestCluster } from '../helpers/cluster.js';
import type { ChildNode } from '../helpers/http.js';
import { getToken, waitFor } from '../helpers/node.js';

vi.setConfig({ testTimeout: 400_000, hookTimeout: 240_000 });

const ROWS = 20_000;
/** Rounds of uploads (two to each API node) at most, until both workers have parsed uploads of both API nodes. */
const MAX_ROUNDS = 12;

let cluster: TestCluster;
let apiOnly: ChildNode;
let workerOnly: ChildNode;
let allInOne: ChildNode;

beforeAll(async () => {
  cluster = await startCluster();
  // The worker nodes log at info: their `job completed` lines say which node parsed a job.
  allInOne = await cluster.startNode('all-in-one', { env: { LOG_LEVEL: 'info' } });
  apiOnly = await cluster.startNode('api-only', { roles: ['api'] });
  workerOnly = await cluster.startNode('worker-only', { roles: ['worker'], env: { LOG_LEVEL: 'info' } });
});

afterAll(async () => {
  await cluster?.close();
});

/** documentId → nodeId of the node whose worker completed it, from the nodes' JSON logs. */
function parsedOn(): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const node of [allInOne, workerOnly]) {
    for (const line of node.stdout().split('\n')) {
      if (!line.includes('"job completed"')) continue;
      const entry = JSON.parse(line) as { nodeId: string; documentId: string };
      out.set(entry.documentId, [...(out.get(entry.documentId) ?? []), entry.nodeId]);
    }
  }
  return out;
}

type Status = { documentId: string; statusInt: number; status: string };

describe('three nodes: API-only, worker-only, all-in-one (Redis, PostgreSQL, S3)', () => {
  it('reports each node’s roles in node-state', async () => {
    const state = async (n: ChildNode) => (await (await fetch(`${n.url}/health/node-state`)).json()) as Record<string, unknown>;
    const [a, w, c] = await Promise.all([state(apiOnly), state(workerOnly), state(allInOne)]);
    expect(a).toMatchObject({ nodeId: 'api-only', roles: ['api'], acceptingTraffic: true, workerPool: null });
    expect(w).toMatchObject({ nodeId: 'worker-only', roles: ['worker'], acceptingTraffic: true, workerPool: { threads: expect.any(Number) } });
    expect(c).toMatchObject({ nodeId: 'all-in-one', acceptingTraffic: true, workerPool: { threads: expect.any(Number) } });
    expect(c.roles).toEqual(expect.arrayContaining(['api', 'worker', 'auth']));
    // The queue is the cluster's: every node reports the same lanes' depth.
    for (const s of [a, w, c]) expect(s.jobQueue).toMatchObject({ waiting: expect.any(Number), active: expect.any(Number), delayed: expect.any(Number) });
  });

  it('spreads uploads over the API nodes; any API node answers status, batch and result for any job', async () => {
    const app = await cluster.createApp();
    // The token comes from the all-in-one node (the API-only node has no token endpoint) and is
    // accepted by the API-only node: they share the signing keys and the public auth URL.
    const token = await getToken(allInOne.url, app.clientId, app.clientSecret);
    const auth = { authorization: `Bearer ${token}` };
    const apiNodes = [apiOnly, allInOne];
    const uploadedOn = new Map<string, ChildNode>();

    // The worker-only node serves no API.
    expect((await uploadCsv(workerOnly.url, token, 'nowhere', csvOf(0, 10))).status).toBe(404);

    const crossed = () => {
      const parsed = parsedOn();
      const pairs = new Set([...uploadedOn].map(([id, up]) => `${up === apiOnly ? 'api-only' : 'all-in-one'}→${parsed.get(id)?.[0]}`));
      // …and both worker nodes took some: BullMQ hands a job to whichever asks first, so a
      // few rounds may all go to one of them (the loop goes on until both have parsed).
      const workers = new Set([...uploadedOn.keys()].map((id) => parsed.get(id)?.[0]));
      return pairs.has('api-only→worker-only') && pairs.has('all-in-one→worker-only') && workers.has('all-in-one') && workers.has('worker-only');
    };
    for (let round = 0; round < MAX_ROUNDS && !(round > 0 && crossed()); round++) {
      const ids = Array.from({ length: 4 }, (_, i) => `r${round}-job-${i}`);
      await Promise.all(
        ids.map(async (id, i) => {
          const node = apiNodes[i % 2];
          const res = await uploadCsv(node.url, token, id, csvOf(round * 4 + i, ROWS));
          expect(res.status, await res.text()).toBe(202);
          uploadedOn.set(id, node);
        }),
      );
      await waitFor(
        async () => {
          const res = await fetch(`${apiOnly.url}/api/v1/documents/status/batch`, {
            method: 'POST',
            headers: { ...auth, 'content-type': 'application/json' },
            body: JSON.stringify({ documentIds: ids }),
          });
          const { results } = (await res.json()) as { results: Status[] };
          return results.every((r) => r.statusInt === 8);
        },
        `round ${round} to complete`,
        120_000,
      );
    }
    const ids = [...uploadedOn.keys()];
    const parsed = parsedOn();

    // Every job was parsed once, by one of the two worker nodes, and charged once.
    for (const id of ids) expect(parsed.get(id), id).toHaveLength(1);
    expect(new Set(ids.map((id) => parsed.get(id)![0]))).toEqual(new Set(['worker-only', 'all-in-one']));
    const charges = await chargesPerDocument(cluster.control, app.appId);
    expect(charges.size).toBe(ids.length);
    expect([...charges.values()].every((n) => n === 1)).toBe(true);

    // Uploaded on one node, parsed on another, served by a third — both ways round.
    expect(crossed(), 'both API nodes had uploads parsed on the worker-only node').toBe(true);

    // Any API node answers for any job: status, batch (in request order) and the same result.
    for (const id of ids) {
      const results = await Promise.all(apiNodes.map((n) => fetch(`${n.url}/api/v1/documents/${id}/result`, { headers: auth })));
      for (const r of results) expect(r.status, id).toBe(200);
      const [fromApi, fromAll] = await Promise.all(results.map((r) => r.json() as Promise<{ documentId: string; documentUnits: number }>));
      expect(fromApi.documentId).toBe(id);
      expect(fromAll).toEqual(fromApi);
      for (const n of apiNodes) {
        const s = (await (await fetch(`${n.url}/api/v1/documents/${id}/status`, { headers: auth })).json()) as Status;
        expect(s).toMatchObject({ documentId: id, statusInt: 8 });
      }
    }
    const asked = [...ids].reverse().concat('never-uploaded');
    for (const n of apiNodes) {
      const res = await fetch(`${n.url}/api/v1/documents/status/batch`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ documentIds: asked }),
      });
      expect(res.status).toBe(200);
      const { results } = (await res.json()) as { results: (Status & { error?: { code: string } })[] };
      expect(results.map((r) => r.documentId)).toEqual(asked);
      expect(results.slice(0, -1).every((r) => r.statusInt === 8)).toBe(true);
      expect(results.at(-1)!.error?.code).toBe('document_not_found');
    }
  });
});
