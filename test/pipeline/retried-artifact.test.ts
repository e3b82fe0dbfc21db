// A job's artifact is written in place in its folder of the disk store (no move after the
// parse), under a name of the run's own. A node killed with -9 mid-parse leaves its run's
// artifact half written there; the retry on the next start writes its own, and the result the
// client gets is that whole artifact, never the half one. A real `docparse serve`, embedded.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { spawnServe, tempDir, waitFor, type ChildNode } from '../helpers/http.js';

vi.setConfig({ testTimeout: 240_000, hookTimeout: 120_000 });

const CLIENT_ID = 'retry-demo';
const CLIENT_SECRET = 'retry-demo-secret-0123456789';
const ROWS = 3_000_000;

describe('the artifact of a job retried after its node died mid-parse', () => {
  let dataDir: string;
  let node: ChildNode | null = null;
  let csv: Buffer;
  beforeAll(async () => {
    dataDir = await tempDir('dp-retried-');
    csv = Buffer.from('id,name,value\n' + Array.from({ length: ROWS }, (_, i) => `${i},n${i},${i / 7}`).join('\n'));
  });
  afterAll(async () => {
    node?.kill();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  const start = async () =>
    (node = await spawnServe({
      DOCPARSE_DATA_DIR: dataDir,
      DOCPARSE_WORKER_THREADS: '1',
      DOCPARSE_DEMO_CLIENT_ID: CLIENT_ID,
      DOCPARSE_DEMO_CLIENT_SECRET: CLIENT_SECRET,
      DOCPARSE_SEED_DEMO: 'true',
      LOG_LEVEL: 'warn',
    }));
  const token = async () => {
    const res = await fetch(`${node!.url}/connect/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'Service.API', client_id: CLIENT_ID, client_secret: CLIENT_SECRET }),
    });
    return ((await res.json()) as { access_token: string }).access_token;
  };
  const status = async (t: string) =>
    (await (await fetch(`${node!.url}/api/v1/documents/big/status`, { headers: { authorization: `Bearer ${t}` } })).json()) as {
      statusInt: number;
      attempts: number;
    };
  /** The artifact files in the job's folder (the only job: its upload's folder). */
  const artifactsOnDisk = async () => {
    const files = (await fs.readdir(path.join(dataDir, 'blobs'), { recursive: true })).map(String);
    return files.filter((f) => /\/artifact\.\w+\.json$/.test(f));
  };

  it('is whole: the retry writes its own, and the half one of the killed run is never served', async () => {
    await start();
    let t = await token();
    const up = await fetch(`${node!.url}/api/v1/documents/upload?fileName=big.csv&csvRoute=Tabular&documentId=big`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t}` },
      body: csv,
    });
    expect(up.status).toBe(202);
    await waitFor(async () => (await status(t)).statusInt === 3, 'the parse to start', 60_000);
    // Killed as soon as the run's artifact holds its first bytes: the parse is far from done.
    await waitFor(
      async () => {
        const [file] = await artifactsOnDisk();
        return file !== undefined && (await fs.stat(path.join(dataDir, 'blobs', file))).size > 0;
      },
      'the artifact to be under way',
      60_000,
    );
    node!.kill();
    await node!.exited;
    // The killed run's artifact, cut short where the parse was.
    const killed = await artifactsOnDisk();
    expect(killed).toHaveLength(1);
    const cutAt = (await fs.stat(path.join(dataDir, 'blobs', killed[0]))).size;
    expect(cutAt).toBeGreaterThan(0);

    await start();
    t = await token();
    const done = await waitFor(
      async () => {
        const s = await status(t);
        return s.statusInt === 8 || s.statusInt === 9 ? s : null;
      },
      'the retry to finish',
      180_000,
    );
    expect(done).toMatchObject({ statusInt: 8, attempts: 2 });
    const res = await fetch(`${node!.url}/api/v1/documents/big/result`, { headers: { authorization: `Bearer ${t}` } });
    expect(res.status).toBe(200);
    const artifact = JSON.parse(await res.text()) as { content: { rows: unknown[] } };
    expect(artifact.content.rows).toHaveLength(ROWS);
    // The retry's artifact is another file than the killed run's, private to the service.
    const after = await artifactsOnDisk();
    expect(after).toHaveLength(2);
    expect(after).toEqual(expect.arrayContaining(killed));
    expect((await fs.stat(path.join(dataDir, 'blobs', killed[0]))).size).toBe(cutAt);
    for (const f of after) expect(((await fs.stat(path.join(dataDir, 'blobs', f))).mode & 0o777).toString(8)).toBe('600');
  });
});
