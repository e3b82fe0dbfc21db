// Live status: a job's state changes as Server-Sent Events (GET …/events), the long poll of
// the status endpoint (?waitSeconds=N), and `Prefer: wait=N` on the direct upload. All listen
// to the job event feed (jobs/events.ts), which follows a job only while someone waits on it.
import { Type } from '@sinclair/typebox';
import type { Logger } from 'pino';
import type { Reply, RouteDef } from '../http/route.js';
import { problems } from '../http/problem.js';
import type { JobEvents, JobEvent } from '../jobs/events.js';
import { isTerminal } from '../jobs/transitions.js';
import { JobState, STATUS_NAMES, type JobRecord, type JobStore } from '../jobs/types.js';
import type { BlobRouter } from '../storage/router.js';
import { statusOf } from './documents.js';
import { DocumentIdParams, JobStatusSchema } from './schemas.js';
import { isPendingSessionId } from './uploads.js';
import { LiveStream } from './live-stream.js';

/** Longest wait a long poll or `Prefer: wait` may ask for (s). */
export const MAX_WAIT_SECONDS = 60;
export const HEARTBEAT_MS = 15_000;
export const MAX_UNSENT_BYTES = 64 * 1024;

export interface LiveStatusDeps {
  jobs: JobStore;
  events: JobEvents;
  blobs: BlobRouter;
  logger: Logger;
  heartbeatMs?: number;
  maxUnsentBytes?: number;
}

/** The tenant's job for a document id; the records of upload sessions are no documents. */
export function jobOf(jobs: JobStore, tenantId: string, documentId: string): Promise<JobRecord | null> {
  return isPendingSessionId(documentId) ? Promise.resolve(null) : jobs.get(tenantId, documentId);
}

/**
 * Waits until `done(job)` holds, the job is gone, `ms` pass or `signal` aborts; returns the job as
 * it stands then. Listens to the job's events only for the time it waits.
 */
export async function waitForJob(
  d: Pick<LiveStatusDeps, 'jobs' | 'events'>,
  tenantId: string,
  documentId: string,
  done: (job: JobRecord) => boolean,
  ms: number,
  signal?: AbortSignal,
): Promise<JobRecord | null> {
  let changed: boolean;
  let wake: (() => void) | null = null;
  const stop = await d.events.follow(tenantId, documentId, (e) => {
    if (e.kind !== 'state') return;
    changed = true;
    wake?.();
  });
  const deadline = Date.now() + ms;
  try {
    for (;;) {
      changed = false;
      const job = await jobOf(d.jobs, tenantId, documentId);
      const left = deadline - Date.now();
      if (!job || done(job) || left <= 0 || signal?.aborted) return job;
      if (changed) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => wake?.(), left);
        const onAbort = () => wake?.();
        signal?.addEventListener('abort', onAbort, { once: true });
        wake = () => {
          wake = null;
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          resolve();
        };
      });
    }
  } finally {
    stop();
  }
}

/** An event id: which generation, which state, when (a resumed stream compares it with the job's current one). */
export function eventIdOf(job: Pick<JobRecord, 'generation' | 'statusInt' | 'updatedAt'>): string {
  return `${job.generation}.${job.statusInt}.${Date.parse(job.updatedAt)}`;
}

/** A `Prefer` header's `wait=N` (RFC 7240), or null. */
export function preferredWait(prefer: string | undefined): number | null {
  if (!prefer) return null;
  const m = /(?:^|[,;\s])wait\s*=\s*"?(\d+)"?/i.exec(prefer);
  return m ? Math.min(MAX_WAIT_SECONDS, Number(m[1])) : null;
}

export class LiveStatus {
  private readonly streams = new Set<LiveStream>();

  constructor(private readonly d: LiveStatusDeps) {}

  /** Ends every open stream (a node that drains): clients reconnect, elsewhere, with Last-Event-ID. */
  endStreams(): void {
    for (const s of [...this.streams]) s.end();
  }

  /** The SSE route, the status route with its long poll and the upload with `Prefer: wait`. */
  routes(documentRoutes: RouteDef[]): RouteDef[] {
    return [...documentRoutes.map((r) => this.extend(r)), this.eventsRoute()];
  }

  private extend(route: RouteDef): RouteDef {
    if (route.operationId === 'getDocumentStatus') return this.longPoll(route);
    if (route.operationId === 'uploadDocument') return this.preferWait(route);
    return route;
  }

  private longPoll(route: RouteDef): RouteDef {
    return {
      ...route,
      description: `With \`waitSeconds\` (at most ${MAX_WAIT_SECONDS}), answers once the job is completed or failed, or when that many seconds have passed, whichever comes first.`,
      query: Type.Object({
        waitSeconds: Type.Optional(
          Type.Integer({ minimum: 0, maximum: MAX_WAIT_SECONDS, description: 'Long poll: answer when the job ends or after this many seconds.' }),
        ),
      }),
      handler: async (ctx) => {
        const wait = (ctx.query as { waitSeconds?: number }).waitSeconds;
        if (wait) {
          const { tenantId } = ctx.principal!;
          const id = ctx.params.documentId;
          const job = await jobOf(this.d.jobs, tenantId, id);
          if (job && !isTerminal(job.statusInt)) await waitForJob(this.d, tenantId, id, (j) => isTerminal(j.statusInt), wait * 1000, ctx.signal);
        }
        // The plain status route answers, whatever else it adds (the webhook's delivery).
        return route.handler(ctx);
      },
    };
  }

  private preferWait(route: RouteDef): RouteDef {
    return {
      ...route,
      description: `With \`Prefer: wait=N\` (N at most ${MAX_WAIT_SECONDS}), answers 200 with the result itself when the job completes within N seconds (\`Preference-Applied: wait=N\`), the job's failure (422) when it fails within them, and the usual 202 otherwise.`,
      responses: {
        ...route.responses,
        200: {
          description: 'With `Prefer: wait=N`: the job completed within N seconds; the body is its result.',
          contentType: 'application/json',
          headers: { 'Preference-Applied': { description: '`wait=N`, as asked.', schema: Type.String() } },
        },
      },
      errors: [...(route.errors ?? []), 'extraction_failed'],
      options: { ...route.options, headers: route.options?.headers ?? {}, corsAllowHeaders: [...(route.options?.corsAllowHeaders ?? []), 'Prefer'] },
      handler: async (ctx) => {
        const wait = preferredWait(ctx.headers.prefer);
        const accepted = await route.handler(ctx);
        if (wait === null || wait === 0 || accepted.status !== 202 || !('json' in accepted)) return accepted;
        const { documentId } = accepted.json as { documentId: string };
        const { tenantId } = ctx.principal!;
        const job = await waitForJob(this.d, tenantId, documentId, (j) => isTerminal(j.statusInt), wait * 1000, ctx.signal);
        const applied = { 'Preference-Applied': `wait=${wait}` };
        if (job?.statusInt === JobState.Failed) {
          const err = problems.jobFailed(job.documentId, job.error ?? { code: 'extraction_failed', message: 'extraction failed', stage: 'extract' });
          Object.assign(err.headers, applied);
          throw err;
        }
        if (job?.statusInt === JobState.Completed && job.artifactKey) {
          const blob = await (await this.d.blobs.for(job.storageConfigId)).read(job.artifactKey);
          if (blob)
            return { status: 200, headers: { ...accepted.headers, ...applied }, stream: blob.stream, length: blob.size, contentType: 'application/json' };
        }
        return accepted;
      },
    };
  }

  private eventsRoute(): RouteDef {
    return {
      method: 'GET',
      path: '/api/v1/documents/:documentId/events',
      operationId: 'getDocumentEvents',
      summary: "A job's state changes and progress, live (Server-Sent Events)",
      description:
        'A `text/event-stream`: a `state` event for the current state and each change after it (data: the status object; `id` for `Last-Event-ID`), ' +
        '`progress` events while parsing (`{fraction, done, total}`: `done` of `total` Document Units once the parser has counted them, at most one a second), a comment every 15 s, and the end of the stream after `completed` or `failed`. ' +
        'Reconnecting with `Last-Event-ID` resumes from the current state: it is sent unless it is the event named. ' +
        'A client that leaves more than 64 KiB unsent is disconnected.',
      tags: ['documents'],
      auth: 'bearer',
      params: DocumentIdParams,
      responses: {
        200: { description: 'The event stream (each `state` event carries the status object).', contentType: 'text/event-stream', schema: JobStatusSchema },
      },
      errors: ['document_not_found'],
      // A browser resuming with fetch sends Last-Event-ID (EventSource cannot send the token).
      options: { headers: {}, corsAllowHeaders: ['Last-Event-ID'] },
      handler: (ctx) => this.openStream(ctx.principal!.tenantId, ctx.params.documentId, ctx.headers['last-event-id']),
    };
  }

  private async openStream(tenantId: string, documentId: string, lastEventId: string | undefined): Promise<Reply> {
    const d = this.d;
    // Events that come while the job is read or a terminal state is looked up wait their turn.
    let queue: Promise<void> = Promise.resolve();
    let lastSent = lastEventId ?? null;
    /** Generation and state last sent: a record rewritten in the same state (a session's bytes arriving) is no change. */
    let lastState: string | null = null;
    let unfollow: (() => void) | null = null;
    const stream: LiveStream = new LiveStream({
      heartbeatMs: d.heartbeatMs ?? HEARTBEAT_MS,
      maxUnsentBytes: d.maxUnsentBytes ?? MAX_UNSENT_BYTES,
      // A message lost while the subscriber reconnected is made up for here.
      onHeartbeat: () => enqueue(() => sendCurrent()),
      onClose: () => {
        this.streams.delete(stream);
        unfollow?.();
      },
    });
    const enqueue = (step: () => Promise<void>) => {
      queue = queue.then(step).catch((err) => {
        d.logger.warn({ err, documentId }, 'live status: could not read the job');
        stream.end();
      });
    };
    const sendState = (job: JobRecord) => {
      const id = eventIdOf(job);
      if (id === lastSent || `${job.generation}.${job.statusInt}` === lastState) return;
      lastSent = id;
      lastState = `${job.generation}.${job.statusInt}`;
      stream.event('state', { ...statusOf(job), updatedAt: job.updatedAt }, id);
    };
    const sendCurrent = async () => {
      if (!stream.open) return;
      const job = await jobOf(d.jobs, tenantId, documentId);
      if (!job) return stream.end(); // expired or deleted
      sendState(job);
      if (isTerminal(job.statusInt)) stream.end();
    };
    const onEvent = (e: JobEvent) => {
      if (e.kind === 'progress') {
        if (stream.open) stream.event('progress', { fraction: e.fraction, done: e.done, total: e.total });
        return;
      }
      enqueue(async () => {
        if (!stream.open) return;
        // The full record only for an ending (its error, units, completion time); a step is sent as it came.
        if (isTerminal(e.statusInt)) return sendCurrent();
        if (eventIdOf(e) === lastSent || `${e.generation}.${e.statusInt}` === lastState) return;
        lastSent = eventIdOf(e);
        lastState = `${e.generation}.${e.statusInt}`;
        stream.event('state', { documentId, status: STATUS_NAMES[e.statusInt], statusInt: e.statusInt, updatedAt: e.updatedAt }, lastSent);
      });
    };
    unfollow = await d.events.follow(tenantId, documentId, onEvent);
    let job: JobRecord | null;
    try {
      job = await jobOf(d.jobs, tenantId, documentId);
    } catch (err) {
      stream.end();
      throw err;
    }
    if (!job) {
      stream.end();
      throw problems.documentNotFound(documentId);
    }
    this.streams.add(stream);
    stream.retry(2000);
    const first = job;
    enqueue(async () => {
      sendState(first);
      if (isTerminal(first.statusInt)) stream.end();
    });
    return {
      status: 200,
      headers: { 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no' },
      stream: stream.readable,
      contentType: 'text/event-stream; charset=utf-8',
    };
  }
}
