// GET /metrics on a real node (embedded mode): refused without an operator key, and counting
// what the node did — a request by its route pattern and status, a completed job with its
// family and Document Units, a quota refusal — plus the gauges read on scrape; the draining
// flag as /metrics and node-state report it.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { SqlControlPlaneStore } from '../../src/tenancy/sql-store.js';
import { OperatorKeysStore } from '../../src/tenancy/operator-keys-store.js';
import { createApp, createTestEnv, destroyTestEnv, getToken, startTestNode, waitFor, type TestEnv, type TestNode } from '../helpers/node.js';

vi.setConfig({ testTimeout: 90_000, hookTimeout: 120_000 });

let t: TestEnv;
let n: TestNode;
let operatorKey: string;

beforeAll(async () => {
  t = await createTestEnv('embedded', { DOCPARSE_WORKER_THREADS: '1' });
  n = await startTestNode(t);
  operatorKey = (await new OperatorKeysStore((n.node.controlPlane as SqlControlPlaneStore).db).create('metrics scraper')).key;
});

afterAll(async () => {
  await n?.close();
  if (t) await destroyTestEnv(t);
});

const scrape = (authorization?: string) => fetch(`${n.url}/metrics`, { headers: authorization ? { authorization } : {} });

/** The value of one sample line of the exposition, or undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = /^([a-z_:]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = m[2] ? m[2].split(/,(?=[a-z_]+=")/) : [];
    if (want.every((w) => have.includes(w)) && have.length === want.length) return Number(m[3]);
  }
  return undefined;
}

async function metricsText(): Promise<string> {
  const res = await scrape(`Bearer ${operatorKey}`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text();
}

describe('GET /metrics', () => {
  it('is refused without an operator key: none, a wrong one, an app token', async () => {
    const none = await scrape();
    expect(none.status).toBe(401);
    expect(((await none.json()) as { code: string }).code).toBe('missing_credentials');
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer realm=/);

    const wrong = await scrape('Bearer dp_op_not-a-key');
    expect(wrong.status).toBe(401);
    expect(((await wrong.json()) as { code: string }).code).toBe('invalid_credentials');

    const token = await getToken(n.url, 'demo-client', 'demo-secret-0123456789');
    const appToken = await scrape(`Bearer ${token}`);
    expect(appToken.status).toBe(401);
    expect(((await appToken.json()) as { code: string }).code).toBe('invalid_credentials');
  });

  it('counts a request by its route pattern and status, and a completed job with its family and units', async () => {
    const app = await createApp(n.node, { maxDocumentUnitsPerMonth: 1 });
    const token = await getToken(n.url, app.clientId, app.clientSecret);
    const auth = { authorization: `Bearer ${token}` };
    const before = await metricsText();
    const uploadsBefore = sample(before, 'docparse_http_requests_total', { method: 'POST', route: '/api/v1/documents/upload', status: '202' }) ?? 0;
    const csvCompletedBefore = sample(before, 'docparse_jobs_total', { family: 'csv', state: 'completed' })!;
    const csvUnitsBefore = sample(before, 'docparse_document_units_charged_total', { family: 'csv' })!;
    expect(csvCompletedBefore).toBe(0);

    const documentId = 'metrics-doc-7f3a';
    const upload = await fetch(`${n.url}/api/v1/documents/upload?fileName=a.csv&csvRoute=Tabular&documentId=${documentId}`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'text/csv' },
      body: 'a,b\n1,2\n3,4\n',
    });
    expect(upload.status).toBe(202);
    const status = await waitFor(async () => {
      const r = await fetch(`${n.url}/api/v1/documents/${documentId}/status`, { headers: auth });
      const s = (await r.json()) as { statusInt: number; documentUnits: number | null };
      return s.statusInt === 8 || s.statusInt === 9 ? s : null;
    }, 'the job to finish');
    expect(status.statusInt).toBe(8);
    expect(status.documentUnits).toBe(1);
    // The app has used its one unit: the next upload is refused before any byte is stored.
    const refused = await fetch(`${n.url}/api/v1/documents/upload?fileName=b.csv&csvRoute=Tabular`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'text/csv' },
      body: 'a\n1\n',
    });
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { code: string }).code).toBe('quota_exceeded');

    // The worker counts a completion once its transition has resolved, which can be a moment
    // after a reader already sees the job completed (a scrape trails the state; it never leads).
    const text = await waitFor(async () => {
      const t = await metricsText();
      return sample(t, 'docparse_jobs_total', { family: 'csv', state: 'completed' }) === csvCompletedBefore + 1 ? t : null;
    }, 'the completion to be counted');
    expect(sample(text, 'docparse_http_requests_total', { method: 'POST', route: '/api/v1/documents/upload', status: '202' })).toBe(uploadsBefore + 1);
    expect(sample(text, 'docparse_http_requests_total', { method: 'POST', route: '/api/v1/documents/upload', status: '429' })).toBe(1);
    // The route's pattern, never the path the client sent.
    expect(
      sample(text, 'docparse_http_requests_total', { method: 'GET', route: '/api/v1/documents/:documentId/status', status: '200' }),
    ).toBeGreaterThanOrEqual(1);
    expect(text).not.toContain(documentId);
    expect(sample(text, 'docparse_http_request_duration_seconds_count', { method: 'POST', route: '/api/v1/documents/upload', status: '202' })).toBe(
      uploadsBefore + 1,
    );
    expect(
      sample(text, 'docparse_http_request_duration_seconds_bucket', { method: 'POST', route: '/api/v1/documents/upload', status: '202', le: '+Inf' }),
    ).toBe(uploadsBefore + 1);

    expect(sample(text, 'docparse_jobs_total', { family: 'csv', state: 'queued' })).toBe(1);
    expect(sample(text, 'docparse_jobs_total', { family: 'csv', state: 'completed' })).toBe(csvCompletedBefore + 1);
    expect(sample(text, 'docparse_jobs_total', { family: 'pdf', state: 'completed' })).toBe(0);
    expect(sample(text, 'docparse_document_units_charged_total', { family: 'csv' })).toBe(csvUnitsBefore + 1);
    expect(sample(text, 'docparse_engine_seconds_total', { family: 'csv' })).toBeGreaterThan(0);
    expect(sample(text, 'docparse_quota_refusals_total', { stage: 'upload' })).toBe(1);
    expect(sample(text, 'docparse_quota_refusals_total', { stage: 'job' })).toBe(0);

    // Gauges, read on scrape.
    for (const lane of ['light', 'heavy'])
      for (const state of ['waiting', 'active', 'delayed']) expect(sample(text, 'docparse_queue_depth', { lane, state })).toBe(0);
    expect(sample(text, 'docparse_pool_threads', { state: 'running' })).toBe(0);
    expect(sample(text, 'docparse_pool_utilization')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'docparse_parser_restarts_total')).toBe(0);
    expect(sample(text, 'docparse_parser_resident_memory_bytes')).toBeGreaterThan(1_000_000);
    expect(sample(text, 'docparse_node_accepting')).toBe(1);
  });

  it('a node that drains says so in node-state and /metrics', async () => {
    const before = (await (await fetch(`${n.url}/health/node-state`)).json()) as { state: string };
    expect(before.state).toBe('accepting');
    n.node.http.beginDrain();
    const after = (await (await fetch(`${n.url}/health/node-state`)).json()) as { state: string; acceptingTraffic: boolean };
    expect(after).toMatchObject({ state: 'draining', acceptingTraffic: false });
    expect(sample(await metricsText(), 'docparse_node_accepting')).toBe(0);
  });
});
