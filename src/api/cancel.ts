// Cancel: DELETE /api/v1/documents/{documentId} and POST …/cancel (the same call, for clients
// that cannot send DELETE). A job that waits or is parsed ends failed with code `cancelled`
// through the one ending path (pipeline/job-ending.ts): its parse stopped, its slot freed, its
// held units released, nothing charged. A finished job's result and upload are deleted at once
// instead of at expiry. Idempotent: a cancelled job answers the same again; a deleted one 404.
import type { Logger } from 'pino';
import type { RouteDef, RequestContext, Reply } from '../http/route.js';
import { problems } from '../http/problem.js';
import { CANCELLABLE_STATES, isTerminal } from '../jobs/transitions.js';
import { JobState, type JobRecord, type JobStore } from '../jobs/types.js';
import type { JobEvents } from '../jobs/events.js';
import type { JobEnding } from '../pipeline/job-ending.js';
import { statusOf } from './documents.js';
import { DocumentIdParams, JobStatusSchema } from './schemas.js';
import { jobOf, waitForJob } from './live-status.js';

export interface CancelDeps {
  jobs: JobStore;
  events: JobEvents;
  ending: JobEnding;
  /** Deletes a job's blobs (upload, result, parts): Intake.deleteBlobs. */
  deleteBlobs(job: JobRecord): Promise<void>;
  logger: Logger;
}

/** How long a cancel waits for a job that is storing its result (4) to finish (ms). */
const MATERIALIZING_WAIT_MS = 30_000;

export function cancelRoutes(d: CancelDeps): RouteDef[] {
  const common = {
    tags: ['documents'],
    auth: 'bearer' as const,
    params: DocumentIdParams,
    description:
      'A queued or running job is stopped (its parse aborted, its slot freed), its held Document Units released, nothing charged; it ends `failed` with `error.code` `cancelled`. ' +
      "A finished job's result is deleted now instead of at expiry (`resultDeleted: true`; the id then answers 404). " +
      "A job storing its result is let finish first, then treated as finished. Cancelling again answers the same; another tenant's job is 404.",
    responses: {
      200: { description: "The job's status after the cancel (with `resultDeleted: true` when a finished job's result was deleted).", schema: JobStatusSchema },
    },
    errors: ['document_not_found'] as const,
    handler: (ctx: RequestContext) => cancel(d, ctx.principal!.tenantId, ctx.params.documentId),
  };
  return [
    {
      ...common,
      method: 'DELETE',
      path: '/api/v1/documents/:documentId',
      operationId: 'cancelDocument',
      summary: 'Cancel a job, or delete a finished one early',
    },
    {
      ...common,
      method: 'POST',
      path: '/api/v1/documents/:documentId/cancel',
      operationId: 'cancelDocumentPost',
      summary: 'Cancel a job (the same as DELETE)',
    },
  ];
}

async function cancel(d: CancelDeps, tenantId: string, documentId: string): Promise<Reply> {
  for (;;) {
    let job = await jobOf(d.jobs, tenantId, documentId);
    if (!job) throw problems.documentNotFound(documentId);
    if (CANCELLABLE_STATES.includes(job.statusInt)) {
      const ended = await d.ending.cancel(job);
      if (ended) return { status: 200, json: statusOf(ended) };
      continue; // it moved on meanwhile: look again
    }
    if (job.statusInt === JobState.Materializing) {
      job = await waitForJob(d, tenantId, documentId, (j) => isTerminal(j.statusInt), MATERIALIZING_WAIT_MS);
      if (!job) throw problems.documentNotFound(documentId);
      if (!isTerminal(job.statusInt)) continue;
    }
    if (job.statusInt === JobState.Failed && job.error?.code === 'cancelled') return { status: 200, json: statusOf(job) };
    // Finished: its blobs first (a record without blobs is what the sweep would leave), then the record.
    await d.deleteBlobs(job);
    await d.jobs.delete(tenantId, documentId, job.generation);
    d.logger.info({ documentId, tenantId, generation: job.generation }, 'finished job deleted early on request');
    return { status: 200, json: { ...statusOf(job), resultDeleted: true } };
  }
}
