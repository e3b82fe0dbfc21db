// Wrong operator keys sent as Bearer to /manage/v1 are limited like those typed into the
// dashboard's sign-in form — the same limit (10 a minute from one address) on the same
// counters: past it, 429 rate_limited with Retry-After, and even the right key is not looked at.
// Wrong keys in either place count for both.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SqlControlPlaneStore } from '../../src/tenancy/sql-store.js';
import { OperatorKeysStore } from '../../src/tenancy/operator-keys-store.js';
import { freePort } from '../helpers/http.js';
import { createTestEnv, destroyTestEnv, startTestNode, type TestEnv, type TestNode } from '../helpers/node.js';

const WINDOW_SECONDS = 60;

/** Waits, if need be, so that at least 15 s of the current fixed minute remain: the wrong keys and the check after them fall in one window. */
async function awayFromWindowEnd(): Promise<void> {
  const left = WINDOW_SECONDS - (Math.floor(Date.now() / 1000) % WINDOW_SECONDS);
  if (left < 15) await new Promise((r) => setTimeout(r, left * 1000 + 200));
}

describe('operator keys as Bearer on /manage/v1', () => {
  let t: TestEnv;
  let n: TestNode;
  let url: string;
  let dashboardUrl: string;
  let keys: OperatorKeysStore;

  beforeEach(async () => {
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    t = await createTestEnv('embedded', { PORT: String(port), DOCPARSE_BASE_URL: url, DOCPARSE_SEED_DEMO: 'false' });
    n = await startTestNode(t);
    dashboardUrl = n.node.dashboard!.url;
    keys = new OperatorKeysStore((n.node.controlPlane as SqlControlPlaneStore).db);
  });
  afterEach(async () => {
    await n?.close();
    if (t) await destroyTestEnv(t);
  });

  const bearer = (key: string) => fetch(`${url}/manage/v1/tenants`, { headers: { authorization: `Bearer ${key}` } });
  const signInForm = (key: string) =>
    fetch(`${dashboardUrl}/auth/operator`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ key }),
    });
  const lastUsed = async (id: string) => (await keys.list()).find((k) => k.id === id)!.lastUsedAt;

  async function expectLimited(res: Response) {
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    const body = (await res.json()) as Record<string, string>;
    expect(body.code).toBe('rate_limited');
    expect(body.detail).toMatch(/Too many wrong operator keys from this address/);
  }

  it('past 10 wrong Bearer keys a minute the right key is refused unchecked, as Bearer and in the sign-in form', async () => {
    const { key, record } = await keys.create('limited');
    await awayFromWindowEnd();
    const answers: number[] = [];
    for (let i = 0; i < 10; i++) answers.push((await bearer(`dp_op_wrong${i}`)).status);
    expect(answers).toEqual(Array(10).fill(401));
    await expectLimited(await bearer(`dp_op_wrong10`));
    await expectLimited(await bearer(key));
    expect(await lastUsed(record.id)).toBeNull(); // never looked at
    await expectLimited(await signInForm(key));
  });

  it('wrong keys typed into the sign-in form count against Bearer keys', async () => {
    const { key } = await keys.create('form first');
    await awayFromWindowEnd();
    for (let i = 0; i < 10; i++) expect((await signInForm(`dp_op_wrong${i}`)).status).toBe(401);
    await expectLimited(await bearer(key));
  });

  it('a right key gives its attempt back: any number of right keys pass', async () => {
    const { key } = await keys.create('right');
    await awayFromWindowEnd();
    for (let i = 0; i < 15; i++) expect((await bearer(key)).status).toBe(200);
  });
});
