// Retention: jobs past expiresAt lose their record and every blob (upload, artifact).
import type { Logger } from 'pino';
import { jobFolder } from '../storage/blob-store.js';
import type { BlobRouter } from '../storage/router.js';
import type { JobStore } from '../jobs/types.js';

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

  /** Deletes everything expired now; returns how many jobs were removed. */
  sweep(now = new Date()): Promise<number> {
    this.running ??= (async () => {
      let removed = 0;
      try {
        for (;;) {
          const batch = await this.jobs.listExpired(now, 200);
          if (!batch.length) break;
          for (const job of batch) {
            await (await this.blobs.for(job.storageConfigId)).deletePrefix(jobFolder(job));
            await this.jobs.delete(job.tenantId, job.documentId, job.generation);
            removed++;
          }
          if (batch.length < 200) break;
        }
        if (removed) this.logger.info({ removed }, 'retention sweep removed expired jobs');
        return removed;
      } finally {
        this.running = null;
      }
    })();
    return this.running;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }
}
