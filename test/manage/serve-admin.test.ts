// Issue 17 item 1: `docparse admin` next to a running `docparse serve` on the embedded
// default. Real processes only: the node (dist/bin.js serve) holds its data dir's lock, the
// CLI (dist/bin.js admin) sends its commands through the node, and two processes never open
// one PGlite directory.
import fs from 'node:fs/promises';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { REPO_ROOT, cliEntry, freePort, spawnServe, tempDir, waitFor, type ChildNode } from '../helpers/http.js';
import { cliJson, credentialFile, deadPid, exists, lockFile, readLock, requestToken, runCli, writeLock } from './cli.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 180_000 });

const DEMO = { clientId: 'lock-demo', clientSecret: 'lock-demo-secret-0123456789' };
const dirs: string[] = [];
const nodes: ChildNode[] = [];

async function newDataDir(): Promise<string> {
  const d = await tempDir('dp-manage-');
  dirs.push(d);
  return d;
}

async function serve(dataDir: string): Promise<ChildNode> {
  const n = await spawnServe({
    DOCPARSE_DATA_DIR: dataDir,
    DOCPARSE_WORKER_THREADS: '1',
    DOCPARSE_DEMO_CLIENT_ID: DEMO.clientId,
    DOCPARSE_DEMO_CLIENT_SECRET: DEMO.clientSecret,
    DOCPARSE_REGIONS: 'local,eu-west-1',
    LOG_LEVEL: 'warn',
  });
  nodes.push(n);
  return n;
}

/** SIGTERM and wait: the graceful stop. */
async function stop(n: ChildNode): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  n.child.kill('SIGTERM');
  return n.exited;
}

afterAll(async () => {
  for (const n of nodes) n.kill();
  await Promise.all(nodes.map((n) => n.exited));
  await Promise.all(dirs.map((d) => fs.rm(d, { recursive: true, force: true })));
});

describe('docparse admin while docparse serve runs (embedded default)', () => {
  let dataDir: string;
  let node: ChildNode;
  let env: Record<string, string>;
  beforeAll(async () => {
    dataDir = await newDataDir();
    env = { DOCPARSE_DATA_DIR: dataDir };
    node = await serve(dataDir);
  });

  it('a new app gets a token from the running node at once; disable refuses the next one; both survive a restart', async () => {
    const tenant = await cliJson(env, 'tenant', 'create', '--name', 'Acme');
    expect((await cliJson(env, 'tenant', 'activate', tenant.id)).state).toBe('Active');
    const plan = await cliJson(env, 'plan', 'create', '--name', 'pro', '--units', '5000', '--advanced');
    const created = await cliJson(env, 'app', 'create', '--tenant', tenant.id, '--name', 'crm', '--region', 'eu-west-1', '--db-code', 'eu1', '--plan', 'pro');
    expect(created.app.planId).toBe(plan.id);

    const granted = await requestToken(node.url, created.clientId, created.clientSecret);
    expect(granted.status, JSON.stringify(granted.body)).toBe(200);

    const disabled = await runCli(env, ['app', 'disable', created.app.id]);
    expect(disabled.code, disabled.stderr).toBe(0);
    expect(disabled.stdout).toMatch(/App disabled/);
    const refused = await requestToken(node.url, created.clientId, created.clientSecret);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ error: 'unauthorized_client', error_description: expect.stringMatching(/disabled/) });

    // The node stops gracefully, and frees its lock and credential.
    expect(await stop(node)).toEqual({ code: 0, signal: null });
    expect(await exists(lockFile(dataDir))).toBe(false);
    expect(await exists(credentialFile(dataDir))).toBe(false);

    // Nothing was overwritten at stop: the app, the plan and the disable are all still there.
    node = await serve(dataDir);
    const apps = await cliJson<any[]>(env, 'app', 'list', '--tenant', tenant.id);
    expect(apps).toEqual([expect.objectContaining({ id: created.app.id, enabled: false, planId: plan.id })]);
    expect((await requestToken(node.url, created.clientId, created.clientSecret)).status).toBe(400);
    expect((await runCli(env, ['app', 'enable', created.app.id])).code).toBe(0);
    expect((await requestToken(node.url, created.clientId, created.clientSecret)).status).toBe(200);
  });

  it('prints exactly what the command printed, with its exit code (human output, usage errors, keys)', async () => {
    const bad = await runCli(env, ['tenant', 'activate', '7a1f0000-0000-4000-8000-000000000000']);
    expect(bad.code).toBe(1);
    expect(bad.stdout.trim()).toBe('error: tenant 7a1f0000-0000-4000-8000-000000000000 not found');
    const usage = await runCli(env, ['app', 'create', '--nope']);
    expect(usage.code).toBe(2);
    expect(usage.stdout).toMatch(/usage: docparse admin app create/);
    const keysUsage = await runCli(env, ['keys', 'shuffle']);
    expect(keysUsage).toMatchObject({ code: 2, stdout: '', stderr: 'usage: docparse admin keys rotate|list\n' });

    // keys rotate runs on the node's own key ring: it signs with the new key at once.
    const rotated = await cliJson(env, 'keys', 'rotate');
    const token = await requestToken(node.url, DEMO.clientId, DEMO.clientSecret);
    expect(token.status).toBe(200);
    const kid = JSON.parse(Buffer.from(token.body.access_token.split('.')[0], 'base64url').toString()).kid;
    expect(kid).toBe(rotated.kid);
  });

  it('a second docparse serve on the same data dir refuses to start, naming the pid and the data dir', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [cliEntry(), 'serve'], {
      cwd: REPO_ROOT,
      env: { ...process.env, DATABASE_URL: '', REDIS_URL: '', PORT: String(port), DOCPARSE_DATA_DIR: dataDir, DOCPARSE_WORKER_THREADS: '1', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    const code = await new Promise<number | null>((r) => child.once('close', (c) => r(c)));
    expect(code).not.toBe(0);
    expect(code).not.toBeNull();
    expect(stderr).toContain(`pid ${node.child.pid}`);
    expect(stderr).toContain(`data dir ${dataDir}`);
    expect(stderr).toMatch(/in use by docparse serve/);
    // The running node is untouched.
    expect((await readLock(dataDir)).pid).toBe(node.child.pid);
    expect((await requestToken(node.url, DEMO.clientId, DEMO.clientSecret)).status).toBe(200);
  });

  it('the lock names the pid, the port it serves on and its start time; the credential file is 0600', async () => {
    const lock = await readLock(dataDir);
    expect(lock).toMatchObject({
      pid: node.child.pid,
      role: 'node',
      host: '127.0.0.1',
      port: node.port,
      manageUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
    });
    expect(Date.parse(lock.startedAt)).toBeLessThanOrEqual(Date.now());
    expect((await fs.stat(credentialFile(dataDir))).mode & 0o777).toBe(0o600);
    expect((await fs.stat(lockFile(dataDir))).mode & 0o777).toBe(0o600);
  });

  it('the loopback listener is the management API, opened by the operator credential only; the public port refuses that credential', async () => {
    const { manageUrl } = await readLock(dataDir);
    const credential = (await fs.readFile(credentialFile(dataDir), 'utf8')).trim();
    const appToken = (await requestToken(node.url, DEMO.clientId, DEMO.clientSecret)).body.access_token as string;
    const create = (base: string, headers: Record<string, string>, b = JSON.stringify({ name: 'Through loopback' })) =>
      fetch(`${base}/manage/v1/tenants`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: b });

    for (const authorization of [
      undefined,
      `Bearer ${credential}x`,
      `Bearer ${appToken}`,
      `Basic ${Buffer.from(`op:${credential}`).toString('base64')}`,
      credential,
    ]) {
      const res = await create(manageUrl, authorization === undefined ? {} : { authorization });
      expect(res.status, String(authorization)).toBe(401);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="docparse-manage"');
      expect(await res.json()).toMatchObject({ status: 401, code: 'invalid_operator_credential' });
    }
    // Checked before the body: a bad body without the credential is a 401 too.
    expect((await create(manageUrl, {}, 'not json')).status).toBe(401);

    const ok = await create(manageUrl, { authorization: `Bearer ${credential}` });
    expect(ok.status).toBe(201);
    const tenant = (await ok.json()) as { id: string; name: string };
    expect(tenant.name).toBe('Through loopback');
    // The API's own validation, audit and answers: a bad body is the API's 400.
    expect((await create(manageUrl, { authorization: `Bearer ${credential}` }, JSON.stringify({ nom: 'x' }))).status).toBe(400);
    const audit = (await (
      await fetch(`${manageUrl}/manage/v1/audit?tenantId=${tenant.id}`, { headers: { authorization: `Bearer ${credential}` } })
    ).json()) as {
      items: { action: string; tenantId: string; actor: { id: string } }[];
    };
    expect(audit.items).toEqual([
      expect.objectContaining({ action: 'tenant.create', tenantId: tenant.id, actor: expect.objectContaining({ id: 'local-operator' }) }),
    ]);

    // The credential opens nothing on the public port, and the loopback listener is in no public OpenAPI document.
    const pub = await fetch(`${node.url}/manage/v1/tenants`, { headers: { authorization: `Bearer ${credential}` } });
    expect(pub.status).toBe(401);
    expect(await pub.json()).toMatchObject({ code: 'invalid_credentials' });
    expect((await create(node.url, { authorization: `Bearer ${credential}` })).status).toBe(401);
    expect((await fetch(`${node.url}/manage/v1/local/sign-in-link`, { method: 'POST', headers: { authorization: `Bearer ${credential}` } })).status).toBe(404);
    const doc = (await (await fetch(`${node.url}/openapi/v1.json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/manage'))).toEqual([]);
    const manageDoc = (await (await fetch(`${node.url}/openapi/manage-v1.json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(manageDoc.paths).filter((p) => p.includes('/local/'))).toEqual([]);
  });

  it('sign-in-link prints a new one-time link that signs the operator in once', async () => {
    const r = await runCli(env, ['sign-in-link']);
    expect(r.code, r.stderr).toBe(0);
    const url = /(http:\/\/\S+\/dashboard\/auth\/local\?token=\S+)/.exec(r.stdout)![1];
    expect(r.stdout).toMatch(/within 15 minutes/);
    // Its confirm page answers; the button's POST spends it (the dashboard's own tests follow it in a browser).
    const page = await fetch(url.replace(/^http:\/\/[^/]+/, node.url));
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/<form/);
    const json = await cliJson<{ url: string; expiresInSeconds: number }>(env, 'sign-in-link');
    expect(json.url).not.toBe(url);
    expect(json.expiresInSeconds).toBe(900);
  });

  it('a node killed with SIGKILL leaves a stale lock that the next start takes over', async () => {
    const killedPid = node.child.pid;
    node.kill();
    await node.exited;
    expect((await readLock(dataDir)).pid).toBe(killedPid);
    node = await serve(dataDir);
    expect((await readLock(dataDir)).pid).toBe(node.child.pid);
    expect((await cliJson<any[]>(env, 'tenant', 'list')).map((t) => t.name)).toContain('Acme');
  });
});

describe('stale locks', () => {
  it('a lock naming a pid that no longer runs is taken over by serve', async () => {
    const dataDir = await newDataDir();
    await writeLock(dataDir, { pid: await deadPid(), manageUrl: 'http://127.0.0.1:1' });
    const node = await serve(dataDir);
    // /health/live answers once the port listens; the lock is given the port just after.
    await waitFor(async () => (await readLock(dataDir)).port === node.port, "the lock to name the node's port");
    expect(await readLock(dataDir)).toMatchObject({ pid: node.child.pid, port: node.port });
    expect(await stop(node)).toEqual({ code: 0, signal: null });
    expect(await exists(lockFile(dataDir))).toBe(false);
  });

  it('a lock naming a pid that no longer runs is taken over by the CLI, which frees it afterwards', async () => {
    const dataDir = await newDataDir();
    await writeLock(dataDir, { pid: await deadPid(), role: 'admin' });
    const t = await cliJson({ DOCPARSE_DATA_DIR: dataDir }, 'tenant', 'create', '--name', 'Solo');
    expect(t.name).toBe('Solo');
    expect(await exists(lockFile(dataDir))).toBe(false);
  });
});

describe('docparse admin without a node', () => {
  it('takes the lock for the command, so CLIs started together run one after another', async () => {
    const dataDir = await newDataDir();
    const env = { DOCPARSE_DATA_DIR: dataDir };
    const runs = await Promise.all(['a', 'b', 'c'].map((n) => runCli(env, ['tenant', 'create', '--name', n, '--json'])));
    for (const r of runs) expect(r.code, r.stdout + r.stderr).toBe(0);
    const names = (await cliJson<any[]>(env, 'tenant', 'list')).map((t) => t.name).sort();
    expect(names).toEqual(['a', 'b', 'c']);
    expect(await exists(lockFile(dataDir))).toBe(false);
    expect(await exists(path.join(dataDir, 'pglite'))).toBe(true);
  });
});

describe('docparse admin when the node holding the data dir cannot be reached', () => {
  it('a live holder that does not answer: non-zero exit, a clear message, nothing written', async () => {
    const dataDir = await newDataDir();
    // This test process is alive; the port is closed.
    const closed = await freePort();
    const lockText = await writeLock(dataDir, { pid: process.pid, manageUrl: `http://127.0.0.1:${closed}` });
    await fs.writeFile(credentialFile(dataDir), 'some-credential\n', { mode: 0o600 });

    const r = await runCli({ DOCPARSE_DATA_DIR: dataDir }, ['tenant', 'create', '--name', 'Lost']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`pid ${process.pid}`);
    expect(r.stderr).toContain(`data dir ${dataDir}`);
    expect(r.stderr).toMatch(/does not answer at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)/);
    expect(r.stderr).toMatch(/Nothing was changed/);
    expect(await exists(path.join(dataDir, 'pglite'))).toBe(false);
    expect(await fs.readFile(lockFile(dataDir), 'utf8')).toBe(lockText);
  });

  it('an unreadable credential: non-zero exit naming the file, nothing written', async () => {
    const dataDir = await newDataDir();
    await writeLock(dataDir, { pid: process.pid, manageUrl: `http://127.0.0.1:${await freePort()}` });
    const r = await runCli({ DOCPARSE_DATA_DIR: dataDir }, ['tenant', 'list']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`cannot read the operator credential ${credentialFile(dataDir)} (ENOENT)`);
    expect(r.stderr).toContain(`pid ${process.pid}`);
    expect(await exists(path.join(dataDir, 'pglite'))).toBe(false);
  });
});
