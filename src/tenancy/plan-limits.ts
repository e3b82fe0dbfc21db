// The limits that apply to an app: its plan's, or the documented no-plan defaults. Cached, so
// an upload costs no control-plane query; a change to the app, its plan or its tenant made on
// any node drops the cached value within a second (change-feed.ts).
import { InProcessChangeFeed, type ChangeFeed } from './change-feed.js';
import type { ControlPlaneStore, Plan } from './types.js';

export type AppLimits = Pick<
  Plan,
  'maxDocumentUnitsPerMonth' | 'advancedPdfExtraction' | 'ocrPdfExtraction' | 'maxFileSizeBytes' | 'maxConcurrentJobs' | 'maxBytesPerSecond'
> & {
  planId: string | null;
  /** The app's own S3-compatible storage, or null for the node's. */
  storageConfigId: string | null;
};

/** Apps without a plan get basic extraction within these bounds (README: "Plans and limits"). */
export const NO_PLAN_LIMITS: AppLimits = {
  planId: null,
  storageConfigId: null,
  maxDocumentUnitsPerMonth: 1000,
  advancedPdfExtraction: false,
  ocrPdfExtraction: false,
  maxFileSizeBytes: 50 * 1024 * 1024,
  maxConcurrentJobs: 4,
  maxBytesPerSecond: 10 * 1024 * 1024,
};

export function limitsOf(plan: Plan | null, storageConfigId: string | null = null): AppLimits {
  if (!plan) return { ...NO_PLAN_LIMITS, storageConfigId };
  return {
    planId: plan.id,
    storageConfigId,
    maxDocumentUnitsPerMonth: plan.maxDocumentUnitsPerMonth,
    advancedPdfExtraction: plan.advancedPdfExtraction,
    ocrPdfExtraction: plan.ocrPdfExtraction,
    maxFileSizeBytes: plan.maxFileSizeBytes,
    maxConcurrentJobs: plan.maxConcurrentJobs,
    maxBytesPerSecond: plan.maxBytesPerSecond,
  };
}

export interface LimitsCacheOptions {
  /** Changes to apps, plans and tenants from every node (default: none seen, the TTL alone). */
  changes?: ChangeFeed;
  /** Longest an entry is kept even when no change is announced (ms, 5000). */
  ttlMs?: number;
  /** Most apps kept (10 000). */
  maxEntries?: number;
}

interface Entry {
  at: number;
  /** The change feed's stamp the entry was read under. */
  stamp: number | null;
  /** null when the app no longer exists or is disabled. */
  limits: AppLimits | null;
  tenantActive: boolean;
}

/**
 * An app's limits as the upload path and the worker need them, read once and kept until the
 * change feed announces a change (any node's, within a second) or the TTL runs out.
 */
export class LimitsCache {
  private readonly cache = new Map<string, Entry>();
  private readonly reading = new Map<string, { stamp: number | null; entry: Promise<Entry> }>();
  private readonly changes: ChangeFeed;
  private readonly ttlMs: number;
  private readonly maxEntries: number;

  constructor(
    private readonly store: ControlPlaneStore,
    opts: LimitsCacheOptions = {},
  ) {
    this.changes = opts.changes ?? new InProcessChangeFeed();
    this.ttlMs = opts.ttlMs ?? 5000;
    this.maxEntries = opts.maxEntries ?? 10_000;
  }

  /** Limits for an app, or null when the app no longer exists or is disabled. */
  async forApp(appId: string): Promise<AppLimits | null> {
    return (await this.entry(appId)).limits;
  }

  /** Limits for new work (an upload): null also when the app's tenant is not active. */
  async forUpload(appId: string): Promise<AppLimits | null> {
    const e = await this.entry(appId);
    return e.tenantActive ? e.limits : null;
  }

  private async entry(appId: string): Promise<Entry> {
    const stamp = this.changes.stamp();
    const hit = this.cache.get(appId);
    if (hit && hit.stamp === stamp && Date.now() - hit.at < this.ttlMs) return hit;
    // Requests that miss together share one read (under the same stamp; never while in doubt).
    const pending = this.reading.get(appId);
    if (pending && stamp !== null && pending.stamp === stamp) return pending.entry;
    const entry = this.read(appId, stamp).finally(() => {
      if (this.reading.get(appId)?.entry === entry) this.reading.delete(appId);
    });
    this.reading.set(appId, { stamp, entry });
    const e = await entry;
    // Kept only when no change was announced while it was read: it might predate that change.
    if (stamp !== null && this.changes.stamp() === stamp) {
      if (this.cache.size >= this.maxEntries) this.cache.clear();
      this.cache.set(appId, e);
    }
    return e;
  }

  private async read(appId: string, stamp: number | null): Promise<Entry> {
    const at = Date.now();
    const app = await this.store.getApp(appId);
    if (!app || !app.enabled) return { at, stamp, limits: null, tenantActive: false };
    const [tenant, plan] = await Promise.all([this.store.getTenant(app.tenantId), app.planId ? this.store.getPlan(app.planId) : null]);
    // A retired plan blocks new tokens; uploads under a still-valid token keep its limits.
    return { at, stamp, limits: limitsOf(plan, app.storageConfigId), tenantActive: tenant?.state === 'Active' };
  }
}
