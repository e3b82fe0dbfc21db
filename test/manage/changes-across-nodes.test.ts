// A change made through the management API on one node applies to uploads on every node
// within a second (issue 28): two nodes of one cluster (PostgreSQL + Redis), each upload node
// holding the app's limits in its cache when the change is made on the other one. And on the
// embedded default, one node: at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OperatorKeysStore } from '../../src/tenancy/operator-keys-store.js';
import type { SqlControlPlaneStore } from '../../src/tenancy/sql-store.js';
import { createApp, createTestEnv, destroyTestEnv, getToken, startTestNode, type Mode, type TestEnv, type TestNode } from '../helpers/node.js';

/** The bound: a change is refused or applied by every node within this long. */
const WITHIN_MS = 1000;
const CSV = 'city,pop\nParis,2102650\nLyon,522250\n';

interface Answer {
  status: number;
  code: string | undefined;
}

for (const mode of ['distributed', 'embedded'] as Mode[]) {
  describe(`management changes reach every node's uploads within a second (${mode})`, () => {
    let env: TestEnv;
    /** Where changes are made. */
    let manager: TestNode;
    /** Where uploads go: another node of the cluster, or the same one on the embedded default. */
    let uploader: TestNode;
    let operatorKey: string;

    beforeAll(async () => {
      env = await createTestEnv(mode, { DOCPARSE_SEED_DEMO: 'false' });
      // No worker role: the jobs only need to be accepted.
      manager = await startTestNode(env, {}, ['api', 'auth']);
      uploader = mode === 'distributed' ? await startTestNode(env, {}, ['api', 'auth']) : manager;
      operatorKey = (await new OperatorKeysStore((manager.node.controlPlane as SqlControlPlaneStore).db).create('changes test')).key;
    });
    afterAll(async () => {
      await manager?.close();
      if (uploader !== manager) await uploader?.close();
      if (env) await destroyTestEnv(env);
    });

    const manage = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${manager.url}/manage/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${operatorKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      expect(res.status, `${method} ${path}: ${await res.clone().text()}`).toBe(200);
    };

    async function upload(token: string, body = CSV): Promise<Answer> {
      const res = await fetch(`${uploader.url}/api/v1/documents/upload?fileName=cities.csv&csvRoute=Tabular`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'text/csv' },
        body,
      });
      const json = (await res.json()) as { code?: string };
      return { status: res.status, code: json.code };
    }

    /** An app whose limits the upload node has just read (and so holds), and a token for it. */
    async function appInUse(plan = {}) {
      const app = await createApp(uploader.node, { maxConcurrentJobs: 1000, ...plan });
      const token = await getToken(uploader.url, app.clientId, app.clientSecret);
      expect(await upload(token)).toEqual({ status: 202, code: undefined });
      return { ...app, token };
    }

    /**
     * Makes the change on the managing node, then uploads on the other until `refused` holds:
     * the answer must come to a request sent within WITHIN_MS of the change's answer.
     */
    async function refusedAfter(change: () => Promise<void>, token: string, refused: (a: Answer) => boolean, body?: string): Promise<Answer> {
      await change();
      const deadline = performance.now() + WITHIN_MS;
      let last: Answer;
      do {
        last = await upload(token, body);
        if (refused(last)) return last;
        await new Promise((r) => setTimeout(r, 20));
      } while (performance.now() < deadline);
      throw new Error(`still accepted ${WITHIN_MS} ms after the change: ${JSON.stringify(last)}`);
    }

    const appDisabled = (a: Answer) => a.status === 403 && a.code === 'app_disabled';

    it('an app disabled on one node is refused by the other', async () => {
      const app = await appInUse();
      expect(await refusedAfter(() => manage('POST', `/apps/${app.appId}/disable`), app.token, appDisabled)).toEqual({ status: 403, code: 'app_disabled' });
      // Enabled again: accepted again, as quickly.
      await refusedAfter(
        () => manage('POST', `/apps/${app.appId}/enable`),
        app.token,
        (a) => a.status === 202,
      );
    });

    it('a deleted app is refused by the other node', async () => {
      const app = await appInUse();
      await refusedAfter(() => manage('DELETE', `/apps/${app.appId}`), app.token, appDisabled);
    });

    it('an app of a deactivated tenant is refused by the other node (its token is still unexpired)', async () => {
      const app = await appInUse();
      await refusedAfter(() => manage('POST', `/tenants/${app.tenantId}/deactivate`), app.token, appDisabled);
    });

    it("a plan's new file size limit applies on the other node", async () => {
      const app = await appInUse({ maxFileSizeBytes: 1024 * 1024 });
      const planId = (await uploader.node.controlPlane.getApp(app.appId))!.planId!;
      const tooLarge = await refusedAfter(
        () => manage('PATCH', `/plans/${planId}`, { maxFileSizeBytes: CSV.length - 1 }),
        app.token,
        (a) => a.code === 'document_too_large',
      );
      expect(tooLarge.status).toBe(413);
    });
  });
}
