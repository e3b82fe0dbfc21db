// How many of a lane's handlers one tenant holds at once across every node of a Redis
// deployment (ConsumeOptions.perTenant), and the order its waiting deliveries take the slots in.
//
//   keys:  P:tslots:<lane>:<b64u tenant>   sorted set: delivery id → lease end (ms)
//          P:tparked:<lane>:<b64u tenant>  sorted set: delivery id → order (its enqueue time)
//          P:tparkexp:<lane>:<b64u tenant> sorted set: delivery id → when a parking counts no more
//   take:  one Lua step: drop lapsed leases and parkings; the delivery takes a slot when fewer
//          than perTenant are held and no delivery of the tenant parked before it waits; else
//          it is parked (the queue moves it to delayed: it holds no handler meanwhile).
//   give:  one Lua step: the slot is freed and the oldest parked delivery of the tenant named,
//          for the queue to promote it into the wait list at once.
// A holder renews its lease while its handler runs; a node that dies holding slots frees them
// when the leases lapse, and its tenant's parked deliveries come back by themselves (their
// delay) even when no release names them.

import type { Redis } from 'ioredis';

import { b64u } from './support.js';
import type { Lane } from './types.js';

// KEYS: slots, parked, parking expiries. ARGV: delivery id, now, lease end, perTenant, order,
// parking expiry, key lifetime (ms). Returns 1 when the slot is taken, 0 when parked.
const TAKE_LUA = `
local slots, parked, expiry = KEYS[1], KEYS[2], KEYS[3]
local id, now = ARGV[1], tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', slots, '-inf', now)
for _, gone in ipairs(redis.call('ZRANGEBYSCORE', expiry, '-inf', now)) do
  redis.call('ZREM', parked, gone)
  redis.call('ZREM', expiry, gone)
end
local function take()
  redis.call('ZADD', slots, ARGV[3], id)
  redis.call('ZREM', parked, id)
  redis.call('ZREM', expiry, id)
  for _, k in ipairs(KEYS) do redis.call('PEXPIRE', k, ARGV[7]) end
  return 1
end
if redis.call('ZSCORE', slots, id) then return take() end
local full = redis.call('ZCARD', slots) >= tonumber(ARGV[4])
local first = redis.call('ZRANGE', parked, 0, 0, 'WITHSCORES')
local older = first[1] ~= nil and first[1] ~= id and tonumber(first[2]) < tonumber(ARGV[5])
if not full and not older then return take() end
redis.call('ZADD', parked, 'NX', ARGV[5], id)
redis.call('ZADD', expiry, ARGV[6], id)
for _, k in ipairs(KEYS) do redis.call('PEXPIRE', k, ARGV[7]) end
return 0
`;

// KEYS: slots, parked. ARGV: delivery id. Returns the oldest parked delivery id, or false.
const GIVE_LUA = `
redis.call('ZREM', KEYS[1], ARGV[1])
local first = redis.call('ZRANGE', KEYS[2], 0, 0)
return first[1] or false
`;

// KEYS: slots. ARGV: delivery id, lease end. Extends a lease still held.
const RENEW_LUA = `
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then redis.call('ZADD', KEYS[1], 'XX', ARGV[2], ARGV[1]) end
return 0
`;

interface Scripts {
  tenantTake(...keysThenArgs: (string | number)[]): Promise<number>;
  tenantGive(...keysThenArgs: (string | number)[]): Promise<string | null>;
  tenantRenew(...keysThenArgs: (string | number)[]): Promise<number>;
}

export interface TenantSlotsOptions {
  prefix: string;
  lane: Lane;
  perTenant: number;
  /** How long a slot counts without renewal (ms): a dead node's slots are free after it. */
  leaseMs: number;
  /** How long a parking counts without the delivery coming back (ms). */
  parkMs: number;
}

export class TenantSlots {
  private readonly scripts: Scripts;

  constructor(
    redis: Redis,
    private readonly o: TenantSlotsOptions,
  ) {
    redis.defineCommand('tenantTake', { numberOfKeys: 3, lua: TAKE_LUA });
    redis.defineCommand('tenantGive', { numberOfKeys: 2, lua: GIVE_LUA });
    redis.defineCommand('tenantRenew', { numberOfKeys: 1, lua: RENEW_LUA });
    this.scripts = redis as unknown as Scripts;
  }

  private keys(tenantId: string): [string, string, string] {
    const t = b64u(tenantId);
    const p = this.o.prefix;
    return [`${p}:tslots:${this.o.lane}:${t}`, `${p}:tparked:${this.o.lane}:${t}`, `${p}:tparkexp:${this.o.lane}:${t}`];
  }

  /** Takes a slot for the delivery (true), or parks it behind the tenant's others (false). `order`: when it was enqueued. */
  async take(tenantId: string, deliveryId: string, order: number): Promise<boolean> {
    const now = Date.now();
    const { leaseMs, parkMs, perTenant } = this.o;
    const lifetime = 3 * Math.max(leaseMs, parkMs);
    return (await this.scripts.tenantTake(...this.keys(tenantId), deliveryId, now, now + leaseMs, perTenant, order, now + 2 * parkMs, lifetime)) === 1;
  }

  /** Keeps the delivery's slot for another lease. */
  async renew(tenantId: string, deliveryId: string): Promise<void> {
    await this.scripts.tenantRenew(this.keys(tenantId)[0], deliveryId, Date.now() + this.o.leaseMs);
  }

  /** Frees the delivery's slot; returns the tenant's oldest parked delivery, to be woken. */
  async give(tenantId: string, deliveryId: string): Promise<string | null> {
    const [slots, parked] = this.keys(tenantId);
    return this.scripts.tenantGive(slots, parked, deliveryId);
  }
}
