// `docparse serve` shows the demo client secret and a one-time dashboard sign-in link to the
// person at the terminal, never in the JSON log stream on stdout (which collectors keep).
// Run in a pseudo-terminal (util-linux `script`), the person sees both and the link signs in;
// run without any terminal (its own session, pipes only), stdout holds JSON log lines with
// neither, and the secret is in a file only the service's user can read.
// Needs the compiled CLI: `npx tsc -p tsconfig.json` first.
import fs from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir, waitFor } from '../../helpers/http.js';
import { getToken } from '../../helpers/node.js';
import { CookieJar, FORM, postedFrom } from './harness.js';
import { hasScript, printedSignInLink, serve, stopServed } from './serve.js';

afterEach(stopServed);

describe('what `docparse serve` tells the person who started it', () => {
  it.skipIf(!hasScript)('at a terminal: the demo secret and a one-time sign-in link, which signs in once', async () => {
    const dataDir = await tempDir('dp-terminal-');
    try {
      const node = await serve(dataDir, { terminal: true, seedDemo: true });
      const text = () => node.output().out.replace(/\r/g, '');
      const link = await printedSignInLink(node);
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
      const node = await serve(dataDir, { terminal: false, seedDemo: true });
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
