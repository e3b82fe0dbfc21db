// Public health endpoints and the OpenAPI document, on a full node started in-process, plus
// readiness failures on a bare HttpServer.
import fs from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { pino } from 'pino';
import { Validator } from '@seriousme/openapi-schema-validator';
import { loadConfig } from '../../src/config.js';
import { startNode, type RunningNode } from '../../src/node.js';
import { healthRoutes, type HealthDeps } from '../../src/api/health.js';
import { RawConnection, rawRequest, startTestServer, tempDir, waitFor } from '../helpers/http.js';
import { JOB_FAILURES, PROBLEMS } from '../../src/errors/catalogue.js';
import { codesByStatus, problemCodesOf } from '../../src/http/route-errors.js';
import { INLINE_MAX_BYTES } from '../../src/pipeline/inline-tasks.js';

// Real sockets and processes: independent of the runner's default timeouts.
vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

let node: RunningNode;
let url: string;
let dataDir: string;

beforeAll(async () => {
  dataDir = await tempDir('dp-health-');
  const config = loadConfig({
    PORT: '0',
    DOCPARSE_DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    DOCPARSE_WORKER_THREADS: '1',
    DOCPARSE_REGION: 'eu-test-1',
    DOCPARSE_NODE_ID: 'node-under-test',
    DOCPARSE_DEMO_CLIENT_ID: 'health-demo',
    DOCPARSE_DEMO_CLIENT_SECRET: 'health-demo-secret-0123456789',
  });
  node = await startNode(config, { logger: pino({ level: 'silent' }) });
  url = `http://127.0.0.1:${node.port}`;
});

afterAll(async () => {
  await node?.close();
  await fs.rm(dataDir, { recursive: true, force: true });
});

/** An access token of the demo app. */
const demoToken = () =>
  fetch(`${url}/connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      scope: 'Service.API',
      client_id: 'health-demo',
      client_secret: 'health-demo-secret-0123456789',
    }),
  }).then(async (r) => ((await r.json()) as { access_token: string }).access_token);

const PUBLIC = ['/health/live', '/health/ready', '/health/node-state', '/openapi/v1.json'];

describe('health endpoints on a running node', () => {
  it('GET /health/live → 200', async () => {
    const res = await fetch(`${url}/health/live`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.json()).toEqual({ status: 'live' });
  });

  it('GET /health/ready → 200 once the control plane, job store and worker pool are ready', async () => {
    const res = await waitFor(
      async () => {
        const r = await fetch(`${url}/health/ready`);
        return r.status === 200 ? r : (await r.body?.cancel(), null);
      },
      'readiness',
      60_000,
    );
    const body = (await res.json()) as { status: string; checks: Record<string, string> };
    expect(body.status).toBe('ready');
    for (const name of ['controlPlane', 'jobStore', 'workerPool']) expect(body.checks[name]).toBe('ok');
  });

  it('GET /health/node-state reports the telemetry a load balancer needs', async () => {
    const res = await fetch(`${url}/health/node-state`);
    expect(res.status).toBe(200);
    const s = (await res.json()) as Record<string, any>;
    expect(s).toMatchObject({ nodeId: 'node-under-test', region: 'eu-test-1', state: 'accepting', acceptingTraffic: true });
    expect([...s.roles].sort()).toEqual(['api', 'auth', 'worker']);
    expect(s.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(s.uptimeSeconds).toBeGreaterThanOrEqual(0);
    expect(s.cpu.processPercent).toBeGreaterThanOrEqual(0);
    expect(s.cpu.machinePercent).toBeGreaterThanOrEqual(0);
    expect(s.cpu.machinePercent).toBeLessThanOrEqual(100);
    expect(s.cpu.cores).toBeGreaterThanOrEqual(1);
    expect(s.cpu.loadAverage).toHaveLength(3);
    expect(s.memory.rssBytes).toBeGreaterThan(1_000_000);
    // The parsing process is another process, sampled by the node's supervisor.
    await waitFor(
      async () => ((await (await fetch(`${url}/health/node-state`)).json()) as Record<string, any>).memory.parserRssBytes > 1_000_000,
      'the parsing process RSS',
    );
    expect(s.memory.heapUsedBytes).toBeGreaterThan(0);
    expect(s.memory.heapTotalBytes).toBeGreaterThanOrEqual(s.memory.heapUsedBytes);
    expect(s.memory.systemTotalBytes).toBeGreaterThanOrEqual(s.memory.systemFreeBytes);
    expect(s.activeRequests).toBeGreaterThanOrEqual(1); // this request
    expect(s.workerPool).toMatchObject({
      threads: expect.any(Number),
      queued: expect.any(Number),
      running: expect.any(Number),
      utilization: expect.any(Number),
      parserRestarts: 0,
    });
    // An idle node holds no parsing thread: the first job starts one.
    expect(s.workerPool.threads).toBe(0);
    const depth = { waiting: expect.any(Number), active: expect.any(Number), delayed: expect.any(Number) };
    expect(s.jobQueue).toMatchObject({ ...depth, lanes: { light: depth, heavy: depth } });
  });

  it('the parsing pool starts a thread for the first job that needs one, and node-state reports it', async () => {
    const token = await demoToken();
    // Past the size the parsing process parses on its main thread (inline-tasks.ts).
    const rows = Array.from({ length: Math.ceil(INLINE_MAX_BYTES / 8) + 1 }, (_, i) => `${i},${i * 2}`);
    const upload = await fetch(`${url}/api/v1/documents/upload?fileName=a.csv&csvRoute=Tabular`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'text/csv' },
      body: `a,b\n${rows.join('\n')}\n`,
    });
    expect(upload.status).toBe(202);
    const { documentId } = (await upload.json()) as { documentId: string };
    await waitFor(async () => {
      const r = await fetch(`${url}/api/v1/documents/status/batch`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ documentIds: [documentId] }),
      });
      return ((await r.json()) as { results: { statusInt: number }[] }).results[0]?.statusInt === 8;
    }, 'the job to complete');
    // The parsing process reports its pool every second.
    const state = await waitFor(async () => {
      const s = (await (await fetch(`${url}/health/node-state`)).json()) as { workerPool: { threads: number } };
      return s.workerPool.threads >= 1 ? s : null;
    }, 'a parsing thread in node-state');
    expect(state.workerPool.threads).toBeGreaterThanOrEqual(1);
  });

  it('node-state counts requests in flight', async () => {
    const token = await demoToken();
    expect(token).toBeTruthy();
    const uploads: RawConnection[] = [];
    for (let i = 0; i < 3; i++) {
      const c = new RawConnection(node.port);
      await c.connected;
      await c.write(
        `POST /api/v1/documents/upload?fileName=a.csv&csvRoute=Tabular HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: text/csv\r\nContent-Length: 100000\r\n\r\na,b\n1,2\n`,
      );
      uploads.push(c);
    }
    const s = await waitFor(async () => {
      const st = (await (await fetch(`${url}/health/node-state`)).json()) as { activeRequests: number };
      return st.activeRequests >= 4 ? st : null;
    }, 'three uploads and this request to be counted');
    expect(s.activeRequests).toBeGreaterThanOrEqual(4);
    for (const c of uploads) c.destroy();
    await waitFor(
      async () => ((await (await fetch(`${url}/health/node-state`)).json()) as { activeRequests: number }).activeRequests === 1,
      'the aborted uploads to be uncounted',
    );
  });

  for (const p of PUBLIC) {
    it(`${p}: unknown query parameter → 400 naming it; wrong method → 405; body on GET → 400`, async () => {
      const res = await fetch(`${url}${p}?verbose=1`);
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      expect(await res.json()).toMatchObject({ code: 'invalid_parameter', parameter: 'verbose' });
      const post = await fetch(`${url}${p}`, { method: 'POST' });
      expect(post.status).toBe(405);
      expect(post.headers.get('allow')).toContain('GET');
      const raw = await rawRequest(node.port, `GET ${p} HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc`);
      expect(raw.response?.status).toBe(400);
      expect(JSON.parse(raw.response!.body)).toMatchObject({ code: 'invalid_parameter', parameter: 'body' });
    });
  }

  it('unknown routes → 404 problem with code and requestId', async () => {
    const res = await fetch(`${url}/health/nothing`, { headers: { 'x-request-id': 'req-404' } });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ status: 404, code: 'not_found', requestId: 'req-404' });
  });
});

/** The problem codes an OpenAPI error response lists. */
const codesIn = (response: any): string[] => [...response.content['application/problem+json'].schema.allOf[1].properties.code.enum].sort();

/** The routes /openapi/v1.json describes (every one but the management API's). */
const parsingRoutes = () => node.http.router.routes.filter((r) => (r.api ?? 'v1') === 'v1');

describe('GET /openapi/v1.json', () => {
  let doc: any;
  beforeAll(async () => {
    const res = await fetch(`${url}/openapi/v1.json`);
    expect(res.status).toBe(200);
    doc = await res.json();
  });

  it('is a valid OpenAPI 3.1 document according to an independent validator', async () => {
    const v = new Validator();
    const r = await v.validate(structuredClone(doc));
    expect(r.errors ?? []).toEqual([]);
    expect(r.valid).toBe(true);
    expect(v.version).toBe('3.1');
    expect(doc.openapi).toMatch(/^3\.1\./);
    // The validator does catch a broken document (so the check above can fail).
    const broken = structuredClone(doc);
    broken.paths['/health/live'].get.responses = { 200: { content: {} } };
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });

  it('describes every registered endpoint, and nothing else', () => {
    // The management API has its own document (/openapi/manage-v1.json): none of it is here.
    const registered = parsingRoutes()
      .map((r) => `${r.method} ${r.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`)
      .sort();
    expect(node.http.router.routes.some((r) => r.api === 'manage')).toBe(true);
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/manage/') || p === '/openapi/manage-v1.json')).toEqual([]);
    const documented: string[] = [];
    for (const [p, ops] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
      for (const m of Object.keys(ops)) documented.push(`${m.toUpperCase()} ${p}`);
    }
    expect(documented.sort()).toEqual(registered);
    for (const p of PUBLIC) expect(registered).toContain(`GET ${p}`);
    expect(registered).toContain('POST /api/v1/documents/upload');
    expect(registered).toContain('GET /api/v1/documents/{documentId}/status');
    // Live status and cancel (docs/jobs.md).
    for (const route of ['GET /api/v1/documents/{documentId}/events', 'DELETE /api/v1/documents/{documentId}', 'POST /api/v1/documents/{documentId}/cancel'])
      expect(registered).toContain(route);
    expect(doc.paths['/api/v1/documents/{documentId}/events'].get.responses['200'].content).toHaveProperty(['text/event-stream']);
    expect(doc.paths['/api/v1/documents/{documentId}/status'].get.parameters).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'waitSeconds', in: 'query', schema: expect.objectContaining({ maximum: 60 }) })]),
    );
  });

  it('documents the same parameters that requests are validated against', async () => {
    for (const r of parsingRoutes()) {
      const op = doc.paths[r.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')][r.method.toLowerCase()];
      const inQuery = (op.parameters ?? [])
        .filter((p: any) => p.in === 'query')
        .map((p: any) => p.name)
        .sort();
      expect(inQuery, `${r.method} ${r.path}`).toEqual(Object.keys(r.query?.properties ?? {}).sort());
      const inPath = (op.parameters ?? [])
        .filter((p: any) => p.in === 'path')
        .map((p: any) => p.name)
        .sort();
      expect(inPath, `${r.method} ${r.path}`).toEqual((r.path.match(/:([A-Za-z0-9_]+)/g) ?? []).map((s) => s.slice(1)).sort());
      if (r.auth === 'bearer') expect(op.security).toEqual([{ bearerAuth: [] }]);
      else expect(op.security).toEqual([]);
    }
    // And the server really refuses what the document does not list.
    const live = await fetch(`${url}/health/live?notDocumented=1`);
    expect(live.status).toBe(400);
  });

  it('error responses are problem documents with code and requestId', () => {
    expect(doc.components.schemas.Problem.required).toEqual(expect.arrayContaining(['type', 'title', 'status', 'code', 'requestId']));
    const upload = doc.paths['/api/v1/documents/upload'].post;
    expect(upload.responses['400'].content['application/problem+json'].schema.allOf[0]).toEqual({ $ref: '#/components/schemas/Problem' });
  });

  it('lists, per operation and status, the codes of the error catalogue it answers with', () => {
    const upload = doc.paths['/api/v1/documents/upload'].post.responses;
    expect(codesIn(upload['401'])).toEqual(['invalid_token', 'missing_token', 'token_expired']);
    expect(codesIn(upload['403'])).toEqual(['app_disabled', 'domain_not_allowed', 'feature_not_in_plan']);
    expect(codesIn(upload['413'])).toEqual(['document_too_large']);
    expect(codesIn(upload['429'])).toEqual(['quota_exceeded', 'rate_limited']);
    expect(upload['429'].description).toContain(PROBLEMS.rate_limited.when);
    // A failed job's result carries the job's own failure code.
    const result = doc.paths['/api/v1/documents/{documentId}/result'].get.responses;
    expect(codesIn(result['422'])).toEqual(Object.keys(JOB_FAILURES).sort());
    expect(codesIn(result['404'])).toEqual(['document_not_found']);
    // The token endpoint answers RFC 6749 errors, from the catalogue's OAuth section.
    const token = doc.paths['/connect/token'].post.responses;
    expect(token['429'].content['application/json'].schema.properties.error.enum).toEqual(['invalid_client']);
    // Everywhere: each code is answered with the status it is listed under.
    for (const [p, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [m, op] of Object.entries(ops)) {
        for (const [status, response] of Object.entries(op.responses as Record<string, any>)) {
          if (!response.content?.['application/problem+json']) continue;
          for (const code of codesIn(response)) {
            const expected = code in JOB_FAILURES && status === '422' ? 422 : (PROBLEMS as Record<string, { status: number }>)[code]?.status;
            expect(Number(status), `${m} ${p} ${code}`).toBe(expected);
          }
        }
      }
    }
  });

  it('routes document their problem answers through codes, not by hand', () => {
    for (const r of parsingRoutes()) {
      if (r.errorReply) continue;
      const statuses = codesByStatus(problemCodesOf(r));
      const byHand = Object.keys(r.responses)
        .map(Number)
        .filter((s) => s >= 400 && !statuses.has(s));
      expect(byHand, `${r.method} ${r.path}`).toEqual([]);
    }
  });
});

describe('readiness failures', () => {
  function deps(over: Partial<HealthDeps>): HealthDeps {
    return {
      nodeId: 'n',
      region: 'r',
      roles: ['api'],
      version: '0.0.0',
      checks: [],
      activeRequests: () => 0,
      accepting: () => true,
      poolStats: () => null,
      parser: () => null,
      queueDepth: async () => ({ lanes: null, total: null }),
      openapi: () => ({}),
      ...over,
    };
  }

  it('503 problem naming each failing check (errors and timeouts), 200 checks not named', async () => {
    const h = healthRoutes(
      deps({
        checks: [
          { name: 'controlPlane', check: async () => {} },
          {
            name: 'jobStore',
            check: async () => {
              throw new Error('connect ECONNREFUSED 127.0.0.1:6379');
            },
          },
          { name: 'workerPool', check: () => new Promise<void>(() => {}) },
        ],
      }),
    );
    const s = await startTestServer(h.routes);
    try {
      const res = await fetch(`${s.url}/health/ready`);
      expect(res.status).toBe(503);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      expect(res.headers.get('retry-after')).toBe('5');
      const body = (await res.json()) as Record<string, any>;
      expect(body).toMatchObject({ status: 503, code: 'not_ready', requestId: res.headers.get('x-request-id') });
      expect(body.failing.sort()).toEqual(['jobStore', 'workerPool']);
      expect(body.detail).toContain('jobStore (connect ECONNREFUSED 127.0.0.1:6379)');
      expect(body.detail).toContain('workerPool (timed out');
      expect(body.checks.controlPlane).toBe('ok');
      // Liveness is unaffected.
      expect((await fetch(`${s.url}/health/live`)).status).toBe(200);
    } finally {
      h.stop();
      await s.close();
    }
  });

  it('503 while the node is draining, even with every check passing', async () => {
    const h = healthRoutes(deps({ checks: [{ name: 'controlPlane', check: async () => {} }], accepting: () => false }));
    const s = await startTestServer(h.routes);
    try {
      const res = await fetch(`${s.url}/health/ready`);
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ code: 'not_ready', failing: [] });
      const st = (await (await fetch(`${s.url}/health/node-state`)).json()) as Record<string, unknown>;
      expect(st).toMatchObject({ state: 'draining', acceptingTraffic: false, jobQueue: null });
      expect(st.workerPool).toBeNull();
    } finally {
      h.stop();
      await s.close();
    }
  });
});
