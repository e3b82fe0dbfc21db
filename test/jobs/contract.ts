// The one test suite both job backends (embedded, Redis) must pass.

import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import type { JobLogger } from '../../src/jobs/support.js';
import { ALL_STATES, CANCELLABLE_STATES, canTransition, IllegalTransitionError } from '../../src/jobs/transitions.js';
import {
  JobState,
  RetryLater,
  type Delivery,
  type JobQueue,
  type JobRecord,
  type JobRef,
  type JobStore,
  type Lane,
  type RateCounters,
} from '../../src/jobs/types.js';

export interface BackendUnderTest {
  store: JobStore;
  queue: JobQueue;
  counters: RateCounters;
  close(): Promise<void>;
}

export interface BackendFactory {
  /** A fresh backend, isolated from every other one this factory opened. */
  open(opts: { log: JobLogger }): Promise<BackendUnderTest>;
  /** A second handle on the same data (another node / another connection), if the backend has one. */
  openPeerStore?(of: BackendUnderTest): Promise<JobStore>;
}

export interface LogEntry {
  level: 'warn' | 'error';
  obj: object;
  msg: string;
}

export function captureLog(): JobLogger & { entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  return {
    entries,
    warn: (obj, msg) => void entries.push({ level: 'warn', obj, msg }),
    error: (obj, msg) => void entries.push({ level: 'error', obj, msg }),
  };
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export async function waitFor(pred: () => boolean | Promise<boolean>, timeoutMs = 15_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await pred())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

const HOUR = 3600_000;

export function makeJob(over: Partial<JobRecord> = {}): JobRecord {
  const now = Date.now();
  return {
    tenantId: 'tenant-a',
    appId: 'app-' + randomUUID(),
    documentId: 'doc-' + randomUUID(),
    generation: randomUUID(),
    statusInt: JobState.Received,
    format: 'csv',
    lane: 'light',
    fileName: 'data.csv',
    options: { csvRoute: 'Tabular', chunkHints: true },
    customMetadata: { project: 'x', nested: { list: [], n: 0.1 + 0.2, big: 2 ** 53 - 1 }, empty: {} },
    uploadKey: 'uploads/' + randomUUID(),
    sizeBytes: 1234,
    sha256: 'ab'.repeat(32),
    attempts: 0,
    createdAt: new Date(now).toISOString(),
    updatedAt: new Date(now).toISOString(),
    startedAt: null,
    completedAt: null,
    expiresAt: new Date(now + 3 * HOUR).toISOString(),
    error: null,
    artifactKey: null,
    artifactBytes: null,
    documentUnits: null,
    storageConfigId: null,
    ...over,
  };
}

function makeRef(lane: Lane = 'light'): JobRef {
  return { tenantId: 't-' + randomUUID(), documentId: 'd:' + randomUUID(), generation: randomUUID(), lane };
}

const refId = (r: Pick<JobRef, 'tenantId' | 'documentId' | 'generation'>) => `${r.tenantId}|${r.documentId}|${r.generation}`;

export function jobBackendContract(name: string, factory: BackendFactory): void {
  describe(`job backend contract: ${name}`, () => {
    let b: BackendUnderTest;
    let log: ReturnType<typeof captureLog>;

    beforeEach(async () => {
      log = captureLog();
      b = await factory.open({ log });
    });
    afterEach(async () => {
      await b.close();
    });

    describe('store', () => {
      it('put then get returns the same record; unknown ids and other tenants get null', async () => {
        const job = makeJob();
        expect(await b.store.put(job)).toBeNull();
        expect(await b.store.get(job.tenantId, job.documentId)).toEqual(job);
        expect(await b.store.get(job.tenantId, 'nope')).toBeNull();
        expect(await b.store.get('tenant-b', job.documentId)).toBeNull();
      });

      it('getMany answers in request order with nulls for unknown ids', async () => {
        const tenantId = 't-' + randomUUID();
        const j1 = makeJob({ tenantId });
        const j2 = makeJob({ tenantId, lane: 'heavy', format: 'pdf' });
        const other = makeJob({ tenantId: 't-other-' + randomUUID() });
        await b.store.put(j1);
        await b.store.put(j2);
        await b.store.put(other);
        const got = await b.store.getMany(tenantId, [j2.documentId, 'missing', j1.documentId, other.documentId, j2.documentId]);
        expect(got).toEqual([j2, null, j1, null, j2]);
        expect(await b.store.getMany(tenantId, [])).toEqual([]);
      });

      it('put over an existing document returns the previous record', async () => {
        const first = makeJob();
        await b.store.put(first);
        const second = makeJob({ tenantId: first.tenantId, documentId: first.documentId, appId: first.appId, uploadKey: 'uploads/second' });
        expect(await b.store.put(second)).toEqual(first);
        expect(await b.store.get(first.tenantId, first.documentId)).toEqual(second);
      });

      it('putSession never replaces a job that has its bytes; it replaces an earlier session, an expired job, or nothing', async () => {
        const session = (over: Partial<JobRecord>) => makeJob({ statusInt: JobState.NotQueued, sha256: '', ...over });
        const job = makeJob({ statusInt: JobState.Received });
        await b.store.put(job);
        const ids = { tenantId: job.tenantId, documentId: job.documentId, appId: job.appId };
        expect(await b.store.putSession(session(ids))).toBeNull();
        expect(await b.store.get(job.tenantId, job.documentId)).toEqual(job);

        const fresh = session({ appId: job.appId });
        expect(await b.store.putSession(fresh)).toEqual({ previous: null });
        const again = session({ tenantId: fresh.tenantId, documentId: fresh.documentId, appId: fresh.appId });
        expect(await b.store.putSession(again)).toEqual({ previous: fresh });
        expect(await b.store.get(again.tenantId, again.documentId)).toEqual(again);

        const expired = makeJob({ statusInt: JobState.Received, expiresAt: new Date(Date.now() - 1000).toISOString() });
        await b.store.put(expired);
        const over = session({ tenantId: expired.tenantId, documentId: expired.documentId, appId: expired.appId });
        expect((await b.store.putSession(over))?.previous?.generation).toBe(expired.generation);
      });

      it('putUnlessLive writes over nothing, a session, a failed or expired job or its own generation; a live job comes back unwritten', async () => {
        const fresh = makeJob({ statusInt: JobState.Queued });
        expect(await b.store.putUnlessLive(fresh)).toEqual({ stored: true, previous: null });
        const same = { tenantId: fresh.tenantId, documentId: fresh.documentId, appId: fresh.appId };
        const next = makeJob({ ...same, statusInt: JobState.Queued, uploadKey: 'uploads/next' });
        expect(await b.store.putUnlessLive(next)).toEqual({ stored: false, live: fresh });
        expect(await b.store.get(fresh.tenantId, fresh.documentId)).toEqual(fresh);
        const regen = { ...fresh, uploadKey: 'uploads/regen' };
        expect(await b.store.putUnlessLive(regen)).toEqual({ stored: true, previous: fresh });

        for (const over of [{ statusInt: JobState.NotQueued }, { statusInt: JobState.Failed }, { expiresAt: new Date(Date.now() - 1000).toISOString() }]) {
          const old = makeJob({ statusInt: JobState.Completed, ...over });
          await b.store.put(old);
          const replacing = makeJob({ tenantId: old.tenantId, documentId: old.documentId, appId: old.appId, statusInt: JobState.Queued });
          expect(await b.store.putUnlessLive(replacing)).toEqual({ stored: true, previous: old });
          expect(await b.store.get(old.tenantId, old.documentId)).toEqual(replacing);
        }
        const done = makeJob({ statusInt: JobState.Completed });
        await b.store.put(done);
        expect(await b.store.putUnlessLive(makeJob({ tenantId: done.tenantId, documentId: done.documentId, appId: done.appId }))).toEqual({
          stored: false,
          live: done,
        });
      });

      it('startLight moves a waiting job to 3 with its attempt and start time, and otherwise reads it unchanged', async () => {
        const queued = makeJob({ statusInt: JobState.Queued });
        await b.store.put(queued);
        const first = await b.store.startLight(queued, 1, 3);
        expect(first.started).toBe(true);
        expect(first.job).toMatchObject({ statusInt: JobState.Processing, attempts: 1, generation: queued.generation });
        expect(first.job?.startedAt).toEqual(expect.any(String));
        expect(await b.store.get(queued.tenantId, queued.documentId)).toEqual(first.job);
        // Not waiting (3): read as stored.
        expect(await b.store.startLight(queued, 1, 3)).toEqual({ job: first.job, started: false });

        // A retry (5) counts from the stored attempts when the delivery's count is behind, and keeps startedAt.
        const retrying = await b.store.transition(queued, JobState.Retrying);
        const second = await b.store.startLight(queued, 1, 3);
        expect(second).toMatchObject({ started: true, job: { statusInt: JobState.Processing, attempts: 2, startedAt: first.job?.startedAt } });
        expect(second.job?.updatedAt).not.toBeUndefined();
        expect(retrying?.attempts).toBe(1);
        // Out of attempts: left in 5 for the worker to retire.
        await b.store.transition(queued, JobState.Retrying);
        expect(await b.store.startLight(queued, 1, 2)).toMatchObject({ started: false, job: { statusInt: JobState.Retrying, attempts: 2 } });
        // The delivery's count wins when it is ahead.
        expect(await b.store.startLight(queued, 3, 3)).toMatchObject({ started: true, job: { attempts: 3 } });

        // Another generation, an expired or a missing job: nothing moves.
        const other = makeJob({ statusInt: JobState.Queued });
        await b.store.put(other);
        expect(await b.store.startLight({ ...other, generation: 'older' }, 1, 3)).toEqual({ job: other, started: false });
        const expired = makeJob({ statusInt: JobState.Queued, expiresAt: new Date(Date.now() - 1000).toISOString() });
        await b.store.put(expired);
        expect(await b.store.startLight(expired, 1, 3)).toEqual({ job: null, started: false });
        expect(await b.store.startLight({ tenantId: 'nobody', documentId: 'nothing', generation: 'g' }, 1, 3)).toEqual({ job: null, started: false });
      });

      it('transition applies a legal move and its patch, and keeps unpatched fields', async () => {
        const job = makeJob({ statusInt: JobState.Received });
        await b.store.put(job);
        const queued = await b.store.transition(job, JobState.Queued);
        expect(queued?.statusInt).toBe(JobState.Queued);
        const startedAt = new Date().toISOString();
        const processing = await b.store.transition(job, JobState.Processing, { startedAt, attempts: 1, error: undefined });
        expect(processing).toMatchObject({ statusInt: 3, startedAt, attempts: 1, error: null, customMetadata: job.customMetadata });
        await b.store.transition(job, JobState.Materializing);
        const done = await b.store.transition(job, JobState.Completed, {
          completedAt: new Date().toISOString(),
          artifactKey: 'artifacts/x.json',
          artifactBytes: 42,
          documentUnits: 3,
        });
        expect(done).toMatchObject({ statusInt: 8, artifactKey: 'artifacts/x.json', artifactBytes: 42, documentUnits: 3, startedAt });
        const stored = await b.store.get(job.tenantId, job.documentId);
        expect(stored).toEqual(done);
        expect(Date.parse(stored!.updatedAt)).toBeGreaterThanOrEqual(Date.parse(job.updatedAt));
        const {
          statusInt: _s,
          updatedAt: _u,
          startedAt: _st,
          completedAt: _c,
          artifactKey: _a,
          artifactBytes: _ab,
          documentUnits: _d,
          attempts: _at,
          ...rest
        } = stored!;
        const {
          statusInt: _s2,
          updatedAt: _u2,
          startedAt: _st2,
          completedAt: _c2,
          artifactKey: _a2,
          artifactBytes: _ab2,
          documentUnits: _d2,
          attempts: _at2,
          ...restOrig
        } = job;
        expect(rest).toEqual(restOrig);
      });

      it('failed records carry their error', async () => {
        const job = makeJob({ statusInt: JobState.Queued });
        await b.store.put(job);
        const error = { code: 'extraction_failed' as const, message: 'bad file', stage: 'extract' };
        const failed = await b.store.transition(job, JobState.Failed, { error, completedAt: new Date().toISOString() });
        expect(failed?.error).toEqual(error);
        expect((await b.store.get(job.tenantId, job.documentId))?.error).toEqual(error);
      });

      it('an illegal transition throws IllegalTransitionError and changes nothing', async () => {
        const job = makeJob({ statusInt: JobState.Received });
        await b.store.put(job);
        await expect(b.store.transition(job, JobState.Completed)).rejects.toBeInstanceOf(IllegalTransitionError);
        await expect(b.store.transition(job, JobState.Received)).rejects.toBeInstanceOf(IllegalTransitionError);
        expect(await b.store.get(job.tenantId, job.documentId)).toEqual(job);
        const done = makeJob({ statusInt: JobState.Completed });
        await b.store.put(done);
        await expect(b.store.transition(done, JobState.Failed)).rejects.toBeInstanceOf(IllegalTransitionError);
      });

      it('transition with `from` moves only from those states (a cancel never takes a materializing job)', async () => {
        const job = makeJob({ statusInt: JobState.Queued });
        await b.store.put(job);
        await b.store.transition(job, JobState.Processing);
        await b.store.transition(job, JobState.Materializing);
        const err = await b.store.transition(job, JobState.Failed, {}, { from: CANCELLABLE_STATES }).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(IllegalTransitionError);
        expect((err as IllegalTransitionError).from).toBe(JobState.Materializing);
        expect((await b.store.get(job.tenantId, job.documentId))?.statusInt).toBe(JobState.Materializing);
        const other = makeJob({ statusInt: JobState.Queued });
        await b.store.put(other);
        expect((await b.store.transition(other, JobState.Failed, {}, { from: CANCELLABLE_STATES }))?.statusInt).toBe(JobState.Failed);
      });

      it('a patch may not touch identity fields', async () => {
        const job = makeJob({ statusInt: JobState.Queued });
        await b.store.put(job);
        await expect(b.store.transition(job, JobState.Processing, { generation: 'x' } as never)).rejects.toThrow(/may not set/);
        expect(await b.store.get(job.tenantId, job.documentId)).toEqual(job);
      });

      it('walks every (from, to) pair of the transition table', async () => {
        const tenantId = 't-walk-' + randomUUID();
        for (const from of ALL_STATES) {
          for (const to of ALL_STATES) {
            const job = makeJob({ tenantId, statusInt: from });
            await b.store.put(job);
            if (canTransition(from, to)) {
              expect((await b.store.transition(job, to))?.statusInt, `${from}→${to}`).toBe(to);
            } else {
              await expect(b.store.transition(job, to), `${from}→${to}`).rejects.toBeInstanceOf(IllegalTransitionError);
              expect((await b.store.get(tenantId, job.documentId))?.statusInt).toBe(from);
            }
          }
        }
      });

      it('a stale generation or a missing job gets null, not an error', async () => {
        const old = makeJob({ statusInt: JobState.Queued });
        await b.store.put(old);
        const fresh = makeJob({ tenantId: old.tenantId, documentId: old.documentId, appId: old.appId, statusInt: JobState.Received });
        await b.store.put(fresh);
        expect(await b.store.transition(old, JobState.Processing)).toBeNull();
        // even a move that would be illegal for the stored record: the stale worker just loses
        expect(await b.store.transition(old, JobState.Completed)).toBeNull();
        expect(await b.store.get(old.tenantId, old.documentId)).toEqual(fresh);
        expect(await b.store.transition({ tenantId: 'nobody', documentId: 'nothing', generation: 'g' }, JobState.Queued)).toBeNull();
      });

      it('concurrent transitions of the same job: exactly one wins', async () => {
        const job = makeJob({ statusInt: JobState.Queued });
        await b.store.put(job);
        const stores = [b.store];
        if (factory.openPeerStore) stores.push(await factory.openPeerStore(b));
        try {
          const results = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => stores[i % stores.length].transition(job, JobState.Processing)));
          expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
          for (const r of results) {
            if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(IllegalTransitionError);
          }
        } finally {
          for (const s of stores.slice(1)) await s.close();
        }
      });

      it('expired records are invisible but listed by listExpired, oldest first, up to limit', async () => {
        const tenantId = 't-exp-' + randomUUID();
        const now = Date.now();
        const e1 = makeJob({ tenantId, expiresAt: new Date(now - 3000).toISOString(), statusInt: JobState.Completed, artifactKey: 'artifacts/e1' });
        const e2 = makeJob({ tenantId, expiresAt: new Date(now - 2000).toISOString(), statusInt: JobState.Processing });
        const e3 = makeJob({ tenantId, expiresAt: new Date(now - 1000).toISOString(), statusInt: JobState.Failed });
        const live = makeJob({ tenantId });
        for (const j of [e3, live, e1, e2]) await b.store.put(j);

        expect(await b.store.get(tenantId, e1.documentId)).toBeNull();
        expect(await b.store.getMany(tenantId, [e2.documentId, live.documentId])).toEqual([null, live]);
        expect(await b.store.transition(e2, JobState.Retrying)).toBeNull();

        const mine = (list: JobRecord[]) => list.filter((j) => j.tenantId === tenantId);
        const all = mine(await b.store.listExpired(new Date(), 1000));
        expect(all).toEqual([e1, e2, e3]);
        const limited = await b.store.listExpired(new Date(), 2);
        expect(limited).toHaveLength(2);
        expect(mine(await b.store.listExpired(new Date(now - 2500), 1000))).toEqual([e1]);

        // the sweep deletes by generation: a newer upload of the same id is not touched
        const replaced = makeJob({ tenantId, documentId: e3.documentId });
        expect(await b.store.put(replaced)).toEqual(e3);
        await b.store.delete(tenantId, e3.documentId, e3.generation);
        expect(await b.store.get(tenantId, e3.documentId)).toEqual(replaced);

        await b.store.delete(tenantId, e1.documentId, e1.generation);
        await b.store.delete(tenantId, e2.documentId);
        expect(mine(await b.store.listExpired(new Date(), 1000))).toEqual([]);
      });

      it('delete removes the record', async () => {
        const job = makeJob();
        await b.store.put(job);
        await b.store.delete(job.tenantId, job.documentId);
        expect(await b.store.get(job.tenantId, job.documentId)).toBeNull();
        await b.store.delete(job.tenantId, job.documentId); // idempotent
      });

      it('countUnfinished counts states 0–7 of one app, unexpired; listUnfinished lists them', async () => {
        const appId = 'app-' + randomUUID();
        const other = 'app-' + randomUUID();
        const past = new Date(Date.now() - 1000).toISOString();
        const jobs = {
          session: makeJob({ appId, statusInt: JobState.NotQueued }),
          received: makeJob({ appId, statusInt: JobState.Received }),
          queued: makeJob({ appId, statusInt: JobState.Queued, lane: 'heavy' }),
          done: makeJob({ appId, statusInt: JobState.Completed }),
          failed: makeJob({ appId, statusInt: JobState.Failed }),
          expired: makeJob({ appId, statusInt: JobState.Processing, expiresAt: past }),
          otherApp: makeJob({ appId: other, statusInt: JobState.Processing }),
        };
        for (const j of Object.values(jobs)) await b.store.put(j);
        expect(await b.store.countUnfinished(appId)).toBe(3);
        expect(await b.store.countUnfinished(other)).toBe(1);
        expect(await b.store.countUnfinished('app-none')).toBe(0);

        const unfinished = (await b.store.listUnfinished()).filter((j) => j.appId === appId || j.appId === other);
        expect(unfinished.map((j) => j.documentId).sort()).toEqual([jobs.session, jobs.received, jobs.queued, jobs.otherApp].map((j) => j.documentId).sort());

        await b.store.transition(jobs.queued, JobState.Failed);
        expect(await b.store.countUnfinished(appId)).toBe(2);
        await b.store.delete(jobs.received.tenantId, jobs.received.documentId);
        expect(await b.store.countUnfinished(appId)).toBe(1);
        // overwriting an unfinished job with a finished one, and moving a job to another app
        await b.store.put({ ...jobs.session, generation: randomUUID(), statusInt: JobState.Completed });
        expect(await b.store.countUnfinished(appId)).toBe(0);
        await b.store.put({ ...jobs.otherApp, appId, generation: randomUUID() });
        expect(await b.store.countUnfinished(appId)).toBe(1);
        expect(await b.store.countUnfinished(other)).toBe(0);
      });

      it('ping answers', async () => {
        await b.store.ping();
      });
    });

    describe('queue', () => {
      function collector() {
        const got: Delivery[] = [];
        return { got, handler: async (d: Delivery) => void got.push(d) };
      }

      it('delivers every enqueued job exactly once, on its lane', async () => {
        const refs = [...Array.from({ length: 12 }, () => makeRef('light')), ...Array.from({ length: 5 }, () => makeRef('heavy'))];
        for (const r of refs.slice(0, 8)) await b.queue.enqueue(r);
        const light = collector();
        const heavy = collector();
        b.queue.consume('light', 3, light.handler);
        b.queue.consume('heavy', 1, heavy.handler);
        for (const r of refs.slice(8)) await b.queue.enqueue(r);
        await waitFor(() => light.got.length + heavy.got.length >= refs.length, 15_000, 'all deliveries');
        await sleep(300);
        expect(light.got.length + heavy.got.length).toBe(refs.length);
        expect(light.got.every((d) => d.ref.lane === 'light' && d.attempt === 1)).toBe(true);
        expect(heavy.got.every((d) => d.ref.lane === 'heavy' && d.attempt === 1)).toBe(true);
        expect([...light.got, ...heavy.got].map((d) => refId(d.ref)).sort()).toEqual(refs.map(refId).sort());
        expect(heavy.got.map((d) => d.ref).sort((x, y) => refId(x).localeCompare(refId(y)))).toEqual(
          refs.filter((r) => r.lane === 'heavy').sort((x, y) => refId(x).localeCompare(refId(y))),
        );
      });

      it('RetryLater redelivers after the delay with attempt + 1', async () => {
        const ref = makeRef();
        const seen: { attempt: number; at: number }[] = [];
        b.queue.consume('light', 1, async (d) => {
          seen.push({ attempt: d.attempt, at: Date.now() });
          if (d.attempt < 3) throw new RetryLater(300, 'provider busy');
        });
        await b.queue.enqueue(ref);
        await waitFor(() => seen.length >= 3, 15_000, 'three attempts');
        await sleep(500);
        expect(seen.map((s) => s.attempt)).toEqual([1, 2, 3]);
        expect(seen[1].at - seen[0].at).toBeGreaterThanOrEqual(250);
        expect(seen[2].at - seen[1].at).toBeGreaterThanOrEqual(250);
        expect(log.entries.filter((e) => e.level === 'error')).toEqual([]);
      });

      it('a handler that throws anything else drops the delivery and logs it', async () => {
        const ref = makeRef();
        let calls = 0;
        b.queue.consume('light', 1, async () => {
          calls++;
          throw new Error('bug in handler');
        });
        await b.queue.enqueue(ref);
        await waitFor(() => log.entries.some((e) => e.level === 'error' && e.msg.includes('dropped')), 15_000, 'error log');
        await sleep(500);
        expect(calls).toBe(1);
        // the same generation can be enqueued again once the delivery is gone
        await b.queue.enqueue(ref);
        await waitFor(() => calls === 2, 15_000, 'second delivery');
      });

      it('honours the concurrency limit', async () => {
        let active = 0;
        let maxActive = 0;
        let done = 0;
        b.queue.consume('heavy', 2, async () => {
          active++;
          maxActive = Math.max(maxActive, active);
          await sleep(150);
          active--;
          done++;
        });
        for (let i = 0; i < 7; i++) await b.queue.enqueue(makeRef('heavy'));
        await waitFor(() => done === 7, 20_000, 'all handlers');
        expect(maxActive).toBe(2);
      });

      it('perTenant: two heavy deliveries of one tenant never hold both slots while another tenant waits; its others wait in order', async () => {
        const tenantA = 't-a-' + randomUUID();
        const tenantB = 't-b-' + randomUUID();
        const ref = (tenantId: string, documentId: string): JobRef => ({ tenantId, documentId, generation: randomUUID(), lane: 'heavy' });
        const [a1, a2, a3, b1] = [ref(tenantA, 'a1'), ref(tenantA, 'a2'), ref(tenantA, 'a3'), ref(tenantB, 'b1')];
        const started: Delivery[] = [];
        const finish = new Map<string, () => void>();
        const running = new Set<string>();
        let twoOfA = false;
        b.queue.consume(
          'heavy',
          2,
          async (d) => {
            started.push(d);
            running.add(d.ref.documentId);
            if (running.has('a1') && running.has('a2')) twoOfA = true;
            await new Promise<void>((r) => finish.set(d.ref.documentId, r));
            running.delete(d.ref.documentId);
          },
          { perTenant: 1 },
        );
        const startedIds = () => started.map((d) => d.ref.documentId);
        const done = async (id: string) => {
          finish.get(id)!();
          await waitFor(() => !running.has(id), 15_000, `${id} to finish`);
        };

        await b.queue.enqueue(a1);
        await waitFor(() => started.length === 1, 15_000, 'a1 to start');
        for (const r of [a2, a3, b1]) await b.queue.enqueue(r);
        // The second slot goes to the other tenant, not to a1's tenant's next delivery.
        await waitFor(() => started.length === 2, 15_000, 'b1 to start');
        await sleep(500);
        expect(startedIds()).toEqual(['a1', 'b1']);

        await done('a1');
        await waitFor(() => started.length === 3, 15_000, 'a2 to start after a1');
        await done('b1');
        await sleep(500);
        expect(startedIds()).toEqual(['a1', 'b1', 'a2']); // a3 waits for a2, though a slot is free
        await done('a2');
        await waitFor(() => started.length === 4, 15_000, 'a3 to start after a2');
        await done('a3');

        expect(startedIds()).toEqual(['a1', 'b1', 'a2', 'a3']);
        expect(started.map((d) => d.ref)).toEqual([a1, b1, a2, a3]);
        expect(started.every((d) => d.attempt === 1)).toBe(true); // waiting is no attempt
        expect(twoOfA).toBe(false);
        expect(log.entries.filter((e) => e.level === 'error')).toEqual([]);
      });

      it('fairness: with 1,000 deliveries of tenant A queued, the one of tenant B is among the first few dispatched', async () => {
        const tenantA = 't-a-' + randomUUID();
        const tenantB = 't-b-' + randomUUID();
        // As the intake enqueues: each with its app's unfinished jobs before it (inFlight).
        for (let i = 0; i < 1000; i++) {
          await b.queue.enqueue({ tenantId: tenantA, documentId: `a${i}`, generation: randomUUID(), lane: 'light' }, { fresh: true, inFlight: i });
        }
        const bRef: JobRef = { tenantId: tenantB, documentId: 'b0', generation: randomUUID(), lane: 'light' };
        await b.queue.enqueue(bRef, { fresh: true, inFlight: 0 });
        const order: string[] = [];
        b.queue.consume('light', 1, async (d) => void order.push(d.ref.documentId));
        await waitFor(() => order.includes('b0'), 30_000, "B's delivery");
        // Embedded: the second (tenants in turns). Redis: after at most one turn of A's
        // (DOCPARSE_QUEUE_FAIR_TURN, 8), the deliveries A had queued when it was within its first turn.
        expect(order.indexOf('b0')).toBeLessThanOrEqual(8);
        // A's own deliveries keep their order.
        const aOrder = order.filter((id) => id !== 'b0');
        expect(aOrder).toEqual(aOrder.map((_, i) => `a${i}`));
      });

      it('enqueue is idempotent per (tenant, document, generation) while pending', async () => {
        const ref = makeRef();
        const sameDocNewGen = { ...ref, generation: randomUUID() };
        await b.queue.enqueue(ref);
        await b.queue.enqueue(ref);
        await b.queue.enqueue({ ...ref });
        await b.queue.enqueue(sameDocNewGen);
        expect((await b.queue.depth()).waiting).toBe(2);

        let release!: () => void;
        const gate = new Promise<void>((r) => (release = r));
        const got: Delivery[] = [];
        b.queue.consume('light', 1, async (d) => {
          got.push(d);
          if (refId(d.ref) === refId(ref)) await gate;
        });
        await waitFor(() => got.length >= 1, 15_000, 'first delivery');
        await b.queue.enqueue(ref); // active: still pending
        release();
        await waitFor(() => got.length >= 2, 15_000, 'second delivery');
        await sleep(500);
        expect(got.map((d) => refId(d.ref)).sort()).toEqual([refId(ref), refId(sameDocNewGen)].sort());

        // acknowledged: a new enqueue of the same generation is a new delivery (recovery)
        await b.queue.enqueue(ref);
        await waitFor(() => got.length >= 3, 15_000, 'third delivery');
        expect(refId(got[2].ref)).toBe(refId(ref));
        expect(got[2].attempt).toBe(1);
      });

      it('depth counts waiting, active and delayed deliveries, in all and lane by lane', async () => {
        expect(await b.queue.depth()).toEqual({ waiting: 0, active: 0, delayed: 0 });
        for (let i = 0; i < 3; i++) await b.queue.enqueue(makeRef('light'));
        for (let i = 0; i < 2; i++) await b.queue.enqueue(makeRef('heavy'));
        expect(await b.queue.depth()).toEqual({ waiting: 5, active: 0, delayed: 0 });

        let release!: () => void;
        const gate = new Promise<void>((r) => (release = r));
        let started = 0;
        b.queue.consume('heavy', 1, async (d) => {
          started++;
          if (d.attempt === 1 && started === 1) throw new RetryLater(60_000, 'later');
          await gate;
        });
        await waitFor(
          async () => {
            const d = await b.queue.depth();
            return d.delayed === 1 && d.active === 1;
          },
          15_000,
          'one delayed, one active',
        );
        expect(await b.queue.depth()).toEqual({ waiting: 3, active: 1, delayed: 1 });
        // Lane by lane: the light deliveries wait; the heavy lane holds the active and the delayed one.
        expect(await b.queue.depthByLane()).toEqual({ light: { waiting: 3, active: 0, delayed: 0 }, heavy: { waiting: 0, active: 1, delayed: 1 } });
        release();
        await waitFor(async () => (await b.queue.depth()).active === 0, 15_000, 'idle heavy lane');
        expect(await b.queue.depth()).toEqual({ waiting: 3, active: 0, delayed: 1 });
      });

      it('stopConsuming waits for running handlers and starts no other; enqueue still works', async () => {
        const started: string[] = [];
        let finished = false;
        b.queue.consume('light', 1, async (d) => {
          started.push(d.ref.documentId);
          await sleep(400);
          finished = true;
        });
        const first = makeRef();
        await b.queue.enqueue(first);
        await waitFor(() => started.length === 1, 15_000, 'handler start');
        await b.queue.enqueue(makeRef());
        await b.queue.stopConsuming();
        expect(finished).toBe(true);
        await b.queue.enqueue(makeRef());
        await sleep(500);
        expect(started).toEqual([first.documentId]);
        expect((await b.queue.depth()).waiting).toBeGreaterThanOrEqual(2);
      });

      it('close waits for running handlers', async () => {
        let finished = false;
        let started = false;
        b.queue.consume('light', 1, async () => {
          started = true;
          await sleep(400);
          finished = true;
        });
        await b.queue.enqueue(makeRef());
        await waitFor(() => started, 15_000, 'handler start');
        await b.queue.close();
        expect(finished).toBe(true);
      });
    });

    describe('rate counters', () => {
      it('adds within a window and keeps keys and window sizes apart', async () => {
        const k = 'rc-' + randomUUID();
        expect(await b.counters.addToWindow(k, 1, 3600)).toBe(1);
        expect(await b.counters.addToWindow(k, 4, 3600)).toBe(5);
        expect(await b.counters.addToWindow(k + 'x', 2, 3600)).toBe(2);
        expect(await b.counters.addToWindow(k, 1, 7200)).toBe(1);
        expect(await b.counters.addToWindow(k, 0, 3600)).toBe(5);
      });

      it('concurrent adds are atomic', async () => {
        const k = 'rc-' + randomUUID();
        const totals = await Promise.all(Array.from({ length: 50 }, () => b.counters.addToWindow(k, 1, 3600)));
        expect(totals.slice().sort((x, y) => x - y)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
      });

      it('starts a new window once the old one has passed', async () => {
        const k = 'rc-' + randomUUID();
        expect(await b.counters.addToWindow(k, 5, 1)).toBe(5);
        await sleep(1100);
        expect(await b.counters.addToWindow(k, 1, 1)).toBe(1);
      });

      it('reserveInWindow takes one slot in every counter, or none when one is full', async () => {
        const a = 'rc-' + randomUUID();
        const c = 'rc-' + randomUUID();
        const first = await b.counters.reserveInWindow(
          [
            { key: a, limit: 2 },
            { key: c, limit: 5 },
          ],
          3600,
        );
        expect(first).toEqual({ taken: true, window: expect.any(Number) });
        expect(
          await b.counters.reserveInWindow(
            [
              { key: a, limit: 2 },
              { key: c, limit: 5 },
            ],
            3600,
          ),
        ).toMatchObject({ taken: true });
        // a is full: nothing is taken, not even in c.
        expect(
          await b.counters.reserveInWindow(
            [
              { key: c, limit: 5 },
              { key: a, limit: 2 },
            ],
            3600,
          ),
        ).toEqual({ taken: false, fullKey: a });
        expect(await b.counters.addToWindow(a, 0, 3600)).toBe(2);
        expect(await b.counters.addToWindow(c, 0, 3600)).toBe(2);
        // Slots are the counters addToWindow adds to, per window size.
        await b.counters.addToWindow(c, 3, 3600);
        expect(await b.counters.reserveInWindow([{ key: c, limit: 5 }], 3600)).toEqual({ taken: false, fullKey: c });
        expect(await b.counters.reserveInWindow([{ key: c, limit: 5 }], 7200)).toMatchObject({ taken: true });
      });

      it('concurrent reservations never pass the limit', async () => {
        const k = 'rc-' + randomUUID();
        const other = 'rc-' + randomUUID();
        const results = await Promise.all(
          Array.from({ length: 60 }, () =>
            b.counters.reserveInWindow(
              [
                { key: other, limit: 1000 },
                { key: k, limit: 10 },
              ],
              3600,
            ),
          ),
        );
        expect(results.filter((r) => r.taken)).toHaveLength(10);
        expect(results.filter((r) => !r.taken).every((r) => !r.taken && r.fullKey === k)).toBe(true);
        expect(await b.counters.addToWindow(k, 0, 3600)).toBe(10);
        expect(await b.counters.addToWindow(other, 0, 3600)).toBe(10);
      });

      it('releaseInWindow gives slots back in their window, never below zero', async () => {
        const k = 'rc-' + randomUUID();
        const r = await b.counters.reserveInWindow([{ key: k, limit: 1 }], 3600);
        if (!r.taken) throw new Error('expected a slot');
        expect(await b.counters.reserveInWindow([{ key: k, limit: 1 }], 3600)).toMatchObject({ taken: false });
        await b.counters.releaseInWindow([k], 3600, r.window);
        expect(await b.counters.addToWindow(k, 0, 3600)).toBe(0);
        await b.counters.releaseInWindow([k, 'rc-never-' + randomUUID()], 3600, r.window);
        expect(await b.counters.addToWindow(k, 0, 3600)).toBe(0);
        expect(await b.counters.reserveInWindow([{ key: k, limit: 1 }], 3600)).toMatchObject({ taken: true });
      });

      it('a release for a window that has ended does not credit the current one', async () => {
        const k = 'rc-' + randomUUID();
        const r = await b.counters.reserveInWindow([{ key: k, limit: 5 }], 3600);
        if (!r.taken) throw new Error('expected a slot');
        await b.counters.releaseInWindow([k], 3600, r.window - 1);
        expect(await b.counters.addToWindow(k, 0, 3600)).toBe(1);
      });
    });
  });
}
