// Fixed-window counters shared by every node: P:rc:<windowSeconds>:<windowIndex>:<key>,
// expiring at the window's end + 1 s. addToWindow is INCRBY + PEXPIREAT in one MULTI (far
// from the caller's limit, batched: window-adds.ts);
// reserveInWindow and releaseInWindow are Lua scripts, so checking the limits and taking the
// slots is one step across nodes. They are used on the request path (token endpoint,
// uploads), so while Redis is unreachable they fail at once with DependencyUnavailableError
// (redis-connection.ts).

import type { Redis } from 'ioredis';

import { asRedisUnavailable, failFast, openRequestRedis } from './redis-connection.js';
import type { JobLogger } from './support.js';
import type { RateCounters, WindowLimit, WindowReservation } from './types.js';
import { WindowAdds } from './window-adds.js';

const ROLE = 'rate limiter';

// KEYS: the counters. ARGV[1]: expiry (ms since the epoch); ARGV[1 + i]: the limit of KEYS[i].
// Returns 0 when a slot was taken in every counter, else the (1-based) index of a full one.
const RESERVE_LUA = `
for i, key in ipairs(KEYS) do
  if tonumber(redis.call('GET', key) or '0') >= tonumber(ARGV[i + 1]) then return i end
end
for _, key in ipairs(KEYS) do
  redis.call('INCR', key)
  redis.call('PEXPIREAT', key, ARGV[1])
end
return 0
`;

// KEYS: the counters. A counter that is gone (its window expired) is not recreated: it
// would come back without an expiry.
const RELEASE_LUA = `
for _, key in ipairs(KEYS) do
  if tonumber(redis.call('GET', key) or '0') > 0 then redis.call('DECR', key) end
end
return 0
`;

interface Scripts {
  rateReserve(...keysThenArgs: (string | number)[]): Promise<number>;
  rateRelease(...keysThenArgs: (string | number)[]): Promise<number>;
}

export interface RedisRateCountersOptions {
  url: string;
  prefix: string;
  /** Clock, for tests. */
  now?: () => number;
  /** Where losing and regaining the connection is reported. */
  log?: JobLogger;
}

export class RedisRateCounters implements RateCounters {
  readonly redis: Redis;
  private readonly scripts: Scripts;
  private readonly p: string;
  private readonly now: () => number;
  private readonly lazyAdds: WindowAdds;

  constructor(opts: RedisRateCountersOptions) {
    if (!opts.prefix) throw new Error('RedisRateCounters: prefix is required');
    this.p = `${opts.prefix}:rc`;
    this.now = opts.now ?? Date.now;
    this.redis = openRequestRedis(opts.url, ROLE, opts.log);
    // Without numberOfKeys, each call passes its key count first.
    this.redis.defineCommand('rateReserve', { lua: RESERVE_LUA });
    this.redis.defineCommand('rateRelease', { lua: RELEASE_LUA });
    this.scripts = this.redis as unknown as Scripts;
    this.lazyAdds = new WindowAdds(
      this.sendAdd,
      (err) => opts.log?.warn({ err: (err as Error).message }, 'rate counters: batched additions could not be sent; counted low for a moment'),
      this.now,
    );
  }

  async addToWindow(key: string, amount: number, windowSeconds: number, opts: { lazyBelow?: number } = {}): Promise<number> {
    if (!Number.isFinite(amount)) throw new RangeError(`amount must be finite, got ${amount}`);
    const index = this.currentIndex(windowSeconds);
    if (opts.lazyBelow !== undefined) return this.lazyAdds.add(key, amount, windowSeconds, index, opts.lazyBelow);
    return this.sendAdd(key, amount, windowSeconds, index);
  }

  /** INCRBY + PEXPIREAT of one window's counter, in one MULTI. */
  private readonly sendAdd = async (key: string, amount: number, windowSeconds: number, index: number): Promise<number> => {
    const k = this.counterKey(key, windowSeconds, index);
    const tx = this.redis.multi();
    if (Number.isInteger(amount)) tx.incrby(k, amount);
    else tx.incrbyfloat(k, amount);
    tx.pexpireat(k, this.expiresAt(windowSeconds, index));
    const res = await failFast(ROLE, () => tx.exec());
    const [err, total] = res?.[0] ?? [new Error('addToWindow: transaction aborted'), 0];
    if (err) throw asRedisUnavailable(err, ROLE);
    return Number(total);
  };

  async reserveInWindow(limits: WindowLimit[], windowSeconds: number): Promise<WindowReservation> {
    const index = this.currentIndex(windowSeconds);
    if (limits.length === 0) return { taken: true, window: index };
    const keys = limits.map((l) => this.counterKey(l.key, windowSeconds, index));
    const full = await failFast(ROLE, () =>
      this.scripts.rateReserve(keys.length, ...keys, this.expiresAt(windowSeconds, index), ...limits.map((l) => l.limit)),
    );
    return full === 0 ? { taken: true, window: index } : { taken: false, fullKey: limits[full - 1].key };
  }

  async releaseInWindow(keys: string[], windowSeconds: number, window: number): Promise<void> {
    if (keys.length === 0 || window !== this.currentIndex(windowSeconds)) return;
    const counterKeys = keys.map((k) => this.counterKey(k, windowSeconds, window));
    await failFast(ROLE, () => this.scripts.rateRelease(counterKeys.length, ...counterKeys));
  }

  private currentIndex(windowSeconds: number): number {
    if (!(windowSeconds > 0)) throw new RangeError(`windowSeconds must be positive, got ${windowSeconds}`);
    return Math.floor(this.now() / (windowSeconds * 1000));
  }

  private counterKey(key: string, windowSeconds: number, index: number): string {
    return `${this.p}:${windowSeconds}:${index}:${key}`;
  }

  /** The window's end + 1 s, so a node whose clock runs slightly behind still finds it. */
  private expiresAt(windowSeconds: number, index: number): number {
    return (index + 1) * windowSeconds * 1000 + 1000;
  }

  async close(): Promise<void> {
    await this.lazyAdds.flush();
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
