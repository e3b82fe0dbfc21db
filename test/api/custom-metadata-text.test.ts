// customMetadataJson is text like every other value: a \u0000 escape (or half a surrogate pair)
// in one of its strings or names is a 400 naming customMetadataJson — on a direct upload and
// on upload-complete — and nothing is stored, queued or charged.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, createTestEnv, destroyTestEnv, filesUnder, getToken, startTestNode, type TestEnv, type TestNode } from '../helpers/node.js';

describe('customMetadataJson holding NUL', () => {
  let env: TestEnv;
  let n: TestNode;
  let token: string;
  let app: Awaited<ReturnType<typeof createApp>>;

  beforeAll(async () => {
    env = await createTestEnv('embedded', { DOCPARSE_SEED_DEMO: 'false' });
    n = await startTestNode(env);
    app = await createApp(n.node, {});
    token = await getToken(n.url, app.clientId, app.clientSecret);
  });
  afterAll(async () => {
    await n?.close();
    if (env) await destroyTestEnv(env);
  });

  const api = (p: string, init: RequestInit = {}) => fetch(`${n.url}${p}`, { ...init, headers: { authorization: `Bearer ${token}`, ...(init.headers ?? {}) } });
  const upload = (customMetadataJson: string) =>
    api(`/api/v1/documents/upload?${new URLSearchParams({ fileName: 'm.csv', csvRoute: 'Tabular', customMetadataJson })}`, { method: 'POST', body: 'a\n1\n' });
  const stored = async () => (await filesUnder(path.join(env.dataDir, 'blobs'))).filter((f) => f.includes(app.tenantId));

  async function expectRefused(res: Response, where: RegExp) {
    const body = (await res.json()) as Record<string, string>;
    expect(res.status, JSON.stringify(body)).toBe(400);
    expect(body).toMatchObject({ code: 'invalid_parameter', parameter: 'customMetadataJson' });
    expect(body.detail).toMatch(where);
  }

  it('is refused on upload, in a value, a name or nested, and nothing is stored or charged', async () => {
    await expectRefused(await upload('{"note":"a\\u0000b"}'), /NUL character \(U\+0000\) \(at "note"\)/);
    await expectRefused(await upload('{"ok":{"list":["x","\\u0000"]}}'), /NUL.*at "ok" → "list" → 1/);
    await expectRefused(await upload('{"a\\u0000":1}'), /a name with a NUL character/);
    await expectRefused(await upload('{"half":"\\ud800"}'), /surrogate/);
    expect(await stored()).toEqual([]);
    expect(await n.node.controlPlane.listUsage({ appId: app.appId })).toEqual([]);

    // The same upload with text in it is taken.
    const ok = await upload('{"note":"a b"}');
    expect(ok.status).toBe(202);
  });

  it('is refused on upload-complete, and the session stays open', async () => {
    const json = (b: unknown) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(b) });
    const session = (await (await api('/api/v1/documents/upload-request', json({ fileName: 'm.csv', sizeBytes: 4 }))).json()) as {
      uploadId: string;
      uploadUrl: string;
      documentId: string;
    };
    const u = new URL(session.uploadUrl);
    expect((await fetch(`${n.url}${u.pathname}${u.search}`, { method: 'PUT', body: 'a\n1\n' })).status).toBe(204);
    const refused = await api(
      '/api/v1/documents/upload-complete',
      json({ uploadId: session.uploadId, csvRoute: 'Tabular', customMetadataJson: '{"note":"\\u0000"}' }),
    );
    await expectRefused(refused, /NUL/);
    const status = (await (await api(`/api/v1/documents/${session.documentId}/status`)).json()) as { statusInt: number };
    expect(status.statusInt).toBe(0);
  });
});
