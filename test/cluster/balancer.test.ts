// The reference balancer (deploy/balancer/balancer.mjs, its own process) in front of three
// all-in-one nodes sharing a private Redis, PostgreSQL and S3 bucket. It sends uploads to
// the least-loaded node that accepts traffic: a node busy with held-open requests gets none
// while the others are idle. One node is drained (SIGTERM) while uploads keep coming: the
// balancer moves away from it as soon as its node-state says so, every upload succeeds, the
// drained node exits 0, and every job completes and is charged once.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { chargesPerDocument, csvOf, startCluster, type TestCluster } from '../helpers/cluster.js';
import { freePort, RawConnection, REPO_ROOT, waitFor, type ChildNode } from '../helpers/http.js';
import { getToken } from '../helpers/node.js';

vi.setConfig({ testTimeout: 400_000, hookTimeout: 240_000 });

let cluster: TestCluster;
const nodes: ChildNode[] = [];
let balancer: ChildProcess;
let balancerUrl: string;
let balancerLog = '';

type BalancerNode = { url: string; nodeId: string; up: boolean; accepting: boolean; active: number; sent: number };
const balancerNodes = async () => ((await (await fetch(`${balancerUrl}/balancer/nodes`)).json()) as { nodes: BalancerNode[] }).nodes;

beforeAll(async () => {
  const port = await freePort();
  balancerUrl = `http://127.0.0.1:${port}`;
  // The balancer's address is the cluster's public one: tokens name it as their issuer.
  cluster = await startCluster({ publicUrl: balancerUrl });
  for (const name of ['node-1', 'node-2', 'node-3']) nodes.push(await cluster.startNode(name));
  balancer = spawn(process.execPath, [path.join(REPO_ROOT, 'deploy/balancer/balancer.mjs')], {
    env: {
      ...process.env,
      BALANCER_NODES: nodes.map((n) => n.url).join(','),
      BALANCER_PORT: String(port),
      BALANCER_HOST: '127.0.0.1',
      BALANCER_POLL_MS: '500',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  balancer.stdout!.on('data', (d) => (balancerLog += d));
  balancer.stderr!.on('data', (d) => (balancerLog += d));
  await waitFor(async () => (await balancerNodes().catch(() => [])).filter((n) => n.up && n.accepting).length === 3, 'the balancer to see three nodes', 60_000);
});

afterAll(async () => {
  balancer?.kill('SIGKILL');
  await cluster?.close();
});

async function upload(token: string, documentId: string): Promise<{ status: number; node: string | null; body: string }> {
  const res = await fetch(`${balancerUrl}/api/v1/documents/upload?${new URLSearchParams({ fileName: `${documentId}.csv`, csvRoute: 'Tabular', documentId })}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: csvOf(documentId.length, 2_000),
  });
  return { status: res.status, node: res.headers.get('x-docparse-node'), body: await res.text() };
}

describe('the reference balancer in front of three nodes', () => {
  let token: string;
  let appId: string;
  let tenantId: string;
  const uploaded: string[] = [];

  it('spreads uploads over the nodes and sends none to a node busy with other requests', async () => {
    const app = await cluster.createApp();
    ({ appId, tenantId } = app);
    token = await getToken(balancerUrl, app.clientId, app.clientSecret);

    const spread = new Map<string, number>();
    for (let i = 0; i < 9; i++) {
      const r = await upload(token, `spread-${i}`);
      expect(r.status, r.body).toBe(202);
      uploaded.push(`spread-${i}`);
      spread.set(r.node!, (spread.get(r.node!) ?? 0) + 1);
    }
    expect([...spread.keys()].sort()).toEqual(['node-1', 'node-2', 'node-3']);

    // Node 1 holds six uploads whose bodies have not finished arriving (sent to it directly).
    const held: RawConnection[] = [];
    for (let i = 0; i < 6; i++) {
      const c = new RawConnection(nodes[0].port);
      await c.connected;
      await c.write(
        `POST /api/v1/documents/upload?fileName=held-${i}.csv&csvRoute=Tabular HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Length: 100000\r\n\r\nid,name\n`,
      );
      held.push(c);
    }
    await waitFor(async () => ((await balancerNodes()).find((n) => n.nodeId === 'node-1')?.active ?? 0) >= 6, 'the balancer to see node 1 busy');
    const busy: string[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await upload(token, `busy-${i}`);
      expect(r.status, r.body).toBe(202);
      uploaded.push(`busy-${i}`);
      busy.push(r.node!);
    }
    for (const c of held) c.destroy();
    expect(busy).not.toContain('node-1');
    expect(new Set(busy)).toEqual(new Set(['node-2', 'node-3']));
  });

  it('moves away from a draining node: every upload succeeds, the node exits 0, no job is lost or charged twice', async () => {
    const drained = nodes[2];
    let stop = false;
    const results: { id: string; status: number; node: string | null; body: string }[] = [];
    // Uploads keep coming, four at a time, until the drained node has exited and a few more.
    const traffic = Promise.all(
      [0, 1, 2, 3].map(async (w) => {
        for (let i = 0; !stop; i++) {
          const id = `drain-${w}-${i}`;
          results.push({ id, ...(await upload(token, id)) });
        }
      }),
    );
    await waitFor(() => results.filter((r) => r.node === 'node-3').length >= 2, 'uploads to reach node 3', 60_000);
    drained.child.kill('SIGTERM');
    const sentAtTerm = results.length;
    await waitFor(async () => (await balancerNodes()).find((n) => n.nodeId === 'node-3')?.accepting === false, 'the balancer to see node 3 draining');
    const { code, signal } = await drained.exited;
    const afterExit = results.length;
    await waitFor(() => results.length >= afterExit + 8, 'uploads after the drained node exited', 60_000);
    stop = true;
    await traffic;

    expect(signal).toBeNull();
    expect(code, drained.stderr()).toBe(0);
    for (const r of results) expect(r.status, `${r.id}: ${r.body}`).toBe(202);
    expect(results.length).toBeGreaterThan(sentAtTerm);
    // After it exited, the other two took everything.
    expect(new Set(results.slice(afterExit).map((r) => r.node))).not.toContain('node-3');
    uploaded.push(...results.map((r) => r.id));

    const done = await waitFor(
      async () => {
        const recs = await cluster.store.getMany(tenantId, uploaded);
        return recs.every((r) => r?.statusInt === 8 || r?.statusInt === 9) ? recs : null;
      },
      'every job to finish',
      300_000,
    );
    expect(done.map((r) => r?.statusInt)).toEqual(uploaded.map(() => 8));
    const charges = await chargesPerDocument(cluster.control, appId);
    expect(charges.size).toBe(uploaded.length);
    expect([...charges.values()].every((n) => n === 1)).toBe(true);
    expect(balancerLog).toMatch(/draining/);
  });
});
