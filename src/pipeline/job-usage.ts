// Document Units of one job against its app's monthly quota, which is a hard limit: units are
// held (reserved atomically by the node's quota keeper) before the work and as soon as the
// parser counts them, charged at completion only if they fit, and released when the job fails. A
// job that would cross the quota fails with quota_exceeded and is charged nothing. While the
// control plane (or the keeper's Redis) is unreachable, jobs wait for it together and resume as
// soon as it answers.
import type { Logger } from 'pino';
import type { ControlPlaneStore, QuotaCheck } from '../tenancy/types.js';
import type { QuotaKeeper } from '../tenancy/quota/keeper.js';
import { SqlQuotaKeeper } from '../tenancy/quota/sql-keeper.js';
import type { JobRecord } from '../jobs/types.js';
import { monthOf } from '../tenancy/month.js';
import { LimitsCache, NO_PLAN_LIMITS } from '../tenancy/plan-limits.js';
import type { ReserveOutcome } from './unit-meter.js';
import { DependencyUnavailableError, RecoveryWatch } from '../errors/dependency-unavailable.js';

export interface JobUsageOptions {
  controlPlane: ControlPlaneStore;
  /** Holds and charges units (tenancy/quota/open.ts); without one, the control plane's SQL transactions. */
  quota?: QuotaKeeper;
  logger: Logger;
  /** How long a hold counts without renewal: a node that died holding one frees it then (s). */
  holdSeconds?: number;
  /** Longest wait between two tries after a failure other than the control plane being unreachable (ms). */
  retryMaxMs?: number;
  /** How often one probe asks an unreachable control plane whether it is back (ms, default PROBE_INTERVAL_MS). */
  probeIntervalMs?: number;
}

/** How often the node asks an unreachable control plane whether it is back, while jobs wait for it. */
export const PROBE_INTERVAL_MS = 250;

export class JobUsage {
  private readonly limits: LimitsCache;
  /** The jobs waiting for the control plane, woken together when its probe answers. */
  private readonly watch: RecoveryWatch;
  private readonly probeIntervalMs: number;
  private readonly quota: QuotaKeeper;

  constructor(private readonly o: JobUsageOptions) {
    this.limits = new LimitsCache(o.controlPlane);
    this.quota = o.quota ?? new SqlQuotaKeeper(o.controlPlane);
    this.probeIntervalMs = o.probeIntervalMs ?? PROBE_INTERVAL_MS;
    // Jobs wait for whatever they lack: the control plane (limits, storage) or the keeper's own stores.
    this.watch = new RecoveryWatch(() => Promise.all([o.controlPlane.ping(), this.quota.ping()]), this.probeIntervalMs);
  }

  /** The app's monthly quota now (its plan's, or the no-plan default). */
  async quotaOf(appId: string): Promise<number> {
    const limits = await this.limits.forApp(appId);
    return (limits ?? NO_PLAN_LIMITS).maxDocumentUnitsPerMonth;
  }

  /** Holds `units` in all for this job run; refused when they do not fit the quota. */
  async reserve(job: JobRecord, quota: number, units: number): Promise<ReserveOutcome> {
    const check = await this.quota.reserve({
      chargeKey: job.generation,
      tenantId: job.tenantId,
      appId: job.appId,
      documentId: job.documentId,
      month: monthOf(new Date()),
      units,
      quota,
      holdSeconds: this.o.holdSeconds ?? 3600,
    });
    return outcome(check, units);
  }

  /**
   * Charges the job's units (idempotent per generation) if they fit. A finished parse is never
   * failed because the control plane is unreachable: the charge is retried with back-off until
   * it goes through; it gives up only when the job itself has expired.
   */
  async settle(job: JobRecord, quota: number, format: string, units: number, at: Date): Promise<ReserveOutcome> {
    const check = await this.untilReachable(job, 'record usage', () =>
      this.quota.settle({
        chargeKey: job.generation,
        tenantId: job.tenantId,
        appId: job.appId,
        documentId: job.documentId,
        month: monthOf(at),
        format,
        units,
        quota,
      }),
    );
    return outcome(check, units);
  }

  /** Frees the job's hold; a failure is only logged (the hold lapses by itself). */
  async release(job: JobRecord): Promise<void> {
    await this.quota
      .release({ chargeKey: job.generation, appId: job.appId, month: monthOf(new Date()) })
      .catch((err) => this.o.logger.warn({ err, documentId: job.documentId }, 'could not release held Document Units'));
  }

  /**
   * Runs fn until the control plane answers; rethrows once the job has expired. While the
   * control plane is unreachable the job waits for the node's one probe to see it again
   * (RecoveryWatch: it resumes within PROBE_INTERVAL_MS of its return, however long the
   * outage); any other failure is tried again with back-off.
   */
  async untilReachable<T>(job: JobRecord, what: string, fn: () => Promise<T>): Promise<T> {
    const maxWait = this.o.retryMaxMs ?? 30_000;
    const expiresAt = Date.parse(job.expiresAt);
    for (let wait = 500; ; wait = Math.min(maxWait, wait * 2)) {
      try {
        return await fn();
      } catch (err) {
        const outage = err instanceof DependencyUnavailableError;
        if (Date.now() + (outage ? this.probeIntervalMs : wait) > expiresAt) throw err;
        this.o.logger.warn(
          { documentId: job.documentId, tenantId: job.tenantId, err: (err as Error).message, ...(outage ? {} : { retryInMs: wait }) },
          `could not ${what}; the job waits for the control plane`,
        );
        if (outage) await this.watch.whenReachable(AbortSignal.timeout(Math.max(0, expiresAt - Date.now())));
        else await new Promise((r) => setTimeout(r, wait));
      }
    }
  }
}

function outcome(check: QuotaCheck, units: number): ReserveOutcome {
  if (check.ok) return { ok: true };
  const left = Math.max(0, check.quota - check.used - check.held);
  const held = check.held ? ` (${check.held} more are held by documents in progress)` : '';
  return {
    ok: false,
    message: `This document needs ${units} Document Units, but the app has ${left} of its ${check.quota} left this month${held}; nothing was charged.`,
  };
}
