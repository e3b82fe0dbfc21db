// `docparse serve` shows the demo client secret and a one-time dashboard sign-in link to the
// person at the terminal, never in the JSON log stream on stdout (which collectors keep).
// Run in a pseudo-terminal (util-linux `script`), the person sees both and the link signs in;
// run without any terminal (its own session, pipes only), stdout holds JSON log lines with
// neither, and the secret is in a file only the service's user can read.
// Needs the compiled CLI: `npx tsc -p tsconfig.json` first.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { cliEntry, freePort, REPO_ROOT, tempDir, waitFor } from '../../helpers/http.js';
import { getToken } from '../../helpers/node.js';
import { CookieJar, FORM, postedFrom } from './harness.js';

const hasScript = spawnSync('script', ['--version']).status === 0;
const running: ChildProcess[] = [];
afterEach(async () => {
  for (const c of running.splice(0)) {
    if (c.exitCode === null && c.signalCode === null) {
      const gone = new Promise((r) => c.once('close', r));
      process.kill(-c.pid!, 'SIGTERM');
      await gone;
    }
  }
});

/** Starts `docparse serve` in a session of its own (no controlling terminal), optionally inside a pseudo-terminal. */
async function serve(dataDir: string, terminal: boolean): Promise<{ url: string; output: () => { out: string; err: string } }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env = { ...process.env, PORT: String(port), DOCPARSE_BASE_URL: url, DOCPARSE_DATA_DIR: dataDir, DOCPARSE_SEED_DEMO: 'true', LOG_LEVEL: 'info' };
  for (const k of ['DOCPARSE_DEMO_CLIENT_SECRET', 'DOCPARSE_OIDC_CLIENT_ID', 'DOCPARSE_OIDC_CLIENT_SECRET', 'DATABASE_URL', 'REDIS_URL']) delete env[k];
  const command = [process.execPath, cliEntry(), 'serve', '--role', 'api,auth'];
  const child = terminal
    ? spawn('script', ['-qfec', command.map((a) => `'${a}'`).join(' '), '/dev/null'], { cwd: REPO_ROOT, env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] })
    : spawn(command[0], command.slice(1), { cwd: REPO_ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  running.push(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  await waitFor(async () => (await fetch(`${url}/health/live`).catch(() => null))?.ok, `docparse serve on ${url} (${err})`, 60_000);
  return { url, output: () => ({ out, err }) };
}

describe('what `docparse serve` tells the person who started it', () => {
  it.skipIf(!hasScript)('at a terminal: the demo secret and a one-time sign-in link, which signs in once', async () => {
    const dataDir = await tempDir('dp-terminal-');
    try {
      const node = await serve(dataDir, true);
      const text = () => node.output().out.replace(/\r/g, '');
      const link = (await waitFor(() => /https?:\/\/\S+\/auth\/local\?token=[A-Za-z0-9_-]+/.exec(text())?.[0], 'the sign-in link')) as string;
      const secret = /client_secret: (\S+)/.exec(text())![1];
      const clientId = /client_id:\s+(\S+)/.exec(text())![1];
      expect(await getToken(node.url, clientId, secret)).toMatch(/^ey/);
      // The JSON log lines around them carry neither.
      const logLines = text()
        .split('\n')
        .filter((l) => l.startsWith('{'));
      expect(logLines.length).toBeGreaterThan(0);
      for (const l of logLines) {
        expect(l).not.toContain(secret);
        expect(l).not.toContain('token=');
      }
      await expect(fs.access(`${dataDir}/demo-credentials.txt`)).rejects.toThrow();

      const jar = new CookieJar();
      const token = new URL(link).searchParams.get('token')!;
      const signIn = () =>
        jar.fetch(new URL('/dashboard/auth/local', node.url), {
          method: 'POST',
          headers: { ...FORM, ...postedFrom(node.url) },
          body: new URLSearchParams({ token }),
        });
      expect((await signIn()).status).toBe(303);
      expect((await jar.fetch(`${node.url}/manage/v1/tenants`)).status).toBe(200);
      expect((await signIn()).status).toBe(403);
    } finally {
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });

  it('without a terminal: stdout is JSON log lines only, with no secret and no link; the secret is in a file for this user only', async () => {
    const dataDir = await tempDir('dp-terminal-');
    try {
      const node = await serve(dataDir, false);
      const file = `${dataDir}/demo-credentials.txt`;
      await waitFor(() => fs.stat(file).catch(() => null), 'the demo credentials file');
      expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
      const saved = await fs.readFile(file, 'utf8');
      const secret = /client_secret: (\S+)/.exec(saved)![1];
      const clientId = /client_id:\s+(\S+)/.exec(saved)![1];
      expect(await getToken(node.url, clientId, secret)).toMatch(/^ey/);

      await waitFor(() => node.output().out.includes('no terminal for a one-time sign-in link'), 'the sign-in hint in the log');
      const { out, err } = node.output();
      const lines = out.split('\n').filter(Boolean);
      for (const l of lines) expect(() => JSON.parse(l), l).not.toThrow();
      expect(out).toContain(file);
      for (const stream of [out, err]) {
        expect(stream).not.toContain(secret);
        expect(stream).not.toMatch(/auth\/local\?token=/);
      }
    } finally {
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });
});
