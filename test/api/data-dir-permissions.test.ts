// What the embedded node writes under its data directory — job records, uploads, artifacts —
// is readable by the service's own user only: files 0600, folders 0700.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, destroyTestEnv, getToken, startTestNode, waitFor, type TestEnv, type TestNode } from '../helpers/node.js';

/** Every entry below dir with its permission bits, e.g. ['jobs/ab….json', 0o600]. */
async function modesUnder(root: string): Promise<[string, number, 'file' | 'dir'][]> {
  const out: [string, number, 'file' | 'dir'][] = [];
  async function walk(dir: string): Promise<void> {
    for (const e of await fs.readdir(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      const mode = (await fs.stat(p)).mode & 0o777;
      out.push([path.relative(root, p), mode, e.isDirectory() ? 'dir' : 'file']);
      if (e.isDirectory()) await walk(p);
    }
  }
  await walk(root);
  return out;
}

describe('data directory permissions (embedded)', () => {
  let env: TestEnv;
  let n: TestNode;
  const oldUmask = process.umask(0o022); // the usual default, whatever the test runner has

  beforeAll(async () => {
    env = await createTestEnv('embedded');
    // Folders an earlier version made with the default mode are tightened too.
    for (const dir of ['jobs', 'blobs']) await fs.mkdir(path.join(env.dataDir, dir), { mode: 0o755 });
    n = await startTestNode(env);
  });
  afterAll(async () => {
    await n?.close();
    if (env) await destroyTestEnv(env);
    process.umask(oldUmask);
  });

  it('job records, uploads, session uploads and artifacts are 0600 in 0700 folders', async () => {
    const token = await getToken(n.url, 'demo-client', 'demo-secret-0123456789');
    const auth = { authorization: `Bearer ${token}` };
    const direct = await fetch(`${n.url}/api/v1/documents/upload?fileName=p.csv&csvRoute=Tabular&documentId=perm-1`, {
      method: 'POST',
      headers: auth,
      body: 'a,b\n1,2\n',
    });
    expect(direct.status).toBe(202);
    const req = await fetch(`${n.url}/api/v1/documents/upload-request`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ fileName: 'q.csv', sizeBytes: 8, documentId: 'perm-2' }),
    });
    const session = (await req.json()) as { uploadUrl: string; uploadId: string };
    const u = new URL(session.uploadUrl);
    expect((await fetch(`${n.url}${u.pathname}${u.search}`, { method: 'PUT', body: 'a,b\n3,4\n' })).status).toBe(204);
    const done = await fetch(`${n.url}/api/v1/documents/upload-complete`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ uploadId: session.uploadId, csvRoute: 'Tabular' }),
    });
    expect(done.status).toBe(202);
    for (const id of ['perm-1', 'perm-2']) {
      await waitFor(
        async () => ((await (await fetch(`${n.url}/api/v1/documents/${id}/status`, { headers: auth })).json()) as { statusInt: number }).statusInt === 8,
        id,
      );
    }

    const entries = [
      ...(await modesUnder(path.join(env.dataDir, 'jobs'))).map(([p, m, k]) => [`jobs/${p}`, m, k] as const),
      ...(await modesUnder(path.join(env.dataDir, 'blobs'))).map(([p, m, k]) => [`blobs/${p}`, m, k] as const),
    ];
    expect(entries.filter(([p]) => /\/artifact(\.\w+)?\.json$/.test(p))).toHaveLength(2);
    expect(entries.filter(([p]) => /\/upload[^/]*$/.test(p))).toHaveLength(2);
    for (const [p, mode, kind] of entries) expect([p, mode.toString(8)]).toEqual([p, kind === 'dir' ? '700' : '600']);
    for (const dir of ['jobs', 'blobs']) expect(((await fs.stat(path.join(env.dataDir, dir))).mode & 0o777).toString(8)).toBe('700');
    expect(((await fs.stat(path.join(env.dataDir, 'master.key'))).mode & 0o777).toString(8)).toBe('600');
  });
});
