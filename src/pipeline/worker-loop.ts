// Takes jobs off the queue and drives each through its states on the thread pool:
// 2/5 → 3 (light) or 6 → 7 (heavy) → 4 → 8, or → 5 (transient, retried with backoff) / 9.
// This is the only writer of job states after upload, so every transition is visible here.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';
import type { BlobRouter } from '../storage/router.js';
import { jobKeys } from '../storage/blob-store.js';
import type { ControlPlaneStore } from '../tenancy/types.js';
import { JobState, RetryLater, type Delivery, type JobError, type JobQueue, type JobRecord, type JobStore } from '../jobs/types.js';
import { isTerminal } from '../jobs/transitions.js';
import { PoolTaskError, type ParsePool } from './pool.js';

export interface WorkerLoopDeps {
  store: JobStore;
  queue: JobQueue;
  blobs: BlobRouter;
  pool: ParsePool;
  controlPlane: ControlPlaneStore;
  logger: Logger;
  maxAttempts: number;
  lightConcurrency: number;
  heavyConcurrency: number;
  scratchDir?: string;
}

/** Exponential backoff: 2 s, 4 s, 8 s … capped at 60 s. */
export function backoffMs(attempt: number): number {
  return Math.min(60_000, 1000 * 2 ** attempt);
}

export function monthOf(date: Date): string {
  return date.toISOString().slice(0, 7);
}

export class WorkerLoop {
  private readonly scratch: string;

  constructor(private readonly d: WorkerLoopDeps) {
    this.scratch = d.scratchDir ?? path.join(os.tmpdir(), 'docparse-work');
  }

  start(): void {
    this.d.queue.consume('light', this.d.lightConcurrency, (x) => this.handle(x));
    this.d.queue.consume('heavy', this.d.heavyConcurrency, (x) => this.handle(x));
  }

  async handle({ ref, attempt }: Delivery): Promise<void> {
    const { store, logger } = this.d;
    let job = await store.get(ref.tenantId, ref.documentId);
    if (!job || job.generation !== ref.generation) return; // overwritten or expired: nothing to do
    if (isTerminal(job.statusInt)) return;

    const heavy = ref.lane === 'heavy';
    // Recovered after a restart between upload and enqueue: it was never marked queued.
    if (job.statusInt === JobState.Received) {
      job = await store.transition(ref, JobState.Queued);
      if (!job) return;
    }
    // A delivery finding the job mid-flight means a worker died holding it: retry from 5.
    if (job.statusInt === JobState.Processing || job.statusInt === JobState.ProviderProcessing || job.statusInt === JobState.Materializing) {
      job = await store.transition(ref, JobState.Retrying);
      if (!job) return;
    }
    if (heavy && job.statusInt !== JobState.WaitingForProvider) {
      job = await store.transition(ref, JobState.WaitingForProvider);
      if (!job) return;
    }
    job = await store.transition(ref, heavy ? JobState.ProviderProcessing : JobState.Processing, {
      startedAt: job.startedAt ?? new Date().toISOString(),
      attempts: attempt,
    });
    if (!job) return;

    const work = path.join(this.scratch, `${ref.generation}-${attempt}`);
    await fs.mkdir(work, { recursive: true });
    const artifactPath = path.join(work, 'artifact.json');
    let input: { path: string; release(): Promise<void> } | null = null;
    try {
      const blobStore = await this.d.blobs.for(job.storageConfigId);
      input = await blobStore.localPath(job.uploadKey);
      const result = await this.d.pool.run({
        documentId: job.documentId,
        fileName: job.fileName,
        format: job.format,
        options: job.options,
        customMetadata: job.customMetadata,
        inputPath: input.path,
        artifactPath,
        tempDir: work,
      });
      if (!result.ok) {
        if (result.transient) return await this.retryOrFail(job, attempt, { code: result.code, message: result.message, stage: 'extract' });
        await this.fail(job, { code: result.code, message: result.message, stage: 'extract' });
        return;
      }
      const materializing = await store.transition(ref, JobState.Materializing);
      if (!materializing) return;
      const keys = jobKeys(job);
      const artifactKey = keys.artifact;
      const artifactBytes = await blobStore.putFile(artifactKey, artifactPath);
      for (const part of result.parts) await blobStore.putFile(keys.part(part.name), part.path);
      // Charge before completing: the charge is idempotent per generation, so a crash in
      // between re-runs the job and charges nothing twice; a completed job is always charged.
      const completedAt = new Date();
      await this.charge(job, result.documentFormat, result.documentUnits, completedAt);
      const done = await store.transition(ref, JobState.Completed, {
        completedAt: completedAt.toISOString(),
        artifactKey,
        artifactBytes,
        documentUnits: result.documentUnits,
      });
      if (!done) {
        await blobStore.delete(artifactKey); // overwritten or expired meanwhile
        return;
      }
      logger.info({ documentId: job.documentId, tenantId: job.tenantId, format: job.format, units: result.documentUnits, bytes: artifactBytes }, 'job completed');
    } catch (err) {
      if (err instanceof RetryLater) throw err;
      if (err instanceof PoolTaskError) {
        // A crash may be the machine's fault: retry. Timeouts and memory ceilings would recur.
        if (err.kind === 'crash') return await this.retryOrFail(job, attempt, { code: 'extraction_failed', message: err.message, stage: 'worker' });
        await this.fail(job, { code: 'extraction_failed', message: err.message, stage: 'worker' });
        return;
      }
      logger.error({ err, documentId: job.documentId }, 'job failed unexpectedly');
      await this.retryOrFail(job, attempt, { code: 'extraction_failed', message: `internal error: ${(err as Error).message}`, stage: 'materialize' });
    } finally {
      await input?.release();
      await fs.rm(work, { recursive: true, force: true });
    }
  }

  private async retryOrFail(job: JobRecord, attempt: number, error: JobError): Promise<void> {
    if (attempt >= this.d.maxAttempts) {
      await this.fail(job, { ...error, message: `${error.message} (after ${attempt} attempts)` });
      return;
    }
    const retrying = await this.d.store.transition(job, JobState.Retrying, { error });
    if (!retrying) return;
    this.d.logger.warn({ documentId: job.documentId, attempt, error }, 'job will be retried');
    throw new RetryLater(backoffMs(attempt), error.message);
  }

  private async fail(job: JobRecord, error: JobError): Promise<void> {
    await this.d.store.transition(job, JobState.Failed, { error, completedAt: new Date().toISOString() });
    this.d.logger.info({ documentId: job.documentId, tenantId: job.tenantId, error }, 'job failed');
  }

  /** Units are charged once per job run (chargeKey = generation), only on completion. */
  private async charge(job: JobRecord, format: string, units: number, at: Date): Promise<void> {
    await this.d.controlPlane.chargeUsage({
      chargeKey: job.generation,
      tenantId: job.tenantId,
      appId: job.appId,
      documentId: job.documentId,
      month: monthOf(at),
      format,
      units,
    });
  }
}
