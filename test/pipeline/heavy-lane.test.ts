// LibreOffice jobs run in the heavy lane, and one tenant cannot take all of it: on a node with
// two heavy slots (one per tenant by default), a tenant's second RTF waits in
// waiting-for-provider until its first is done, while another tenant's RTF runs beside the
// first; and a hanging RTF is refused in milliseconds, before LibreOffice starts.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { rtfBinPastEnd } from '../../bench/fuzz/generators/office-hangs.mjs';
import { createApp, createTestEnv, destroyTestEnv, getToken, startTestNode, waitFor, type TestEnv, type TestNode } from '../helpers/node.js';

vi.setConfig({ testTimeout: 180_000, hookTimeout: 120_000 });

interface Status {
  statusInt: number;
  startedAt?: string | null;
  completedAt?: string | null;
  error?: { code: string; message: string } | null;
}

/** An RTF of a few pages: LibreOffice converts and renders it in a few seconds. */
const rtf = (title: string) =>
  Buffer.from(
    String.raw`{\rtf1\ansi\deff0{\fonttbl{\f0 Times New Roman;}}` +
      Array.from({ length: 120 }, (_, i) => String.raw`\pard ${title} paragraph ${i} with enough words to fill a line or two of the page.\par`).join('') +
      '}',
    'latin1',
  );

let env: TestEnv;
let n: TestNode;
beforeAll(async () => {
  env = await createTestEnv('embedded', { DOCPARSE_WORKER_THREADS: '2', DOCPARSE_HEAVY_SLOTS: '2' });
  n = await startTestNode(env);
});
afterAll(async () => {
  await n?.close();
  await destroyTestEnv(env);
});

async function tenant() {
  const app = await createApp(n.node, { maxConcurrentJobs: 16 });
  const token = await getToken(n.url, app.clientId, app.clientSecret);
  return {
    upload: async (id: string, body: Buffer) => {
      const r = await fetch(`${n.url}/api/v1/documents/upload?documentId=${id}&fileName=${id}.rtf`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
        body,
      });
      expect(r.status, await r.clone().text()).toBe(202);
      return (await r.json()) as Status;
    },
    status: async (id: string) =>
      (await (await fetch(`${n.url}/api/v1/documents/${id}/status`, { headers: { authorization: `Bearer ${token}` } })).json()) as Status,
  };
}

describe('the heavy lane', () => {
  it('an RTF announcing 2³¹ bytes of binary data fails at once', async () => {
    const a = await tenant();
    for (const id of ['hang-1', 'hang-2']) {
      const started = performance.now();
      await a.upload(id, rtfBinPastEnd());
      const s = await waitFor(async () => ((x) => (x.statusInt === 9 || x.statusInt === 8) && x)(await a.status(id)), 'the refusal', 30_000);
      const ms = Math.round(performance.now() - started);
      expect(s.statusInt).toBe(9);
      expect(s.error).toMatchObject({
        code: 'corrupt_document',
        message: expect.stringMatching(/^the RTF file is damaged: \\bin2147483647 at byte \d+ announces/),
      });
      // The first runs on a fresh parsing thread: it loads the office parser first.
      console.log(`hanging RTF ${id} (${rtfBinPastEnd().length} bytes): upload → failed in ${ms} ms (status polled every 100 ms)`);
    }
  });

  it("a tenant's two LibreOffice jobs never hold both heavy slots while another tenant's waits", async () => {
    const [a, b] = [await tenant(), await tenant()];
    // LibreOffice jobs go to the heavy lane: they wait in 6 waiting-for-provider.
    await a.upload('a1', rtf('A1'));
    await a.upload('a2', rtf('A2'));
    expect((await a.status('a2')).statusInt).toBe(6);
    await b.upload('b1', rtf('B1'));
    const done = (s: Status) => s.statusInt === 8 || s.statusInt === 9;
    // While a1 runs, a2 waits (its tenant holds its one slot) and b1 takes the other slot.
    await waitFor(async () => (await b.status('b1')).statusInt >= 7, 'b1 to run', 60_000);
    const [a1, a2, b1] = await Promise.all([
      waitFor(async () => ((s) => done(s) && s)(await a.status('a1')), 'a1', 120_000),
      waitFor(async () => ((s) => done(s) && s)(await a.status('a2')), 'a2', 120_000),
      waitFor(async () => ((s) => done(s) && s)(await b.status('b1')), 'b1', 120_000),
    ]);
    for (const s of [a1, a2, b1]) expect(s.statusInt, JSON.stringify(s.error)).toBe(8);
    const t = (iso?: string | null) => Date.parse(iso!);
    expect(t(b1.startedAt)).toBeLessThan(t(a1.completedAt)); // b1 ran beside a1
    expect(t(a2.startedAt)).toBeGreaterThanOrEqual(t(a1.completedAt)); // a2 waited for a1
  });
});
