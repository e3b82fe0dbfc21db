// The Python client (clients/python/docparse_client.py, standard library only): its own
// unittest suite, run by python3 against a real node over HTTP.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freePort, REPO_ROOT } from '../helpers/http.js';
import { createApp, createTestEnv, destroyTestEnv, getToken, startTestNode, type TestEnv, type TestNode } from '../helpers/node.js';

let env: TestEnv;
let n: TestNode;

beforeAll(async () => {
  env = await createTestEnv('embedded');
  // The presigned uploadUrl is built on DOCPARSE_BASE_URL: the node must listen where it says.
  const port = await freePort();
  n = await startTestNode(env, { PORT: String(port), DOCPARSE_BASE_URL: `http://127.0.0.1:${port}`, DOCPARSE_DIRECT_UPLOAD_MAX_BYTES: '100' });
});

afterAll(async () => {
  await n?.close();
  if (env) await destroyTestEnv(env);
});

function run(cmd: string, args: string[], opts: { cwd: string; env: Record<string, string> }): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: { ...process.env, ...opts.env } });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

it("the Python client's unittest suite passes against a live node", async () => {
  const creds = await createApp(n.node, {});
  // A token the client will believe good but the server finds expired (clocks apart).
  const real = await getToken(n.url, creds.clientId, creds.clientSecret);
  const claims = JSON.parse(Buffer.from(real.split('.')[1], 'base64url').toString()) as Record<string, unknown>;
  const { kid, key } = await n.node.identity.keyring.signingKey();
  const now = Math.floor(Date.now() / 1000);
  const expired = await new SignJWT({ ...claims, iat: now - 1000, exp: now - 100 }).setProtectedHeader({ alg: 'ES256', kid, typ: 'JWT' }).sign(key);

  const r = await run('python3', ['-m', 'unittest', '-v', 'test_docparse_client'], {
    cwd: path.join(REPO_ROOT, 'clients/python'),
    env: {
      DOCPARSE_URL: n.url,
      DOCPARSE_CLIENT_ID: creds.clientId,
      DOCPARSE_CLIENT_SECRET: creds.clientSecret,
      DOCPARSE_TEST_EXPIRED_TOKEN: expired,
      PYTHONDONTWRITEBYTECODE: '1',
    },
  });
  expect(r.output).toMatch(/Ran 9 tests/);
  expect(r.output).toMatch(/\nOK\s*$/);
  expect(r.code).toBe(0);
});
