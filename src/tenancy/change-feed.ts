// Changes to apps, plans and tenants, announced to every node, so what a node keeps of them
// (the upload path's limits, plan-limits.ts) is dropped within a second of a change made
// anywhere, not only when a TTL runs out. The management API announces each change it makes
// (manage/api/kit.ts, with its audit entry); a cache keeps the stamp it read under and trusts
// an entry only while the stamp is the same. One node (the embedded default) needs nothing
// shared: InProcessChangeFeed. A cluster shares a version in Redis (redis-change-feed.ts).

/** What changed, as the audit log names it. */
export interface ControlPlaneChange {
  objectType: string;
  objectId: string | null;
}

export interface ChangeFeed {
  /**
   * How many changes this node has seen: a value read while the stamp was n is current
   * while the stamp is still n. null while the node cannot tell whether it missed one (the
   * shared version could not be read lately): read through the cache then.
   */
  stamp(): number | null;
  /** Announces a change already committed; this node sees it at once. Never rejects. */
  publish(change: ControlPlaneChange): Promise<void>;
  close(): Promise<void>;
}

/** One node: every change goes through this process, so counting them is enough. */
export class InProcessChangeFeed implements ChangeFeed {
  private seen = 0;

  stamp(): number {
    return this.seen;
  }

  async publish(): Promise<void> {
    this.seen++;
  }

  async close(): Promise<void> {}
}
