// A docparse cluster on 127.0.0.1 for tests: a private Redis, a private PostgreSQL and an S3
// bucket (s3rver), and `docparse serve` processes with the roles each test asks for, all
// sharing them (the distributed mode). Every node gets the same master key and the same
// public addresses (DOCPARSE_AUTH_URL, DOCPARSE_BASE_URL), as a real cluster's nodes must, so a
// token from any node is accepted by every other.
import fs from 'node:fs/promises';
import { randomBytes, randomUUID } from 'node:crypto';
import { RedisJobStore } from '../../src/jobs/redis-store.js';
import { openControlPlaneStore, type SqlControlPlaneStore } from '../../src/tenancy/sql-store.js';
import { hashSecret, generateClientSecret } from '../../src/identity/secrets.js';
import type { Role } from '../../src/config.js';
import type { NewPlan } from '../../src/tenancy/types.js';
import { planInput } from '../tenancy/fixtures.js';
import { freePort, startPostgres, startRedis, type TestServer } from './servers.js';
import { startS3, type TestS3 } from './s3.js';
import { spawnServe, tempDir, type ChildNode } from './http.js';

/** The nodes' Redis key prefix (their default). */
export const CLUSTER_PREFIX = 'docparse';

export interface ClusterApp {
  clientId: string;
  clientSecret: string;
  tenantId: string;
  appId: string;
}

export interface TestCluster {
  redis: TestServer;
  pg: TestServer;
  s3: TestS3;
  /** The control plane the nodes share (tenants, apps, the usage ledger). */
  control: SqlControlPlaneStore;
  /** The job records the nodes share. */
  store: RedisJobStore;
  /** The public address every node is told it is reached at. */
  publicUrl: string;
  /**
   * Starts a node with these roles (all by default). Start them one after the other: the
   * first applies the migrations and creates the signing key.
   */
  startNode(name: string, opts?: { roles?: Role[]; env?: Record<string, string> }): Promise<ChildNode>;
  /** An active tenant with an app whose plan admits every job a test sends at once. */
  createApp(plan?: Partial<NewPlan>, opts?: { licenseRegion?: string }): Promise<ClusterApp>;
  close(): Promise<void>;
}

export async function startCluster(opts: { publicUrl?: string } = {}): Promise<TestCluster> {
  const [redis, pg, s3] = await Promise.all([startRedis(), startPostgres(), startS3()]);
  const masterKey = randomBytes(32).toString('hex');
  const publicUrl = opts.publicUrl ?? `http://127.0.0.1:${await freePort()}`;
  const nodes: ChildNode[] = [];
  const dirs: string[] = [];
  let control: SqlControlPlaneStore | null = null;
  const store = new RedisJobStore({ url: redis.url, prefix: CLUSTER_PREFIX });

  const nodeEnv = (name: string, dataDir: string): Record<string, string> => ({
    DOCPARSE_NODE_ID: name,
    DOCPARSE_DATA_DIR: dataDir,
    DATABASE_URL: pg.url,
    REDIS_URL: redis.url,
    DOCPARSE_MASTER_KEY: masterKey,
    DOCPARSE_AUTH_URL: publicUrl,
    DOCPARSE_BASE_URL: publicUrl,
    DOCPARSE_S3_BUCKET: s3.bucket,
    DOCPARSE_S3_ENDPOINT: s3.endpoint,
    DOCPARSE_S3_ACCESS_KEY_ID: s3.accessKeyId,
    DOCPARSE_S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
    DOCPARSE_S3_FORCE_PATH_STYLE: 'true',
    DOCPARSE_WORKER_THREADS: '1',
    DOCPARSE_RETENTION_SECONDS: '3600',
    LOG_LEVEL: 'warn',
  });

  const cluster: TestCluster = {
    redis,
    pg,
    s3,
    get control() {
      if (!control) throw new Error('start a node first: it creates the control plane');
      return control;
    },
    store,
    publicUrl,
    async startNode(name, o = {}) {
      const dir = await tempDir(`dp-cluster-${name}-`);
      dirs.push(dir);
      const args = (o.roles ?? []).flatMap((r) => ['--role', r]);
      const node = await spawnServe({ ...nodeEnv(name, dir), ...o.env }, args);
      nodes.push(node);
      control ??= await openControlPlaneStore({ databaseUrl: pg.url, dataDir: dir });
      return node;
    },
    async createApp(plan = {}, opts = {}) {
      const c = cluster.control;
      const tenant = await c.createTenant({ name: `cluster-${randomUUID().slice(0, 6)}` });
      await c.setTenantState(tenant.id, 'Active');
      const p = await c.createPlan(
        planInput({ maxConcurrentJobs: 1000, maxBytesPerSecond: 1024 ** 3, maxFileSizeBytes: 1024 ** 3, maxDocumentUnitsPerMonth: 1_000_000, ...plan }),
      );
      const clientId = `c-${randomUUID()}`;
      const clientSecret = generateClientSecret();
      const app = await c.createApp({
        tenantId: tenant.id,
        name: 'cluster',
        licenseRegion: opts.licenseRegion ?? 'local',
        dbCode: 'db1',
        clientId,
        secretHash: await hashSecret(clientSecret),
        planId: p.id,
      });
      return { clientId, clientSecret, tenantId: tenant.id, appId: app.id };
    },
    async close() {
      for (const n of nodes) n.kill();
      await Promise.allSettled(nodes.map((n) => n.exited));
      await Promise.allSettled([store.close(), control?.close()]);
      await Promise.allSettled([redis.close(), pg.close(), s3.close(), ...dirs.map((d) => fs.rm(d, { recursive: true, force: true }))]);
    },
  };
  return cluster;
}

/** Charges per document in the usage ledger of one app (a document charged twice counts 2). */
export async function chargesPerDocument(control: SqlControlPlaneStore, appId: string): Promise<Map<string, number>> {
  const perDocument = new Map<string, number>();
  for (const u of await control.listUsage({ appId })) perDocument.set(u.documentId, (perDocument.get(u.documentId) ?? 0) + 1);
  return perDocument;
}

/** A CSV of `rows` rows (a few hundred milliseconds of parsing per 40,000). */
export function csvOf(seed: number, rows: number): string {
  const lines = ['id,name,value,when'];
  for (let i = 0; i < rows; i++) lines.push(`${i},n${seed}-${i},${(i * 1.5 + seed).toFixed(2)},2024-01-${String((i % 28) + 1).padStart(2, '0')}`);
  return lines.join('\n') + '\n';
}

/** Uploads a CSV with a chosen documentId to `url`; returns the response. */
export function uploadCsv(url: string, token: string, documentId: string, body: string): Promise<Response> {
  return fetch(`${url}/api/v1/documents/upload?${new URLSearchParams({ fileName: `${documentId}.csv`, csvRoute: 'Tabular', documentId })}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body,
  });
}
