// Live status and cancel across nodes: two `docparse serve` processes on a private Redis,
// PostgreSQL and S3, one API-only (with the token endpoint), one worker-only. The event stream
// is held on the API node while the worker node parses the job, so every state reaches the
// client through Redis pub/sub; a cancel sent to the API node stops the parse on the worker
// node, which then takes the next job.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { chargesPerDocument, startCluster, type ClusterApp, type TestCluster } from '../helpers/cluster.js';
import type { ChildNode } from '../helpers/http.js';
import { getToken, waitFor } from '../helpers/node.js';
import { collectStates, openSse } from '../helpers/sse.js';
import { pagesPdf, scannedPdf } from '../helpers/pdfs.js';
import { canTransition } from '../../src/jobs/transitions.js';

vi.setConfig({ testTimeout: 240_000, hookTimeout: 240_000 });

let cluster: TestCluster;
let apiNode: ChildNode;
let workerNode: ChildNode;
let app: ClusterApp;
let token: string;

beforeAll(async () => {
  cluster = await startCluster();
  apiNode = await cluster.startNode('api-a', { roles: ['api', 'auth'] });
  // One heavy slot: the next OCR job runs only once the cancelled one has let go of it.
  workerNode = await cluster.startNode('worker-b', { roles: ['worker'], env: { DOCPARSE_HEAVY_SLOTS: '1', LOG_LEVEL: 'info' } });
  app = await cluster.createApp({ ocrPdfExtraction: true });
  token = await getToken(apiNode.url, app.clientId, app.clientSecret);
});

afterAll(async () => {
  await cluster?.close();
});

const api = (p: string, init: RequestInit = {}) =>
  fetch(`${apiNode.url}${p}`, { ...init, headers: { authorization: `Bearer ${token}`, ...(init.headers ?? {}) } });
const uploadPdf = (documentId: string, pages: number, scanned = false) =>
  api(`/api/v1/documents/upload?${new URLSearchParams({ fileName: `${documentId}.pdf`, pdfMode: 'Ocr', documentId })}`, {
    method: 'POST',
    body: scanned ? scannedPdf(pages) : pagesPdf(pages),
  });
const statusOf = async (id: string) => (await (await api(`/api/v1/documents/${id}/status`)).json()) as { statusInt: number; error?: { code: string } };

describe('live status across nodes (API node A, worker node B)', () => {
  it('an event stream held on A sees every state of a job parsed on B, in order, up to completed', async () => {
    expect((await uploadPdf('two-node-1', 6)).status).toBe(202);
    const stream = await openSse(`${apiNode.url}/api/v1/documents/two-node-1/events`, token);
    expect(stream.status).toBe(200);
    const { states } = await collectStates(stream);
    const path = states.map((s) => s.statusInt);
    expect(path.at(-1)).toBe(8);
    for (let i = 1; i < path.length; i++) expect(canTransition(path[i - 1], path[i]), `${path[i - 1]} → ${path[i]} in ${path}`).toBe(true);
    // Parsed on B: the running and storing states came through Redis from the other process.
    expect(path).toEqual(expect.arrayContaining([4, 8]));
    // B's log says it completed the job (its log line may follow the event by a moment).
    await waitFor(
      async () =>
        workerNode
          .stdout()
          .split('\n')
          .some((l) => l.includes('"job completed"') && l.includes('"documentId":"two-node-1"')),
      "B's log line",
      10_000,
    );
  });

  it('a cancel sent to A stops the parse on B: failed with code cancelled, nothing charged, B takes the next job', async () => {
    expect((await uploadPdf('two-node-long', 100, true)).status).toBe(202);
    await waitFor(async () => (await statusOf('two-node-long')).statusInt === 7, 'the OCR job to run on B', 60_000);
    const stream = await openSse(`${apiNode.url}/api/v1/documents/two-node-long/events`, token);
    const res = await api('/api/v1/documents/two-node-long', { method: 'DELETE' });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ statusInt: 9, error: { code: 'cancelled' } });
    // The stream on A ends with the cancelled state.
    const { states } = await collectStates(stream);
    expect(states.at(-1)!.body).toMatchObject({ statusInt: 9, error: { code: 'cancelled' } });
    // B's parsing process lets go of the task.
    const poolOf = async () => ((await (await fetch(`${workerNode.url}/health/node-state`)).json()) as { workerPool: { running: number } }).workerPool;
    await waitFor(async () => (await poolOf()).running === 0, "B's parse to stop", 30_000);
    expect((await uploadPdf('two-node-next', 1)).status).toBe(202);
    await waitFor(async () => (await statusOf('two-node-next')).statusInt === 8, 'the next job to complete on B', 120_000);
    const charges = await chargesPerDocument(cluster.control, app.appId);
    expect(charges.get('two-node-long')).toBeUndefined();
    expect(charges.get('two-node-next')).toBe(1);
    expect((await statusOf('two-node-long')).statusInt).toBe(9);
  });
});
