// The change feed of a cluster: one version number in Redis (P:control-plane:version), raised
// by the node that makes a change and read by every node every POLL_MS. A version read is
// trusted for TRUST_MS from when its read was sent, so a node that cannot reach Redis stops
// serving cached control-plane values within that time instead of serving them stale; a
// change is therefore seen everywhere within TRUST_MS (plus a round trip), well inside the
// second the issue allows. Polling rather than pub/sub: a missed message cannot go unnoticed.
import type { Redis } from 'ioredis';
import { openRequestRedis } from '../jobs/redis-connection.js';
import type { JobLogger } from '../jobs/support.js';
import type { ChangeFeed, ControlPlaneChange } from './change-feed.js';

/** How often every node reads the shared version (ms). */
export const POLL_MS = 250;
/** How long a version read stays the node's answer while newer reads fail (ms). */
export const TRUST_MS = 750;

export interface RedisChangeFeedOptions {
  url: string;
  /** Key namespace (the job backend's, default 'docparse'). */
  prefix: string;
  log?: JobLogger;
  pollMs?: number;
  trustMs?: number;
  /** Clock (epoch ms), for tests. */
  now?: () => number;
}

export class RedisChangeFeed implements ChangeFeed {
  private readonly redis: Redis;
  private readonly key: string;
  private readonly trustMs: number;
  private readonly now: () => number;
  private readonly log: JobLogger | undefined;
  private readonly timer: NodeJS.Timeout;
  /** The shared version last read (undefined before the first read; null while the key does not exist). */
  private version: string | null | undefined = undefined;
  private seen = 0;
  private readAt = -Infinity;
  private reading = false;

  constructor(opts: RedisChangeFeedOptions) {
    this.key = `${opts.prefix}:control-plane:version`;
    this.trustMs = opts.trustMs ?? TRUST_MS;
    this.now = opts.now ?? Date.now;
    this.log = opts.log;
    this.redis = openRequestRedis(opts.url, 'control-plane change feed', opts.log);
    this.timer = setInterval(() => void this.read(), opts.pollMs ?? POLL_MS);
    this.timer.unref();
    void this.read();
  }

  stamp(): number | null {
    return this.now() - this.readAt <= this.trustMs ? this.seen : null;
  }

  async publish(change: ControlPlaneChange): Promise<void> {
    this.seen++;
    try {
      await this.redis.incr(this.key);
    } catch (err) {
      // The change is committed; other nodes see it when their TTL runs out (plan-limits.ts).
      this.log?.warn({ err: (err as Error).message, ...change }, 'could not announce a control-plane change to the other nodes');
    }
  }

  private async read(): Promise<void> {
    if (this.reading) return;
    this.reading = true;
    const sentAt = this.now();
    try {
      const version = await this.redis.get(this.key);
      if (this.version !== undefined && version !== this.version) this.seen++;
      this.version = version;
      this.readAt = sentAt;
    } catch {
      // Unreachable: stamp() turns null once the last read is older than trustMs.
    } finally {
      this.reading = false;
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
