// Takes jobs off the queue and drives each through its states on the thread pool:
// 2/5 → 3 (light) or 6 → 7 (heavy, at most heavyPerTenant of one tenant at once) → 4 → 8, or
// → 5 (transient, retried with backoff) / 9.
// This is the only writer of job states after upload, so every transition is visible here.
import { ProblemError } from '../http/problem.js';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';
import type { BlobRouter } from '../storage/router.js';
import { IncompleteCopyError, jobKeys } from '../storage/blob-store.js';
import type { ControlPlaneStore } from '../tenancy/types.js';
import type { QuotaKeeper } from '../tenancy/quota/keeper.js';
import { HandBack, JobState, RetryLater, type Delivery, type JobError, type JobQueue, type JobRecord, type JobStore } from '../jobs/types.js';
import { IllegalTransitionError, isTerminal } from '../jobs/transitions.js';
import type { JobEvents, JobIdentity } from '../jobs/events.js';
import { JobEnding } from './job-ending.js';
import { PoolTaskError } from './pool.js';
import type { TaskRunner } from './parse-host.js';
import { failureReasons } from './failure-reasons.js';
import { JobUsage } from './job-usage.js';
import type { JobTallies } from '../metrics/job-tallies.js';

export interface WorkerLoopDeps {
  store: JobStore;
  queue: JobQueue;
  /** Cancels reach the loop here (the parse of a cancelled job is stopped). */
  events: JobEvents;
  blobs: BlobRouter;
  pool: TaskRunner;
  controlPlane: ControlPlaneStore;
  /** The node's quota keeper (shared with intake); without one, the control plane's SQL transactions. */
  quota?: QuotaKeeper;
  logger: Logger;
  maxAttempts: number;
  lightConcurrency: number;
  heavyConcurrency: number;
  /**
   * Heavy slots one tenant holds at once (config.heavySlotsPerTenant): its other heavy jobs
   * wait in 6 without holding a slot.
   */
  heavyPerTenant: number;
  scratchDir?: string;
  /** Longest wait between two tries to charge a finished job after a failure other than an outage (ms). */
  chargeRetryMaxMs?: number;
  /** The node's job counters (/metrics): states reached, units charged, engine time. */
  metrics?: JobTallies;
}

/**
 * After the grace period, how long a stopping node waits for the handlers of the jobs it hands
 * back (and of those already past their parse, storing the artifact and charging it).
 */
export const HAND_BACK_WAIT_MS = 10_000;

/** Exponential backoff: 2 s, 4 s, 8 s … capped at 60 s. */
export function backoffMs(attempt: number): number {
  return Math.min(60_000, 1000 * 2 ** attempt);
}

export class WorkerLoop {
  private readonly scratch: string;

  private readonly usage: JobUsage;
  private readonly ending: JobEnding;
  /** The node is stopping and its parses were cut short: their jobs go back to the queue. */
  private handingBack = false;
  /** The cancel switch of each job this node is running, by generation. */
  private readonly running = new Map<string, AbortController>();

  constructor(private readonly d: WorkerLoopDeps) {
    this.scratch = d.scratchDir ?? path.join(os.tmpdir(), 'docparse-work');
    this.usage = new JobUsage({ controlPlane: d.controlPlane, quota: d.quota, logger: d.logger, retryMaxMs: d.chargeRetryMaxMs });
    this.ending = new JobEnding({ store: d.store, usage: this.usage, logger: d.logger, events: d.events });
  }

  start(): void {
    this.d.events.onCancel((job) => this.running.get(job.generation)?.abort());
    this.d.queue.consume('light', this.d.lightConcurrency, (x) => this.handle(x));
    this.d.queue.consume('heavy', this.d.heavyConcurrency, (x) => this.handle(x), { perTenant: this.d.heavyPerTenant });
  }

  /**
   * Stops the loop of a node that shuts down: no new delivery from now on; running jobs may
   * finish until `deadline` (epoch ms). Then the parses still running are cut short and their
   * jobs handed back (handBack), and their handlers get HAND_BACK_WAIT_MS to record it.
   */
  async stop(deadline: number): Promise<void> {
    const finished = this.d.queue.stopConsuming();
    if (await settlesWithin(finished, deadline - Date.now())) return;
    this.handingBack = true;
    await this.d.pool.abandon();
    if (!(await settlesWithin(finished, HAND_BACK_WAIT_MS)))
      this.d.logger.warn('stopping with jobs still running; their deliveries return when their locks lapse');
  }

  async handle(delivery: Delivery): Promise<void> {
    const cancel = new AbortController();
    this.running.set(delivery.ref.generation, cancel);
    try {
      await this.handleDelivery(delivery, cancel.signal);
    } catch (err) {
      // Cancelled between two of this handler's steps: its next transition found the job failed.
      if (err instanceof IllegalTransitionError && isTerminal(err.from)) return await this.cancelled(delivery.ref);
      if (err instanceof PoolTaskError && err.kind === 'cancelled') return await this.cancelled(delivery.ref);
      throw err;
    } finally {
      this.running.delete(delivery.ref.generation);
    }
  }

  /**
   * The job was cancelled while this node ran it: the cancel ended it (failed, units released);
   * what this run reserved since is released too, and nothing is charged.
   */
  private async cancelled(ref: JobIdentity): Promise<void> {
    const job = await this.d.store.get(ref.tenantId, ref.documentId);
    if (job && job.generation === ref.generation) await this.usage.release(job);
    this.d.logger.info({ documentId: ref.documentId, tenantId: ref.tenantId }, 'job cancelled: its run stopped');
  }

  private async handleDelivery(delivery: Delivery, cancel: AbortSignal): Promise<void> {
    const { ref } = delivery;
    const heavy = ref.lane === 'heavy';
    // A light job waiting in 2 or 5 is read and started in one step; any other finds its job
    // as read and takes the steps below.
    const light = heavy ? null : await this.d.store.startLight(ref, delivery.attempt, this.d.maxAttempts);
    const begun = light?.started ? { job: light.job!, attempt: light.job!.attempts } : await this.begin(delivery, light ? light.job : undefined);
    if (begun) await this.run(ref, begun.job, begun.attempt, cancel);
  }

  /**
   * Reads the delivered job (unless `read` is it) and takes it to its parsing state (3 light,
   * 7 heavy), recording the attempt; null when there is nothing to run (overwritten, expired,
   * ended, or retired here out of attempts).
   */
  private async begin(delivery: Delivery, read?: JobRecord | null): Promise<{ job: JobRecord; attempt: number } | null> {
    const { ref } = delivery;
    const { store, logger } = this.d;
    let job = read === undefined ? await store.get(ref.tenantId, ref.documentId) : read;
    if (!job || job.generation !== ref.generation) return null; // overwritten or expired: nothing to do
    if (isTerminal(job.statusInt)) return null;

    const heavy = ref.lane === 'heavy';
    // Recovered after a restart between upload and enqueue: it was never marked queued.
    if (job.statusInt === JobState.Received) {
      job = await store.transition(ref, JobState.Queued);
      if (!job) return null;
    }
    // The attempt is counted from the record as well as the delivery: the embedded queue
    // forgets its deliveries on restart, and a node that died mid-parse left the count there.
    const attempt = Math.max(delivery.attempt, job.attempts + 1);
    // A delivery finding the job mid-flight means the node died holding it: retry from 5,
    // unless the job has already taken down its host as often as it may (a poison pill).
    const midFlight = job.statusInt === JobState.Processing || job.statusInt === JobState.ProviderProcessing || job.statusInt === JobState.Materializing;
    if (attempt > this.d.maxAttempts) {
      const error: JobError = midFlight
        ? { code: 'extraction_failed', message: failureReasons.crashed(job.attempts), stage: 'worker' }
        : {
            code: job.error?.code ?? 'extraction_failed',
            message: job.error ? `${job.error.message} (after ${job.attempts} attempts)` : failureReasons.machine(),
            stage: job.error?.stage ?? 'worker',
          };
      logger.warn({ documentId: job.documentId, tenantId: job.tenantId, attempts: job.attempts }, 'job out of attempts before it started: retired');
      await this.fail(job, error);
      return null;
    }
    if (midFlight) {
      job = await store.transition(ref, JobState.Retrying);
      if (!job) return null;
    }
    if (heavy && job.statusInt !== JobState.WaitingForProvider) {
      job = await store.transition(ref, JobState.WaitingForProvider);
      if (!job) return null;
    }
    // Recorded before the work starts, so a parse that takes the whole node down still counts.
    job = await store.transition(ref, heavy ? JobState.ProviderProcessing : JobState.Processing, {
      startedAt: job.startedAt ?? new Date().toISOString(),
      attempts: attempt,
    });
    return job ? { job, attempt } : null;
  }

  /** Parses a job in its parsing state, stores the artifact, charges and completes it. */
  private async run(ref: Delivery['ref'], job: JobRecord, attempt: number, cancel: AbortSignal): Promise<void> {
    const { store, logger } = this.d;
    // The parser's folder is made by its thread only if it needs one. The artifact is written
    // in place in the job's folder when the store is a disk (a name of this run's own, recorded
    // when the job completes), else a file beside the parser's folder, moved into the blob
    // store when the parse succeeds.
    const work = path.join(this.scratch, `${ref.generation}-${attempt}`);
    const keys = jobKeys(job);
    let artifactKey = keys.artifact;
    let artifactPath = `${work}.artifact.json`;
    let artifactInPlace = false;
    let input: { path: string; release(): Promise<void> } | null = null;
    let artifactMoved = false;
    let scratchUsed = true;
    try {
      // Every run holds at least one unit before any work: an app at its quota parses nothing.
      const running = job;
      const quota = await this.usage.untilReachable(job, 'read the quota', () => this.usage.quotaOf(running.appId));
      const first = await this.usage.untilReachable(job, 'reserve Document Units', () => this.usage.reserve(running, quota, 1));
      if (!first.ok) return await this.fail(job, { code: 'quota_exceeded', message: first.message, stage: 'worker' });
      // A tenant's own storage is described in the control plane: waited for like the quota.
      const blobStore = await this.usage.untilReachable(job, 'find the storage', () => this.d.blobs.for(running.storageConfigId));
      input = await blobStore.localPath(job.uploadKey, { bytes: job.sizeBytes });
      if (blobStore.fileFor) {
        artifactKey = keys.runArtifact(randomBytes(6).toString('hex'));
        artifactPath = blobStore.fileFor(artifactKey);
        artifactInPlace = true;
      }
      // The units counted so far are the total that progress is told against (pages, messages…).
      let total: number | null = null;
      const hooks = {
        reserveUnits: async (units: number) => {
          const outcome = await this.usage.reserve(running, quota, units);
          if (outcome.ok) total = units;
          return outcome;
        },
        // The tenant: the parsing host gives its threads to waiting tasks in turns by tenant.
        tenantId: job.tenantId,
        progress: (fraction: number) => this.d.events.progress(running, { fraction, done: total === null ? null : Math.floor(fraction * total), total }),
      };
      const parseStarted = performance.now();
      const result = await this.d.pool.run(
        {
          documentId: job.documentId,
          fileName: job.fileName,
          format: job.format,
          options: job.options,
          customMetadata: job.customMetadata,
          inputPath: input.path,
          inputBytes: job.sizeBytes,
          artifactPath,
          artifactInPlace,
          tempDir: work,
        },
        { ...hooks, signal: cancel },
      );
      this.d.metrics?.engineTime(job.format, (performance.now() - parseStarted) / 1000);
      if (result.ok) scratchUsed = result.scratchUsed ?? true;
      if (!result.ok) {
        if (result.internal)
          logger.warn(
            {
              documentId: job.documentId,
              tenantId: job.tenantId,
              generation: job.generation,
              requestId: job.requestId,
              format: job.format,
              err: result.internal,
            },
            'parser failed unexpectedly',
          );
        if (result.transient) return await this.retryOrFail(job, attempt, { code: result.code, message: result.message, stage: 'extract' });
        await this.fail(job, { code: result.code, message: result.message, stage: 'extract' });
        return;
      }
      const materializing = await store.transition(ref, JobState.Materializing);
      if (!materializing) return;
      const artifactBytes = artifactInPlace
        ? result.artifactBytes
        : await blobStore.putFile(artifactKey, artifactPath, { writtenPrivate: result.artifactBytes });
      artifactMoved = true;
      for (const part of result.parts) await blobStore.putFile(keys.part(part.name), part.path);
      // Charge before completing: the charge is idempotent per generation, so a crash in
      // between re-runs the job and charges nothing twice; a completed job is always charged.
      const completedAt = new Date();
      const charged = await this.usage.settle(job, quota, result.documentFormat, result.documentUnits, completedAt);
      if (!charged.ok) {
        // The units counted in the end did not fit: nothing is charged, nothing is served.
        await blobStore.delete(artifactKey);
        for (const part of result.parts) await blobStore.delete(keys.part(part.name));
        return await this.fail(job, { code: 'quota_exceeded', message: charged.message, stage: 'materialize' });
      }
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
      this.d.metrics?.job(job.format, 'completed');
      this.d.metrics?.charged(job.format, result.documentUnits);
      logger.info(
        { documentId: job.documentId, tenantId: job.tenantId, format: job.format, units: result.documentUnits, bytes: artifactBytes },
        'job completed',
      );
    } catch (err) {
      if (err instanceof RetryLater) throw err;
      // Cancelled meanwhile (the job is failed already): handle() releases what this run holds.
      if ((err instanceof IllegalTransitionError && isTerminal(err.from)) || (err instanceof PoolTaskError && err.kind === 'cancelled')) throw err;
      if (err instanceof PoolTaskError && this.handingBack) return await this.handBack(job, attempt);
      if (err instanceof PoolTaskError) return await this.poolFailure(job, attempt, err);
      // The store read back other bytes than it stored (the copy is gone): may pass, so retried, never parsed.
      if (err instanceof IncompleteCopyError) {
        logger.warn({ documentId: job.documentId, tenantId: job.tenantId, err: err.message }, 'upload read back incomplete');
        return await this.retryOrFail(job, attempt, { code: 'storage_unavailable', message: failureReasons.uploadUnreadable(), stage: 'worker' });
      }
      // The tenant's own bucket failed (its problem names the bucket and a fixed reason): may pass, so retried.
      if (err instanceof ProblemError && err.code === 'storage_unavailable') {
        return await this.retryOrFail(job, attempt, { code: 'storage_unavailable', message: err.detail ?? err.title, stage: 'materialize' });
      }
      logger.error(
        { err, documentId: job.documentId, tenantId: job.tenantId, generation: job.generation, requestId: job.requestId },
        'job failed unexpectedly',
      );
      await this.retryOrFail(job, attempt, { code: 'extraction_failed', message: failureReasons.storing(), stage: 'materialize' });
    } finally {
      await input?.release();
      if (!artifactMoved) await fs.rm(artifactPath, { force: true });
      if (scratchUsed) await fs.rm(work, { recursive: true, force: true });
    }
  }

  /**
   * A task that returned no result. A crash of the parsing process may be the machine's
   * fault: retried, and retired after maxAttempts. A ceiling (time, memory) or an exception
   * the parser threw would recur: failed at once.
   */
  private async poolFailure(job: JobRecord, attempt: number, err: PoolTaskError): Promise<void> {
    const ids = { documentId: job.documentId, tenantId: job.tenantId, generation: job.generation, requestId: job.requestId, format: job.format };
    this.d.logger.warn({ ...ids, kind: err.kind, err: err.message, attempt }, 'parse task failed');
    switch (err.kind) {
      case 'crash': {
        const message = attempt >= this.d.maxAttempts ? failureReasons.crashed(attempt) : failureReasons.crashedWillRetry();
        return this.retryOrFail(job, attempt, { code: 'extraction_failed', message, stage: 'worker' }, { final: true });
      }
      case 'memory':
        return this.fail(job, { code: 'document_too_complex', message: failureReasons.memory(err.message), stage: 'worker' });
      case 'timeout':
        return this.fail(job, { code: 'document_too_complex', message: err.message, stage: 'worker' });
      case 'cancelled':
        return this.cancelled(job);
      case 'error':
        return this.fail(job, { code: 'extraction_failed', message: failureReasons.unreadable(job.format), stage: 'extract' });
    }
  }

  /**
   * The node stopped this job's parse: the job waits for another node (or this one's next
   * start) in 5, this run not counted, its held units released. Nothing was charged: the
   * charge comes after a parse that finished.
   */
  private async handBack(job: JobRecord, attempt: number): Promise<void> {
    await this.usage.release(job);
    const back = await this.d.store.transition(job, JobState.Retrying, { attempts: attempt - 1 });
    if (!back) return;
    this.d.metrics?.job(job.format, 'handed_back');
    this.d.logger.info({ documentId: job.documentId, tenantId: job.tenantId, attempt }, 'job handed back: the node is stopping');
    throw new HandBack('the node is stopping');
  }

  /** `final: true`: the error's message already says the job is not retried again. */
  private async retryOrFail(job: JobRecord, attempt: number, error: JobError, opts: { final?: boolean } = {}): Promise<void> {
    if (attempt >= this.d.maxAttempts) {
      await this.fail(job, opts.final ? error : { ...error, message: `${error.message} (after ${attempt} attempts)` });
      return;
    }
    const retrying = await this.d.store.transition(job, JobState.Retrying, { error });
    if (!retrying) return;
    this.d.metrics?.job(job.format, 'retrying');
    this.d.logger.warn({ documentId: job.documentId, attempt, error }, 'job will be retried');
    throw new RetryLater(backoffMs(attempt), error.message);
  }

  private async fail(job: JobRecord, error: JobError): Promise<void> {
    const failed = await this.ending.fail(job, error);
    if (failed) {
      this.d.metrics?.job(job.format, 'failed');
      if (error.code === 'quota_exceeded') this.d.metrics?.quotaRefused('job');
    }
  }
}

/** Whether `p` settles within `ms`. */
async function settlesWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((r) => (timer = setTimeout(() => r(false), Math.max(0, ms))));
  try {
    return await Promise.race([p.then(() => true as const), late]);
  } finally {
    clearTimeout(timer);
  }
}
