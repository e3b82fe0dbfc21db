// PostgreSQL goes down under a running node (a private server, its whole process group
// killed with SIGKILL) and comes back on the same port: requests that need the control plane
// (token requests) answer 503 with Retry-After at once, readiness names PostgreSQL, requests
// that only need Redis and the blob store keep working — status, batch, result, and an upload
// of an app whose limits the node holds (its quota is kept in Redis): that job waits to be
// charged and completes when PostgreSQL returns — and the node serves everything again by itself.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TestServer } from '../helpers/servers.js';
import { waitFor } from '../helpers/node.js';
import {
  expectNotReady,
  expectUnavailableOAuth,
  expectUnavailableProblem,
  readyAgain,
  startOutageRig,
  Timings,
  uploadAndComplete,
  type Client,
  type OutageRig,
} from './harness.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

let pg: TestServer;
let c: Client;
let rig: OutageRig;
const timings = new Timings();

beforeAll(async () => {
  ({ pg, c } = rig = await startOutageRig());
});

afterAll(async () => {
  timings.print('PostgreSQL outage (private server, SIGKILL of its process group, restarted on the same port)');
  await rig?.close();
});

describe('PostgreSQL unreachable', () => {
  it('answers 503 at once where PostgreSQL is needed, keeps the rest working, and recovers by itself', async () => {
    await uploadAndComplete(c, 'before-outage');

    await pg.stop();
    const down = performance.now();

    const ready = await c.ready();
    timings.add('/health/ready names PostgreSQL', ready.ms);
    expectNotReady(ready, 'controlPlane', 'PostgreSQL');

    // The client registry is in PostgreSQL.
    const token = await c.token();
    timings.add('token → 503', token.ms);
    expectUnavailableOAuth(token, 'PostgreSQL');

    // The quota is kept in Redis: while the node still holds the app's limits (read within
    // the last 5 s) the upload is accepted and its job waits for PostgreSQL to record the
    // charge; once they have lapsed, admission needs PostgreSQL and answers 503 at once.
    const upload = await c.upload('during-outage');
    const accepted = upload.status === 202;
    timings.add(accepted ? 'upload (limits held) → 202' : 'upload (limits lapsed) → 503', upload.ms);
    if (!accepted) expectUnavailableProblem(upload, 'PostgreSQL');

    // Jobs live in Redis and artifacts in the blob store: these do not need PostgreSQL.
    const status = await c.status('before-outage');
    timings.add('status poll (no PostgreSQL needed) → 200', status.ms);
    expect(status.status).toBe(200);
    expect(status.body.statusInt).toBe(8);
    expect((await c.batch(['before-outage'])).status).toBe(200);
    expect((await c.result('before-outage')).status).toBe(200);
    expect((await c.live()).status).toBe(200);
    expect((await c.openapi()).status).toBe(200);

    // A longer outage: still answered, still 503.
    await new Promise((r) => setTimeout(r, 3000));
    expectUnavailableOAuth(await c.token(), 'PostgreSQL');
    timings.add('outage length', Math.round(performance.now() - down));

    await pg.start();
    const back = performance.now();
    timings.add('PostgreSQL back → /health/ready 200', await readyAgain(c, back));

    const again = await c.token();
    expect(again.status).toBe(200);
    if (accepted) await waitFor(async () => (await c.status('during-outage')).body?.statusInt === 8, 'the job accepted during the outage to complete', 30_000);
    const t0 = performance.now();
    await uploadAndComplete(c, 'after-outage');
    timings.add('upload after recovery → completed', Math.round(performance.now() - t0));
  });
});
