// Quota tallies in Redis, shared by every node of a cluster: one hash per app and month,
// P:quota:{appId}:YYYY-MM, holding `charged`, `held`, `epoch`, `next` (the soonest expiry of a
// hold), one field per hold, k:<chargeKey> = "<units>|<expires ms>", and one per charge counted
// whose ledger row is not confirmed yet, c:<chargeKey> = "counted" (or "shared" once another
// settle of the key relied on the count). Each decision is one
// Lua script, so checking and holding is a single step across nodes. One hash per month means
// Redis loses a month's tally whole or not at all; the keeper seeds it again from the ledger
// (HSETNX, so every node agrees on one rebuild), with a new epoch. The holds lost with it only
// let jobs in flight go on: each reserves again or settles against the rebuilt charged total.
// A hold whose node died lapses at its expiry. The hash expires three days into the next month.
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { failFast, openRequestRedis, pingRedis } from '../../jobs/redis-connection.js';
import type { JobLogger } from '../../jobs/support.js';
import type { HoldRef } from './keeper.js';
import { previousMonth } from './keeper.js';
import type { Tallies, TallyCharge, TallyCharged, TallyHold, TallyRefusal } from './tallies.js';

const ROLE = 'quota';

// Shared by the scripts: KEYS[1] is the month's tally.
const PRELUDE = `
local t = KEYS[1]
local function num(f) return tonumber(redis.call('HGET', t, f) or '0') end
-- Drops the holds that lapsed (their node died) and recounts the rest; only once one may have.
local function purge(now, force)
  local nxt = redis.call('HGET', t, 'next')
  if not force and (not nxt or tonumber(nxt) > now) then return end
  local all = redis.call('HGETALL', t)
  local held, soonest, soonestText = 0, nil, nil
  for i = 1, #all, 2 do
    if string.sub(all[i], 1, 2) == 'k:' then
      local units, expiresText = string.match(all[i + 1], '^(%d+)|(%d+)$')
      local expires = tonumber(expiresText)
      if expires <= now then
        redis.call('HDEL', t, all[i])
      else
        held = held + tonumber(units)
        if not soonest or expires < soonest then soonest, soonestText = expires, expiresText end
      end
    end
  end
  redis.call('HSET', t, 'held', held)
  if soonestText then redis.call('HSET', t, 'next', soonestText) else redis.call('HDEL', t, 'next') end
end
-- Drops one job's hold from a month's tally.
local function drop(key, field)
  local h = redis.call('HGET', key, field)
  if h then
    redis.call('HINCRBY', key, 'held', -tonumber(string.match(h, '^(%d+)')))
    redis.call('HDEL', key, field)
  end
end
`;

// ARGV: now. Returns charged + held, or -1 when the month has no tally.
const COMMITTED = `${PRELUDE}
if redis.call('HEXISTS', t, 'charged') == 0 then return -1 end
purge(tonumber(ARGV[1]), false)
return num('charged') + num('held')
`;

// ARGV: hold field, units, quota, now, expires, tally expiry. Returns {1}, {0, charged, others' holds} or {-1}.
const HOLD = `${PRELUDE}
if redis.call('HEXISTS', t, 'charged') == 0 then return {-1} end
purge(tonumber(ARGV[4]), false)
local units, quota = tonumber(ARGV[2]), tonumber(ARGV[3])
local h = redis.call('HGET', t, ARGV[1])
local own = h and tonumber(string.match(h, '^(%d+)')) or 0
local charged = num('charged')
local others = num('held') - own
if charged + others + units > quota then return {0, charged, others} end
redis.call('HSET', t, ARGV[1], ARGV[2] .. '|' .. ARGV[5])
redis.call('HINCRBY', t, 'held', units - own)
local nxt = redis.call('HGET', t, 'next')
if not nxt or tonumber(ARGV[5]) < tonumber(nxt) then redis.call('HSET', t, 'next', ARGV[5]) end
redis.call('PEXPIREAT', t, ARGV[6])
return {1}
`;

// KEYS[2]: last month's tally. ARGV: charge key, units, quota, now. Drops the hold, then
// charges and marks if the units fit; a key marked already is not counted again, and its mark
// is shared. Returns {1, epoch, 1 when counted before}, {0, charged, held} or {-1}.
const CHARGE = `${PRELUDE}
if redis.call('HEXISTS', t, 'charged') == 0 then return {-1} end
purge(tonumber(ARGV[4]), false)
drop(t, 'k:' .. ARGV[1])
drop(KEYS[2], 'k:' .. ARGV[1])
local epoch = redis.call('HGET', t, 'epoch')
if redis.call('HEXISTS', t, 'c:' .. ARGV[1]) == 1 then
  redis.call('HSET', t, 'c:' .. ARGV[1], 'shared')
  return {1, epoch, 1}
end
local units = tonumber(ARGV[2])
local charged, held = num('charged'), num('held')
if charged + held + units > tonumber(ARGV[3]) then return {0, charged, held} end
redis.call('HINCRBY', t, 'charged', units)
redis.call('HSET', t, 'c:' .. ARGV[1], 'counted')
return {1, epoch, 0}
`;

// KEYS[2]: last month's tally. ARGV: hold field.
const RELEASE = `${PRELUDE}
drop(t, ARGV[1])
drop(KEYS[2], ARGV[1])
return 1
`;

// KEYS: one tally per charge (one app's, so one cluster slot). ARGV: charge key, epoch, units
// per charge, in KEYS' order. Each charge's row is in the ledger: its mark goes; a tally
// rebuilt after the charge was counted may have missed the row, so it is added.
const CONFIRM_MANY = `
for i, t in ipairs(KEYS) do
  local j = (i - 1) * 3
  local e = redis.call('HGET', t, 'epoch')
  if e then
    redis.call('HDEL', t, 'c:' .. ARGV[j + 1])
    if e ~= ARGV[j + 2] then redis.call('HINCRBY', t, 'charged', tonumber(ARGV[j + 3])) end
  end
end
return 1
`;

/** Confirms one script call carries at most. */
const CONFIRM_CHUNK = 256;

interface PendingConfirm {
  c: TallyCharge;
  epoch: string;
  resolve(): void;
  reject(err: unknown): void;
}

// ARGV: charge key, epoch, units. Only the tally that counted the charge gives it back, and
// only while no other settle of the key relied on the count (a mark gone or shared).
const UNCHARGE = `${PRELUDE}
if redis.call('HGET', t, 'epoch') ~= ARGV[2] then return 0 end
if redis.call('HGET', t, 'c:' .. ARGV[1]) ~= 'counted' then return 0 end
redis.call('HDEL', t, 'c:' .. ARGV[1])
redis.call('HINCRBY', t, 'charged', -tonumber(ARGV[3]))
return 1
`;

// ARGV: charged (the ledger's sum), epoch, now, tally expiry. The first seed wins.
const SEED = `${PRELUDE}
if redis.call('HSETNX', t, 'charged', ARGV[1]) == 1 then
  redis.call('HSET', t, 'epoch', ARGV[2])
  purge(tonumber(ARGV[3]), true)
  redis.call('PEXPIREAT', t, ARGV[4])
end
return 1
`;

type Script = (...keysThenArgs: (string | number)[]) => Promise<unknown>;
interface Scripts {
  quotaCommitted: Script;
  quotaHold: Script;
  quotaCharge: Script;
  quotaRelease: Script;
  quotaUncharge: Script;
  quotaConfirmMany: Script;
  quotaSeed: Script;
}

export interface RedisTalliesOptions {
  url: string;
  /** Key namespace (the node's Redis prefix). */
  prefix: string;
  log?: JobLogger;
}

export class RedisTallies implements Tallies {
  readonly redis: Redis;
  private readonly scripts: Scripts;
  /** Confirms waiting for this turn's script call (confirm). */
  private readonly confirms: PendingConfirm[] = [];

  constructor(private readonly o: RedisTalliesOptions) {
    // Request-path behaviour: fails at once while Redis is away (an upload answers 503, a job
    // waits for the node's probe), like the job store.
    this.redis = openRequestRedis(o.url, ROLE, o.log);
    const scripts: [keyof Scripts, string, number][] = [
      ['quotaCommitted', COMMITTED, 1],
      ['quotaHold', HOLD, 1],
      ['quotaCharge', CHARGE, 2],
      ['quotaRelease', RELEASE, 2],
      ['quotaUncharge', UNCHARGE, 1],
      ['quotaSeed', SEED, 1],
    ];
    for (const [name, lua, numberOfKeys] of scripts) this.redis.defineCommand(name, { lua, numberOfKeys });
    // Without numberOfKeys: each call passes its key count first.
    this.redis.defineCommand('quotaConfirmMany', { lua: CONFIRM_MANY });
    this.scripts = this.redis as unknown as Scripts;
  }

  /** The hash of an app's month; the hash tag keeps an app's months in one cluster slot (a script touches two). */
  key(appId: string, month: string): string {
    return `${this.o.prefix}:quota:{${appId}}:${month}`;
  }

  async committed(appId: string, month: string, now: number): Promise<number | null> {
    const n = Number(await this.run((s) => s.quotaCommitted(this.key(appId, month), now)));
    return n < 0 ? null : n;
  }

  async hold(h: TallyHold, now: number): Promise<{ ok: true } | TallyRefusal | null> {
    const r = (await this.run((s) =>
      s.quotaHold(this.key(h.appId, h.month), `k:${h.chargeKey}`, h.units, h.quota, now, h.expiresAt, tallyExpiry(h.month, now)),
    )) as number[];
    return r[0] === 1 ? { ok: true } : r[0] === 0 ? { ok: false, used: Number(r[1]), held: Number(r[2]) } : null;
  }

  async charge(c: TallyCharge, now: number): Promise<TallyCharged | TallyRefusal | null> {
    const r = (await this.run((s) =>
      s.quotaCharge(this.key(c.appId, c.month), this.key(c.appId, previousMonth(c.month)), c.chargeKey, c.units, c.quota, now),
    )) as (number | string)[];
    if (r[0] === 1) return { ok: true, epoch: String(r[1]), counted: r[2] === 1 };
    return r[0] === 0 ? { ok: false, used: Number(r[1]), held: Number(r[2]) } : null;
  }

  async release(h: HoldRef): Promise<void> {
    await this.run((s) => s.quotaRelease(this.key(h.appId, h.month), this.key(h.appId, previousMonth(h.month)), `k:${h.chargeKey}`));
  }

  /**
   * Confirms asked in the same turn of the event loop go in one script call per app: the
   * ledger commits charges in groups (ledger-batch.ts), so their confirms come together.
   */
  confirm(c: TallyCharge, epoch: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.confirms.push({ c, epoch, resolve, reject });
      if (this.confirms.length === 1) setImmediate(() => this.sendConfirms());
    });
  }

  private sendConfirms(): void {
    const byApp = new Map<string, PendingConfirm[]>();
    for (const p of this.confirms.splice(0)) {
      const group = byApp.get(p.c.appId);
      if (group) group.push(p);
      else byApp.set(p.c.appId, [p]);
    }
    for (const group of byApp.values()) {
      for (let i = 0; i < group.length; i += CONFIRM_CHUNK) {
        const chunk = group.slice(i, i + CONFIRM_CHUNK);
        const keys = chunk.map((p) => this.key(p.c.appId, p.c.month));
        const args = chunk.flatMap((p) => [p.c.chargeKey, p.epoch, p.c.units]);
        this.run((s) => s.quotaConfirmMany(keys.length, ...keys, ...args)).then(
          () => chunk.forEach((p) => p.resolve()),
          (err: unknown) => chunk.forEach((p) => p.reject(err)),
        );
      }
    }
  }

  async uncharge(c: TallyCharge, epoch: string): Promise<void> {
    await this.run((s) => s.quotaUncharge(this.key(c.appId, c.month), c.chargeKey, epoch, c.units));
  }

  async seed(appId: string, month: string, charged: number, now: number): Promise<void> {
    await this.run((s) => s.quotaSeed(this.key(appId, month), charged, randomBytes(8).toString('hex'), now, tallyExpiry(month, now)));
  }

  ping(): Promise<void> {
    return pingRedis(this.redis, ROLE);
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  private run<T>(op: (s: Scripts) => Promise<T>): Promise<T> {
    return failFast(ROLE, () => op(this.scripts));
  }
}

const DAY_MS = 86_400_000;

/**
 * Three days into the month after `month` (ms): late settles of the month still find its
 * tally; then it goes. A tally seeded again for a month long past (a settle retried after a
 * long outage) lives a day.
 */
function tallyExpiry(month: string, now: number): number {
  const [y, m] = month.split('-').map(Number);
  return Math.max(Date.UTC(y, m, 1) + 3 * DAY_MS, now + DAY_MS);
}
