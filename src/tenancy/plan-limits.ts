// The limits that apply to an app: its plan's, or the documented no-plan defaults.
// Cached briefly so an upload does not cost two control-plane queries.
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

export class LimitsCache {
  private readonly cache = new Map<string, { at: number; value: AppLimits | null }>();
  constructor(
    private readonly store: ControlPlaneStore,
    private readonly ttlMs = 5000,
  ) {}

  /** Limits for an app, or null when the app no longer exists or is disabled. */
  async forApp(appId: string): Promise<AppLimits | null> {
    const hit = this.cache.get(appId);
    if (hit && Date.now() - hit.at < this.ttlMs) return hit.value;
    const app = await this.store.getApp(appId);
    let value: AppLimits | null = null;
    if (app && app.enabled) {
      const plan = app.planId ? await this.store.getPlan(app.planId) : null;
      // A retired plan blocks new tokens; uploads under a still-valid token keep its limits.
      value = limitsOf(plan, app.storageConfigId);
    }
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(appId, { at: Date.now(), value });
    return value;
  }
}
