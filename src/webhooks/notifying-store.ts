// A JobStore that notices jobs ending: when a transition leaves a job completed or failed
// (a cancel ends failed with code `cancelled`) and the job asked for a callback, its
// notification is written to the webhook outbox before the transition's caller goes on, and
// this node's sender is nudged. Everything else passes straight through: a job without a
// callbackUrl costs one property read.
import type { Logger } from '../log.js';
import type { JobRecord, JobStore } from '../jobs/types.js';
import { isNotifiable, payloadOf } from './payload.js';
import type { WebhookDeliveryStore } from './delivery-store.js';

export interface JobEndListener {
  deliveries: WebhookDeliveryStore;
  /** Called after a notification was written (the local sender sends it at once). */
  written(): void;
  logger: Logger;
}

export class NotifyingJobStore implements JobStore {
  constructor(
    private readonly inner: JobStore,
    private readonly on: JobEndListener,
  ) {}

  async transition(...args: Parameters<JobStore['transition']>): Promise<JobRecord | null> {
    const job = await this.inner.transition(...args);
    if (job?.callbackUrl && isNotifiable(job)) await this.notify(job as JobRecord & { callbackUrl: string });
    return job;
  }

  /**
   * The job has ended already: a control plane that cannot take the row now is logged (the
   * owner can replay the notification), never made the transition's failure.
   */
  private async notify(job: JobRecord & { callbackUrl: string }): Promise<void> {
    try {
      await this.on.deliveries.enqueue(job, payloadOf(job));
      this.on.written();
    } catch (err) {
      this.on.logger.error(
        { err, documentId: job.documentId, tenantId: job.tenantId, generation: job.generation },
        'webhook notification not recorded; it can be replayed',
      );
    }
  }

  put(job: JobRecord) {
    return this.inner.put(job);
  }
  putSession(job: JobRecord) {
    return this.inner.putSession(job);
  }
  putUnlessLive(job: JobRecord) {
    return this.inner.putUnlessLive(job);
  }
  /** Never ends a job (it moves to 3): nothing to notify. */
  startLight(...args: Parameters<JobStore['startLight']>) {
    return this.inner.startLight(...args);
  }
  get(tenantId: string, documentId: string) {
    return this.inner.get(tenantId, documentId);
  }
  getMany(tenantId: string, documentIds: string[]) {
    return this.inner.getMany(tenantId, documentIds);
  }
  delete(tenantId: string, documentId: string, generation?: string) {
    return this.inner.delete(tenantId, documentId, generation);
  }
  listExpired(now: Date, limit: number) {
    return this.inner.listExpired(now, limit);
  }
  countUnfinished(appId: string) {
    return this.inner.countUnfinished(appId);
  }
  listUnfinished() {
    return this.inner.listUnfinished();
  }
  ping() {
    return this.inner.ping();
  }
  close() {
    return this.inner.close();
  }
}
