// Shared by the outage tests: a node in this process on private Redis and PostgreSQL servers
// (test/helpers/servers.ts), the requests a client makes, each timed and bounded by a
// client-side timeout (an answer must come: a hang fails the test), and the 503 checks.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { startTestNode, waitFor, type TestEnv, type TestNode } from '../helpers/node.js';
import { startPostgres, startRedis, type TestServer } from '../helpers/servers.js';

export const DEMO = { clientId: 'outage-demo', clientSecret: 'outage-demo-secret-0123456789' };

/** A request that gets no answer within this long counts as a hang. */
export const CLIENT_TIMEOUT_MS = 5000;

export interface OutageNode extends TestNode {
  dataDir: string;
}

/** A full node (every role) on the given Redis and PostgreSQL, with the demo app seeded. */
export async function startOutageNode(redisUrl: string, databaseUrl: string): Promise<OutageNode> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'dp-outage-'));
  const env: TestEnv = {
    mode: 'distributed',
    dataDir,
    db: null,
    redisPrefix: `dp-outage-${randomUUID().slice(0, 8)}`,
    env: {
      PORT: '0',
      DOCPARSE_DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      DOCPARSE_WORKER_THREADS: '1',
      DOCPARSE_SEED_DEMO: 'true',
      DOCPARSE_DEMO_CLIENT_ID: DEMO.clientId,
      DOCPARSE_DEMO_CLIENT_SECRET: DEMO.clientSecret,
      DOCPARSE_RETENTION_SECONDS: '3600',
      DATABASE_URL: databaseUrl,
      REDIS_URL: redisUrl,
      DOCPARSE_MASTER_KEY: randomBytes(32).toString('hex'),
    },
  };
  const n = await startTestNode(env);
  return {
    ...n,
    dataDir,
    close: async () => {
      await n.close();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

export interface Timed {
  status: number;
  headers: Headers;
  /** Parsed JSON body, or the text when it is not JSON. */
  body: any;
  ms: number;
}

/** fetch with a client-side timeout; the body is read and parsed. */
export async function timed(url: string, init: RequestInit = {}): Promise<Timed> {
  const t0 = performance.now();
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS) });
  const text = await res.text();
  const ms = Math.round((performance.now() - t0) * 10) / 10;
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.status, headers: res.headers, body, ms };
}

export const CSV = 'city,lat,lon,pop\nParis,48.8566,2.3522,2102650\nLyon,45.764,4.8357,522250\n';

/** The requests a client makes, against one node. */
export function client(url: string) {
  let token = '';
  const auth = () => ({ authorization: `Bearer ${token}` });
  return {
    setToken: (t: string) => (token = t),
    live: () => timed(`${url}/health/live`),
    ready: () => timed(`${url}/health/ready`),
    openapi: () => timed(`${url}/openapi/v1.json`),
    token: () =>
      timed(`${url}/connect/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'Service.API', client_id: DEMO.clientId, client_secret: DEMO.clientSecret }),
      }),
    upload: (documentId: string, body = CSV) =>
      timed(`${url}/api/v1/documents/upload?${new URLSearchParams({ fileName: `${documentId}.csv`, csvRoute: 'Tabular', documentId })}`, {
        method: 'POST',
        headers: auth(),
        body,
      }),
    status: (documentId: string) => timed(`${url}/api/v1/documents/${encodeURIComponent(documentId)}/status`, { headers: auth() }),
    batch: (documentIds: string[]) =>
      timed(`${url}/api/v1/documents/status/batch`, {
        method: 'POST',
        headers: { ...auth(), 'content-type': 'application/json' },
        body: JSON.stringify({ documentIds }),
      }),
    result: (documentId: string) => timed(`${url}/api/v1/documents/${encodeURIComponent(documentId)}/result`, { headers: auth() }),
  };
}
export type Client = ReturnType<typeof client>;

/** Gets a token and keeps it on the client. */
export async function signIn(c: Client): Promise<void> {
  const t = await c.token();
  if (t.status !== 200) throw new Error(`token request failed: ${t.status} ${JSON.stringify(t.body)}`);
  c.setToken(t.body.access_token);
}

/** Uploads a CSV and waits for it to complete. */
export async function uploadAndComplete(c: Client, documentId: string): Promise<void> {
  const up = await c.upload(documentId);
  expect(up.status, JSON.stringify(up.body)).toBe(202);
  await waitFor(async () => (await c.status(documentId)).body?.statusInt === 8, `${documentId} to complete`, 30_000);
}

/** A 503 problem naming the dependency, with Retry-After. */
export function expectUnavailableProblem(r: Timed, dependency: 'Redis' | 'PostgreSQL'): void {
  expect(r.status, JSON.stringify(r.body)).toBe(503);
  expect(r.headers.get('content-type')).toBe('application/problem+json');
  expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(r.body).toMatchObject({ status: 503, code: 'service_unavailable' });
  expect(r.body.detail).toContain(`(${dependency}) is unreachable`);
}

/** The token endpoint's RFC 6749-style 503, naming the dependency, with Retry-After. */
export function expectUnavailableOAuth(r: Timed, dependency: 'Redis' | 'PostgreSQL'): void {
  expect(r.status, JSON.stringify(r.body)).toBe(503);
  expect(r.headers.get('content-type')).toMatch(/^application\/json/);
  expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(r.body.error).toBe('temporarily_unavailable');
  expect(r.body.error_description).toContain(`(${dependency}) is unreachable`);
}

/** /health/ready: 503 whose `failing` names the check and `unreachable` the dependency. */
export function expectNotReady(r: Timed, check: string, dependency: 'Redis' | 'PostgreSQL'): void {
  expect(r.status, JSON.stringify(r.body)).toBe(503);
  expect(r.body.failing).toContain(check);
  expect(r.body.unreachable).toContain(dependency);
  expect(r.body.checks[check]).toMatch(new RegExp(`^${dependency} unreachable`));
}

/** Polls /health/ready until 200; returns how long it took from `since` (performance.now()). */
export async function readyAgain(c: Client, since: number, timeoutMs = 30_000): Promise<number> {
  await waitFor(async () => (await c.ready().catch(() => null))?.status === 200, 'the node to be ready again', timeoutMs);
  return Math.round(performance.now() - since);
}

/** Timings printed at the end of a test file (no assertions on them: machines differ). */
export class Timings {
  private readonly rows: [string, number][] = [];
  add(what: string, ms: number): void {
    this.rows.push([what, ms]);
  }
  print(title: string): void {
    const lines = [`\n${title}`, '| measurement | ms |', '|:---|---:|', ...this.rows.map(([w, ms]) => `| ${w} | ${ms} |`)];
    console.log(lines.join('\n'));
  }
}

export interface OutageRig {
  redis: TestServer;
  pg: TestServer;
  node: OutageNode;
  /** Signed in, the node ready. */
  c: Client;
  close(): Promise<void>;
}

/** Private Redis and PostgreSQL, a node on them, and a signed-in client: each outage test's set-up. */
export async function startOutageRig(opts: { persistentRedis?: boolean } = {}): Promise<OutageRig> {
  const [redis, pg] = await Promise.all([startRedis({ persistent: opts.persistentRedis ?? false }), startPostgres()]);
  const node = await startOutageNode(redis.url, pg.url);
  const c = client(node.url);
  await waitFor(async () => (await c.ready()).status === 200, 'the node to be ready');
  await signIn(c);
  return {
    redis,
    pg,
    node,
    c,
    close: async () => {
      await node.close();
      await Promise.all([redis.close(), pg.close()]);
    },
  };
}
