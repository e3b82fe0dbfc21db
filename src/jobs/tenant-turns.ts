// Waiting work taken in turns by tenant (round robin): each tenant's items stay in arrival
// order, and a tenant served goes to the back of the round, so a tenant with one item waits
// behind at most one item of every other tenant, however many those have queued. Used by the
// embedded queue's lanes and by the parsing host's queue for threads.
//
// Cost per push or take: a Map lookup and, on take, moving the tenant to the back (delete and
// set); a tenant skipped by `eligible` costs one more step.

export class TenantTurns<T> {
  /** Waiting items by tenant, in turn order (Map keeps insertion order). */
  private readonly byTenant = new Map<string, T[]>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  push(tenant: string, item: T): void {
    const list = this.byTenant.get(tenant);
    if (list) list.push(item);
    else this.byTenant.set(tenant, [item]);
    this.count++;
  }

  /**
   * The oldest item of the first tenant in turn that `eligible` accepts, taken off; that
   * tenant goes to the back of the round. Undefined when none is eligible.
   */
  take(eligible?: (tenant: string) => boolean): T | undefined {
    for (const [tenant, list] of this.byTenant) {
      if (eligible && !eligible(tenant)) continue;
      const item = list.shift()!;
      this.byTenant.delete(tenant);
      if (list.length) this.byTenant.set(tenant, list);
      this.count--;
      return item;
    }
    return undefined;
  }

  /** Takes `item` off wherever it waits (a cancelled task); false when it does not wait here. */
  remove(tenant: string, item: T): boolean {
    const list = this.byTenant.get(tenant);
    const at = list ? list.indexOf(item) : -1;
    if (at < 0) return false;
    list!.splice(at, 1);
    if (!list!.length) this.byTenant.delete(tenant);
    this.count--;
    return true;
  }

  /** Every waiting item, taken off (in turn order). */
  drain(): T[] {
    const all: T[] = [];
    for (;;) {
      const item = this.take();
      if (item === undefined) return all;
      all.push(item);
    }
  }
}
