// Retention: jobs past expiresAt lose their record and every blob (upload, artifact).
import type { Logger } from 'pino';
import { jobFolder } from '../storage/blob-store.js';
import type { BlobRouter } from '../storage/router.js';
import type { JobRecord, JobStore } from '../jobs/types.js';

const BATCH = 200;

const identity = (job: JobRecord) => `${job.tenantId}\n${job.documentId}\n${job.generation}`;

export class RetentionSweeper {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;

  constructor(
    private readonly jobs: JobStore,
    private readonly blobs: BlobRouter,
    private readonly logger: Logger,
    private readonly intervalMs: number,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.sweep().catch((err) => this.logger.error({ err }, 'retention sweep failed')), this.intervalMs);
    this.timer.unref();
  }

  /**
   * Deletes everything expired now; returns how many jobs were removed. A job that cannot be
   * removed (its storage refuses, its record is malformed) is logged and left for the next
   * sweep; it never stops the sweep for the other jobs and tenants.
   */
  sweep(now = new Date()): Promise<number> {
    this.running ??= (async () => {
      let removed = 0;
      const failed = new Set<string>();
      try {
        for (;;) {
          // Ask past the failures: they stay expired and come back first in every batch.
          const want = BATCH + failed.size;
          const batch = await this.jobs.listExpired(now, want);
          const fresh = batch.filter((job) => !failed.has(identity(job)));
          for (const job of fresh) {
            if (await this.remove(job)) removed++;
            else failed.add(identity(job));
          }
          if (batch.length < want || !fresh.length) break;
        }
        if (removed) this.logger.info({ removed }, 'retention sweep removed expired jobs');
        if (failed.size) this.logger.warn({ failed: failed.size }, 'retention sweep left jobs it could not remove; the next sweep retries them');
        return removed;
      } finally {
        this.running = null;
      }
    })();
    return this.running;
  }

  /** Removes one expired job's blobs, then its record; false (logged) when that failed. */
  private async remove(job: JobRecord): Promise<boolean> {
    try {
      await (await this.blobs.for(job.storageConfigId)).deletePrefix(jobFolder(job));
      await this.jobs.delete(job.tenantId, job.documentId, job.generation);
      return true;
    } catch (err) {
      this.logger.error({ err, tenantId: job.tenantId, documentId: job.documentId, generation: job.generation }, 'retention: could not remove an expired job');
      return false;
    }
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }
}
