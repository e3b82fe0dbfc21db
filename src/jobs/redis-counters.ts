// Fixed-window counters shared by every node: P:rc:<windowSeconds>:<windowIndex>:<key>,
// INCRBY + PEXPIREAT (window end + 1 s) in one MULTI. They are read on the request path
// (token endpoint, uploads), so while Redis is unreachable addToWindow fails at once with
// DependencyUnavailableError (redis-connection.ts).

import type { Redis } from 'ioredis';

import { asRedisUnavailable, failFast, openRequestRedis } from './redis-connection.js';
import type { JobLogger } from './support.js';
import type { RateCounters } from './types.js';

const ROLE = 'rate limiter';

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
  private readonly p: string;
  private readonly now: () => number;

  constructor(opts: RedisRateCountersOptions) {
    if (!opts.prefix) throw new Error('RedisRateCounters: prefix is required');
    this.p = `${opts.prefix}:rc`;
    this.now = opts.now ?? Date.now;
    this.redis = openRequestRedis(opts.url, ROLE, opts.log);
  }

  async addToWindow(key: string, amount: number, windowSeconds: number): Promise<number> {
    if (!(windowSeconds > 0)) throw new RangeError(`windowSeconds must be positive, got ${windowSeconds}`);
    if (!Number.isFinite(amount)) throw new RangeError(`amount must be finite, got ${amount}`);
    const windowMs = windowSeconds * 1000;
    const index = Math.floor(this.now() / windowMs);
    const k = `${this.p}:${windowSeconds}:${index}:${key}`;
    const tx = this.redis.multi();
    if (Number.isInteger(amount)) tx.incrby(k, amount);
    else tx.incrbyfloat(k, amount);
    tx.pexpireat(k, (index + 1) * windowMs + 1000);
    const res = await failFast(ROLE, () => tx.exec());
    const [err, total] = res?.[0] ?? [new Error('addToWindow: transaction aborted'), 0];
    if (err) throw asRedisUnavailable(err, ROLE);
    return Number(total);
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
