// Poison pills are retired: the attempt is recorded before the parse starts, so a job whose
// node dies under it (kill -9, the kernel's OOM killer) counts that attempt, and one that has
// taken its host down DOCPARSE_MAX_ATTEMPTS times is failed with a reason on the next start,
// never resumed into another crash. Both job backends, with real `docparse serve` processes.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Redis } from 'ioredis';
import { spawnServe, tempDir, waitFor, type ChildNode } from '../helpers/http.js';
import { createTempDatabase, type TempDatabase } from '../helpers/pg.js';
import { TEST_REDIS_URL } from '../helpers/node.js';

vi.setConfig({ testTimeout: 240_000, hookTimeout: 120_000 });

const CLIENT_ID = 'pill-demo';
const CLIENT_SECRET = 'pill-demo-secret-0123456789';
let csv: Buffer;
/** The CSV parses for several seconds: this far in, the attempt is on disk and the parse runs. */
const PARSE_UNDER_WAY_MS = 1500;

beforeAll(() => {
  // Parses for several seconds on one thread: long enough to kill the node mid-parse.
  csv = Buffer.from('id,name,value\n' + Array.from({ length: 3_000_000 }, (_, i) => `${i},n${i},${i / 7}`).join('\n'));
});

interface Status {
  statusInt: number;
  attempts: number;
  error?: { code: string; message: string };
}

class Cluster {
  node: ChildNode | null = null;
  constructor(private readonly env: Record<string, string>) {}

  async start(): Promise<ChildNode> {
    this.node = await spawnServe({
      DOCPARSE_WORKER_THREADS: '1',
      DOCPARSE_DEMO_CLIENT_ID: CLIENT_ID,
      DOCPARSE_DEMO_CLIENT_SECRET: CLIENT_SECRET,
      DOCPARSE_SEED_DEMO: 'true',
      LOG_LEVEL: 'warn',
      ...this.env,
    });
    return this.node;
  }

  async token(): Promise<string> {
    const res = await fetch(`${this.node!.url}/connect/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'Service.API', client_id: CLIENT_ID, client_secret: CLIENT_SECRET }),
    });
    return ((await res.json()) as { access_token: string }).access_token;
  }

  async status(token: string, id: string): Promise<Status> {
    return (await (await fetch(`${this.node!.url}/api/v1/documents/${id}/status`, { headers: { authorization: `Bearer ${token}` } })).json()) as Status;
  }

  /**
   * kill -9 of the node (its parsing process follows it: the IPC channel closes), `afterMs`
   * after the job was seen processing: the status answers from memory as soon as the state
   * changes, the record reaches the disk a moment later, and the parse starts only then.
   */
  async crash(afterMs = 0): Promise<void> {
    await new Promise((r) => setTimeout(r, afterMs));
    this.node!.kill();
    await this.node!.exited;
  }
}

async function uploadAndCrashMidParse(c: Cluster, id: string): Promise<void> {
  const t = await c.token();
  const r = await fetch(`${c.node!.url}/api/v1/documents/upload?fileName=${id}.csv&csvRoute=Tabular&documentId=${id}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t}` },
    body: csv,
  });
  expect(r.status).toBe(202);
  await waitFor(async () => (await c.status(t, id)).statusInt === 3, 'the parse to start', 60_000);
  await c.crash(PARSE_UNDER_WAY_MS);
}

describe('poison pills', () => {
  let dataDir: string;
  let db: TempDatabase | null = null;
  let cluster: Cluster;
  beforeAll(async () => {
    dataDir = await tempDir('dp-pill-');
  });
  afterAll(async () => {
    cluster?.node?.kill();
    await db?.drop();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('embedded: a job whose node died under it twice (DOCPARSE_MAX_ATTEMPTS=2) fails on the next start instead of running again', async () => {
    cluster = new Cluster({ DOCPARSE_DATA_DIR: path.join(dataDir, 'embedded'), DOCPARSE_MAX_ATTEMPTS: '2' });
    await cluster.start();
    await uploadAndCrashMidParse(cluster, 'pill');

    // The first restart resumes it: one attempt is left.
    await cluster.start();
    let t = await cluster.token();
    await waitFor(
      async () => {
        const s = await cluster.status(t, 'pill');
        return s.statusInt === 3 && s.attempts === 2;
      },
      'the second attempt to start',
      60_000,
    );
    await cluster.crash(PARSE_UNDER_WAY_MS);

    // The second restart retires it before any parse starts.
    await cluster.start();
    t = await cluster.token();
    const s = await waitFor(
      async () => {
        const st = await cluster.status(t, 'pill');
        return st.statusInt === 9 ? st : null;
      },
      'the job to be retired',
      30_000,
    );
    expect(s.attempts).toBe(2);
    expect(s.error).toMatchObject({
      code: 'extraction_failed',
      message: 'Parsing this document stopped the parsing process 2 times; it is not retried again.',
    });
    // The node is healthy and keeps serving other work.
    const r = await fetch(`${cluster.node!.url}/api/v1/documents/upload?fileName=ok.csv&csvRoute=Tabular&documentId=ok`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t}` },
      body: 'a,b\n1,2\n',
    });
    expect(r.status).toBe(202);
    await waitFor(async () => (await cluster.status(t, 'ok')).statusInt === 8, 'the next job', 30_000);
    await cluster.crash();
  });

  it('redis: a job whose node died under it (DOCPARSE_MAX_ATTEMPTS=1) is failed when its delivery is taken over, not run again', async () => {
    db = await createTempDatabase();
    // A database index of its own on the shared Redis: the spawned node uses the default prefix.
    const redisUrl = `${TEST_REDIS_URL.replace(/\/\d*$/, '')}/9`;
    const redis = new Redis(redisUrl);
    try {
      for (const k of await redis.keys('docparse:*')) await redis.del(k);
      cluster = new Cluster({
        DOCPARSE_DATA_DIR: path.join(dataDir, 'redis'),
        DOCPARSE_MAX_ATTEMPTS: '1',
        DATABASE_URL: db.url,
        REDIS_URL: redisUrl,
        DOCPARSE_MASTER_KEY: 'k'.repeat(40),
      });
      await cluster.start();
      await uploadAndCrashMidParse(cluster, 'pill-r');
      await cluster.start();
      const t = await cluster.token();
      // The dead node's delivery is taken over once its lock expires.
      const s = await waitFor(
        async () => {
          const st = await cluster.status(t, 'pill-r');
          return st.statusInt === 9 ? st : null;
        },
        'the job to be retired',
        120_000,
      );
      expect(s.attempts).toBe(1);
      expect(s.error?.message).toBe('Parsing this document stopped the parsing process once; it is not retried again.');
      await cluster.crash();
    } finally {
      for (const k of await redis.keys('docparse:*')) await redis.del(k);
      redis.disconnect();
    }
  });
});
