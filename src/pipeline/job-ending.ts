// How a job ends failed, in one place: the worker's failures and a client's cancel both go
// through fail(): state 9 with its error and completedAt, then the Document Units it holds are
// released (nothing is ever charged for a failed job: the charge comes only before 8).
import type { Logger } from 'pino';
import { IllegalTransitionError, CANCELLABLE_STATES } from '../jobs/transitions.js';
import { JobState, type JobError, type JobRecord, type JobStateInt, type JobStore } from '../jobs/types.js';
import type { JobEvents } from '../jobs/events.js';
import type { JobUsage } from './job-usage.js';

export interface JobEndingDeps {
  store: JobStore;
  usage: Pick<JobUsage, 'release'>;
  logger: Logger;
  /** Where a cancel is announced to the node parsing the job. */
  events: Pick<JobEvents, 'announceCancel'>;
}

/** The error a cancelled job ends with. */
export function cancelledError(): JobError {
  return { code: 'cancelled', message: 'The job was cancelled; nothing was charged.', stage: 'cancel' };
}

export class JobEnding {
  constructor(private readonly d: JobEndingDeps) {}

  /**
   * Ends the job failed with `error` and releases its held units. Null when the job is gone or
   * was overwritten; IllegalTransitionError when its state may not fail (or is not in `from`).
   */
  async fail(job: JobRecord, error: JobError, opts?: { from?: readonly JobStateInt[] }): Promise<JobRecord | null> {
    const ended = await this.d.store.transition(job, JobState.Failed, { error, completedAt: new Date().toISOString() }, opts);
    await this.d.usage.release(job);
    this.d.logger.info({ documentId: job.documentId, tenantId: job.tenantId, error }, 'job failed');
    return ended;
  }

  /**
   * Cancels a job that waits or is parsed (CANCELLABLE_STATES): it ends failed with code
   * `cancelled`, its units released, and the node parsing it is told to stop. Returns the ended
   * record, or null when the job was not in a cancellable state (anymore) or is gone.
   */
  async cancel(job: JobRecord): Promise<JobRecord | null> {
    let ended: JobRecord | null;
    try {
      ended = await this.fail(job, cancelledError(), { from: CANCELLABLE_STATES });
    } catch (err) {
      if (err instanceof IllegalTransitionError) return null;
      throw err;
    }
    if (!ended) return null;
    // The job is failed already; a notice that does not arrive only leaves its parse running
    // to its end, whose result is then refused (the worker's next transition is illegal).
    await this.d.events.announceCancel(job).catch((err) => this.d.logger.warn({ err, documentId: job.documentId }, 'could not announce a cancel'));
    return ended;
  }
}
