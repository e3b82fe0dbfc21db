// What a webhook says about a finished job: its type and the status fields a receiver needs to
// act without polling (it fetches the result itself, with its own token).
import { JobState, STATUS_NAMES, type JobError, type JobRecord } from '../jobs/types.js';

export type WebhookType = 'document.completed' | 'document.failed' | 'document.cancelled';

export interface WebhookPayload {
  type: WebhookType;
  documentId: string;
  status: string;
  statusInt: number;
  completedAt: string | null;
  documentUnits: number | null;
  error?: JobError;
}

/** Completed or failed (a cancel ends failed with code `cancelled`): the states a webhook is sent for. */
export function isNotifiable(job: JobRecord): boolean {
  return job.statusInt === JobState.Completed || job.statusInt === JobState.Failed;
}

export function payloadOf(job: JobRecord): WebhookPayload {
  const failed = job.statusInt === JobState.Failed;
  // `cancelled` is the code a cancel ends a job with (the cancel work adds it to the catalogue).
  const cancelled = (job.error?.code as string | undefined) === 'cancelled';
  const type: WebhookType = !failed ? 'document.completed' : cancelled ? 'document.cancelled' : 'document.failed';
  return {
    type,
    documentId: job.documentId,
    status: STATUS_NAMES[job.statusInt],
    statusInt: job.statusInt,
    completedAt: job.completedAt,
    documentUnits: job.documentUnits,
    ...(failed && job.error ? { error: job.error } : {}),
  };
}
