// The quota kept by the control plane's own SQL transactions (store/usage.ts: an advisory lock
// and two sums over the month per decision). Used where no faster keeper applies: a cluster
// on PostgreSQL without Redis, and callers not given a keeper.
import type { ControlPlaneStore, QuotaCheck, UnitHold, UsageCharge } from '../types.js';
import type { HoldRef, QuotaKeeper } from './keeper.js';

export class SqlQuotaKeeper implements QuotaKeeper {
  constructor(private readonly store: ControlPlaneStore) {}

  committed(appId: string, month: string): Promise<number> {
    return this.store.unitsCommitted(appId, month);
  }
  reserve(h: UnitHold): Promise<QuotaCheck> {
    return this.store.reserveUnits(h);
  }
  settle(c: UsageCharge & { quota: number }): Promise<QuotaCheck> {
    return this.store.settleUsage(c);
  }
  release(h: HoldRef): Promise<void> {
    return this.store.releaseUnits(h.chargeKey);
  }
  ping(): Promise<void> {
    return this.store.ping();
  }
  async close(): Promise<void> {
    // The control plane's connection is the node's to close.
  }
}
