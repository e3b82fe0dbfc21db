// Live status and cancel over real HTTP, run against the embedded mode and the PostgreSQL +
// Redis mode: the event stream (every state in order, Last-Event-ID, tenant isolation), the
// long poll, `Prefer: wait`, progress, and cancel of a waiting job, a running OCR job (nothing charged,
// units released, its slot free for the next job) and a finished one (result deleted).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, createTestEnv, destroyTestEnv, getToken, startTestNode, waitFor, type Mode, type TestEnv, type TestNode } from '../helpers/node.js';
import { collectStates, nextEvent, openSse } from '../helpers/sse.js';
import { pagesPdf, scannedPdf } from '../helpers/pdfs.js';
import { canTransition } from '../../src/jobs/transitions.js';
import { monthOf } from '../../src/tenancy/month.js';

interface Status {
  documentId: string;
  status: string;
  statusInt: number;
  startedAt: string | null;
  documentUnits: number | null;
  error?: { code: string; message: string; stage: string };
  resultDeleted?: boolean;
}

const CSV = 'city,lat,lon\nParis,48.85,2.35\nLyon,45.76,4.83\n';

export function liveStatusSuite(mode: Mode): void {
  describe(`live status and cancel (${mode})`, () => {
    let env: TestEnv;
    let n: TestNode;
    let token: string;
    let app: { clientId: string; clientSecret: string; appId: string; tenantId: string };

    const api = (p: string, init: RequestInit = {}, tok = token) =>
      fetch(`${n.url}${p}`, { ...init, headers: { authorization: `Bearer ${tok}`, ...(init.headers ?? {}) } });
    const upload = (query: Record<string, string>, body: Buffer | string, headers: Record<string, string> = {}, tok = token) =>
      api(`/api/v1/documents/upload?${new URLSearchParams(query)}`, { method: 'POST', body, headers }, tok);
    const status = async (id: string, tok = token): Promise<Status> => (await (await api(`/api/v1/documents/${id}/status`, {}, tok)).json()) as Status;
    const settled = (id: string) => waitFor(async () => ((s) => (s.statusInt >= 8 ? s : null))(await status(id)), `job ${id} to finish`, 120_000);
    const events = (id: string, opts: { lastEventId?: string } = {}, tok = token) => openSse(`${n.url}/api/v1/documents/${id}/events`, tok, opts);
    const committed = () => n.node.quota.committed(app.appId, monthOf(new Date()));

    beforeAll(async () => {
      // One heavy slot: a second OCR job of the tenant runs only once the first has let go of it.
      env = await createTestEnv(mode, { DOCPARSE_RETENTION_SECONDS: '3600', DOCPARSE_WORKER_THREADS: '2', DOCPARSE_HEAVY_SLOTS: '1' });
      n = await startTestNode(env);
      app = await createApp(n.node, { ocrPdfExtraction: true, maxDocumentUnitsPerMonth: 10_000, maxConcurrentJobs: 16 });
      token = await getToken(n.url, app.clientId, app.clientSecret);
    });
    afterAll(async () => {
      await n?.close();
      if (env) await destroyTestEnv(env);
    });

    it('streams every state of an OCR job in order, each with an id, and ends after the terminal one; Last-Event-ID resumes', async () => {
      const res = await upload({ fileName: 'scan.pdf', pdfMode: 'Ocr', documentId: 'sse-1' }, pagesPdf(4));
      expect(res.status).toBe(202);
      const stream = await events('sse-1');
      expect(stream.status).toBe(200);
      expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const { states } = await collectStates(stream);
      const path = states.map((s) => s.statusInt);
      expect(path.at(-1)).toBe(8);
      // Nothing skipped, nothing twice: every step is a legal transition from the one before.
      for (let i = 1; i < path.length; i++) expect(canTransition(path[i - 1], path[i]), `${path[i - 1]} → ${path[i]} in ${path}`).toBe(true);
      expect(new Set(states.map((s) => s.id)).size).toBe(states.length);
      expect(states.at(-1)!.body).toMatchObject({ documentId: 'sse-1', status: 'completed', documentUnits: 4 });

      // Resumed after the last event: nothing new, the stream ends at once.
      expect((await collectStates(await events('sse-1', { lastEventId: states.at(-1)!.id }))).states).toEqual([]);
      // Resumed after an earlier one (or a made-up id): the current state.
      const resumed = await collectStates(await events('sse-1', { lastEventId: states[0].id === states.at(-1)!.id ? 'x' : states[0].id }));
      expect(resumed.states.map((s) => s.statusInt)).toEqual([8]);
    });

    it("another tenant's job and an unknown id are 404; no token is 401", async () => {
      await upload({ fileName: 'a.csv', csvRoute: 'Tabular', documentId: 'mine-1' }, CSV);
      const other = await createApp(n.node, null);
      const otherToken = await getToken(n.url, other.clientId, other.clientSecret);
      expect((await events('mine-1', {}, otherToken)).status).toBe(404);
      expect((await events('nope')).status).toBe(404);
      expect((await fetch(`${n.url}/api/v1/documents/mine-1/events`)).status).toBe(401);
      expect((await api('/api/v1/documents/mine-1', { method: 'DELETE' }, otherToken)).status).toBe(404);
      expect((await api('/api/v1/documents/mine-1/cancel', { method: 'POST' }, otherToken)).status).toBe(404);
      expect((await status('mine-1')).statusInt).not.toBe(9);
    });

    it('long poll: waitSeconds answers once the job has ended; over 60 or not a number is 400 naming the field', async () => {
      for (const bad of ['61', 'soon', '-1']) {
        const res = await api(`/api/v1/documents/mine-1/status?waitSeconds=${bad}`);
        expect(res.status).toBe(400);
        expect(await res.json()).toMatchObject({ code: 'invalid_parameter', parameter: 'waitSeconds' });
      }
      const res = await upload({ fileName: 'scan.pdf', pdfMode: 'Ocr', documentId: 'poll-1' }, pagesPdf(2));
      expect(res.status).toBe(202);
      const polled = (await (await api('/api/v1/documents/poll-1/status?waitSeconds=60')).json()) as Status;
      expect(polled.statusInt).toBe(8);
      expect((await api('/api/v1/documents/nope/status?waitSeconds=1')).status).toBe(404);
    });

    it('Prefer: wait=N answers 200 with the result inline when the job finishes in time, 202 without it or when it does not', async () => {
      const res = await upload({ fileName: 'a.csv', csvRoute: 'Tabular', documentId: 'inline-1' }, CSV, { prefer: 'wait=30' });
      expect(res.status).toBe(200);
      expect(res.headers.get('preference-applied')).toBe('wait=30');
      const artifact = (await res.json()) as { document_format: string; document_units: number };
      expect(artifact).toMatchObject({ document_format: 'csv' });
      const plain = await upload({ fileName: 'a.csv', csvRoute: 'Tabular', documentId: 'inline-2' }, CSV);
      expect(plain.status).toBe(202);
      expect(plain.headers.get('preference-applied')).toBeNull();
      // A job that takes longer than the wait: the usual 202 once the wait is over.
      const slow = await upload({ fileName: 'slow.pdf', pdfMode: 'Ocr', documentId: 'inline-slow' }, scannedPdf(20), { prefer: 'wait=1' });
      expect(slow.status).toBe(202);
      expect(await slow.json()).toMatchObject({ documentId: 'inline-slow', statusInt: 2 });
      expect((await api('/api/v1/documents/inline-slow', { method: 'DELETE' })).status).toBe(200);
    });

    it('cancel of a running OCR job: stopped, failed with code cancelled, units released, nothing charged, the slot free for the next job', async () => {
      const pages = 100; // scanned pages, seconds of OCR each: minutes in all
      await waitFor(async () => (await n.node.jobs.store.countUnfinished(app.appId)) === 0, "the earlier tests' jobs to finish");
      const before = await committed(); // what the earlier tests' jobs were charged
      expect((await upload({ fileName: 'long.pdf', pdfMode: 'Ocr', documentId: 'long-1' }, scannedPdf(pages))).status).toBe(202);
      // A second OCR job of the tenant waits for the one heavy slot.
      expect((await upload({ fileName: 'next.pdf', pdfMode: 'Ocr', documentId: 'waiting-1' }, pagesPdf(1))).status).toBe(202);
      // Running, its pages held against the quota.
      await waitFor(
        async () => (await status('long-1')).statusInt === 7 && (await committed()) >= before + pages,
        'the OCR job to run and hold its units',
        60_000,
      );
      expect((await status('waiting-1')).statusInt).toBe(6);
      // Its event stream tells how far it is: pages done of the total, at most once a second.
      const stream = await events('long-1');
      const progress = await nextEvent(stream, 'progress');
      expect(progress).toMatchObject({ total: pages, fraction: expect.any(Number), done: expect.any(Number) });
      expect(progress.done as number).toBeLessThanOrEqual(pages);

      // The waiting one first: it never starts.
      const w = await api('/api/v1/documents/waiting-1/cancel', { method: 'POST' });
      expect(w.status).toBe(200);
      expect(await w.json()).toMatchObject({ statusInt: 9, startedAt: null, error: { code: 'cancelled' } });

      const res = await api('/api/v1/documents/long-1', { method: 'DELETE' });
      expect(res.status).toBe(200);
      const cancelled = (await res.json()) as Status;
      expect(cancelled).toMatchObject({ status: 'failed', statusInt: 9, error: { code: 'cancelled', stage: 'cancel' } });
      expect(await committed()).toBe(before);
      // The stream ends with the cancelled state.
      const rest = await collectStates(stream);
      expect(rest.states.at(-1)!.body).toMatchObject({ statusInt: 9, error: { code: 'cancelled' } });
      // The parse itself stops: the parsing process holds no task any more.
      await waitFor(async () => n.node.pool!.stats().running === 0, 'the parse to stop', 20_000);
      // Idempotent: the same answer again, by either route.
      expect(await (await api('/api/v1/documents/long-1', { method: 'DELETE' })).json()).toMatchObject({ statusInt: 9, error: { code: 'cancelled' } });
      expect((await api('/api/v1/documents/long-1/cancel', { method: 'POST' })).status).toBe(200);
      const result = await api('/api/v1/documents/long-1/result');
      expect(result.status).toBe(422);
      expect(await result.json()).toMatchObject({ code: 'cancelled' });

      // The heavy slot is free: the next OCR job runs and completes; only it is charged.
      expect((await upload({ fileName: 'after.pdf', pdfMode: 'Ocr', documentId: 'after-1' }, pagesPdf(1))).status).toBe(202);
      expect((await settled('after-1')).statusInt).toBe(8);
      const usage = await n.node.controlPlane.listUsage({ appId: app.appId });
      expect(usage.filter((u) => u.documentId === 'long-1' || u.documentId === 'waiting-1')).toEqual([]);
      expect(await committed()).toBe(before + 1);
      expect((await status('long-1')).statusInt).toBe(9); // the stopped run did not come back
    });

    it('cancel of a finished job deletes its result early; again it is 404', async () => {
      await upload({ fileName: 'a.csv', csvRoute: 'Tabular', documentId: 'done-1' }, CSV);
      await settled('done-1');
      const res = await api('/api/v1/documents/done-1', { method: 'DELETE' });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ statusInt: 8, resultDeleted: true });
      expect((await api('/api/v1/documents/done-1/result')).status).toBe(404);
      expect((await api('/api/v1/documents/done-1/status')).status).toBe(404);
      expect((await api('/api/v1/documents/done-1', { method: 'DELETE' })).status).toBe(404);
    });
  });
}
