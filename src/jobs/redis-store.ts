// JobStore on Redis, shared by every node.
//
// Key layout (P = options.prefix):
//   P:jobs:rec:<recordKey>         hash, one per (tenantId, documentId):
//                                    r  JSON of the record as put
//                                    g  generation        s  statusInt      u  updatedAt
//                                    e  expiresAt (ms)    ak name of the app's unfinished zset
//                                    p:<field>  JSON of a field set by transition() (overrides r)
//                                  PEXPIREAT = expiresAt + expiredGraceMs (default 24 h).
//   P:jobs:exp                     zset recordKey → expiresAt ms: the retention sweep's index.
//   P:jobs:unf                     zset recordKey → expiresAt ms, states 0–7, every app.
//   P:jobs:unf:app:<b64u(appId)>   zset recordKey → expiresAt ms, states 0–7, one app.
// recordKey = base64url(tenantId) "." base64url(documentId).
//
// TTL vs sweeper: a record is invisible from expiresAt on (get() checks it), but its hash
// lives `expiredGraceMs` longer, so the sweeper (listExpired → delete blobs → delete) still
// finds the full record, with uploadKey/artifactKey/storageConfigId, as long as it runs at
// least once per grace period. The hash TTL is only the backstop against leaking Redis
// memory when no sweeper runs at all; blobs of records dropped that way are left to the
// blob store's lifecycle rule. Index members whose hash is gone are pruned on read.
//
// put/transition/delete are Lua scripts, so the generation check, the legality check and the
// write are one atomic step across nodes. Scripts touch the app zset named in the hash (`ak`),
// so this layout targets standalone/Sentinel Redis, not Redis Cluster.
//
// Outages: the connection fails fast (redis-connection.ts). Every method throws
// DependencyUnavailableError ("job store (Redis)") while Redis is unreachable, at once, and
// works again as soon as the connection is back.

import type { Redis } from 'ioredis';

import { IllegalTransitionError, isTerminal, isUnfinished, legalSources } from './transitions.js';
import type { JobRecord, JobRef, JobStateInt, JobStore } from './types.js';
import { b64u, checkedPatch, consoleLogger, expiresAtMs, isExpired, recordKey, type JobLogger } from './support.js';
import { asRedisUnavailable, failFast, openRequestRedis, pingRedis } from './redis-connection.js';

/** How the store is named in 503 details and readiness output. */
const ROLE = 'job store';

export interface RedisJobStoreOptions {
  url: string;
  /** Namespace for every key, e.g. 'docparse'. */
  prefix: string;
  /** How long a record's hash outlives its expiresAt, for the sweeper (default 24 h). */
  expiredGraceMs?: number;
  /** Clock, for tests. */
  now?: () => number;
  /** Where losing and regaining the connection is reported. */
  log?: JobLogger;
}

type TransitionPatch = Parameters<JobStore['transition']>[2];

// ARGV[9] = '1': an upload session, refused while an unexpired job with its bytes (s ≥ 1,
// e ≥ ARGV[10]) is stored under the id. ARGV[11]: the job's event channel (jobs/events.ts):
// every stored change is published there, in the order Redis applies them. ARGV[12] = '1':
// nothing is written while a live job of another generation (unexpired, with its bytes, not
// failed) is stored under the id; it is returned, marked, for the caller to decide (putUnlessLive).
const PUT_LUA = `
local prev = redis.call('HGETALL', KEYS[1])
if ARGV[9] == '1' and #prev > 0 then
  local s = tonumber(redis.call('HGET', KEYS[1], 's'))
  local e = tonumber(redis.call('HGET', KEYS[1], 'e'))
  if s ~= nil and s >= 1 and e ~= nil and e >= tonumber(ARGV[10]) then return {'__refused__', '1'} end
end
if ARGV[12] == '1' and #prev > 0 then
  local v = redis.call('HMGET', KEYS[1], 'g', 's', 'e')
  if v[1] ~= ARGV[3] and v[2] ~= '0' and v[2] ~= '9' and tonumber(v[3] or '0') >= tonumber(ARGV[10]) then
    table.insert(prev, 1, '1')
    table.insert(prev, 1, '__live__')
    return prev
  end
end
if #prev > 0 then
  local oldAk = redis.call('HGET', KEYS[1], 'ak')
  if oldAk then redis.call('ZREM', oldAk, ARGV[1]) end
  redis.call('DEL', KEYS[1])
end
redis.call('HSET', KEYS[1], 'r', ARGV[2], 'g', ARGV[3], 's', ARGV[4], 'u', ARGV[5], 'e', ARGV[6], 'ak', KEYS[4])
redis.call('PEXPIREAT', KEYS[1], ARGV[7])
redis.call('ZADD', KEYS[2], ARGV[6], ARGV[1])
redis.call('PUBLISH', ARGV[11], 's ' .. ARGV[3] .. ' ' .. ARGV[4] .. ' ' .. ARGV[5])
if ARGV[8] == '1' then
  redis.call('ZADD', KEYS[3], ARGV[6], ARGV[1])
  redis.call('ZADD', KEYS[4], ARGV[6], ARGV[1])
else
  redis.call('ZREM', KEYS[3], ARGV[1])
  redis.call('ZREM', KEYS[4], ARGV[1])
end
return prev
`;

// ARGV: member, generation, to, ",legal,sources,", nowMs, updatedAt, terminal, event channel, field, value...
const TRANSITION_LUA = `
local v = redis.call('HMGET', KEYS[1], 'g', 's', 'e', 'ak')
if not v[1] or v[1] ~= ARGV[2] or tonumber(v[3]) < tonumber(ARGV[5]) then return false end
if not string.find(ARGV[4], ',' .. v[2] .. ',', 1, true) then
  return redis.error_reply('ILLEGAL_TRANSITION ' .. v[2])
end
redis.call('HSET', KEYS[1], 's', ARGV[3], 'u', ARGV[6])
for i = 9, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
if ARGV[7] == '1' then
  redis.call('ZREM', KEYS[2], ARGV[1])
  if v[4] then redis.call('ZREM', v[4], ARGV[1]) end
end
redis.call('PUBLISH', ARGV[8], 's ' .. ARGV[2] .. ' ' .. ARGV[3] .. ' ' .. ARGV[6])
return redis.call('HGETALL', KEYS[1])
`;

// A light job's delivery (startLight). ARGV: generation, the delivery's attempt, maxAttempts,
// nowMs, updatedAt, event channel. Waiting in 2 or 5 under that generation, unexpired, with an
// attempt (the delivery's, or the stored attempts + 1 if more) within maxAttempts: moved to 3
// with attempts and startedAt (kept when set), as the worker's transition would. Returns
// {1, record} when moved, else {0, record as stored} (the worker's read, for its other paths).
const START_LIGHT_LUA = `
local v = redis.call('HMGET', KEYS[1], 'g', 's', 'e', 'p:attempts', 'p:startedAt', 'r')
if v[1] ~= ARGV[1] or (v[2] ~= '2' and v[2] ~= '5') or tonumber(v[3] or '0') < tonumber(ARGV[4]) then
  return {0, redis.call('HGETALL', KEYS[1])}
end
local rec = nil
local function stored(name)
  if not rec then rec = cjson.decode(v[6]) end
  return rec[name]
end
local attempts = tonumber(v[4] or '')
if not attempts then
  attempts = stored('attempts')
  if type(attempts) ~= 'number' then attempts = 0 end
end
local attempt = math.max(tonumber(ARGV[2]), attempts + 1)
if attempt > tonumber(ARGV[3]) then return {0, redis.call('HGETALL', KEYS[1])} end
local hasStart
if v[5] then hasStart = v[5] ~= 'null' else hasStart = type(stored('startedAt')) == 'string' end
redis.call('HSET', KEYS[1], 's', '3', 'u', ARGV[5], 'p:attempts', string.format('%d', attempt))
if not hasStart then redis.call('HSET', KEYS[1], 'p:startedAt', '"' .. ARGV[5] .. '"') end
redis.call('PUBLISH', ARGV[6], 's ' .. ARGV[1] .. ' 3 ' .. ARGV[5])
return {1, redis.call('HGETALL', KEYS[1])}
`;

// ARGV: nowMs. Expired members are dropped (invisible, never counted again), the rest counted.
const COUNT_UNFINISHED_LUA = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[1])
return redis.call('ZCOUNT', KEYS[1], ARGV[1], '+inf')
`;

// ARGV: member, generation ('' = any)
const DELETE_LUA = `
local v = redis.call('HMGET', KEYS[1], 'g', 'ak')
if not v[1] then
  redis.call('ZREM', KEYS[2], ARGV[1])
  redis.call('ZREM', KEYS[3], ARGV[1])
  return 0
end
if ARGV[2] ~= '' and v[1] ~= ARGV[2] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
if v[2] then redis.call('ZREM', v[2], ARGV[1]) end
return 1
`;

// KEYS: record hashes. Returns each one's HGETALL: a batch read is one command, however many ids
// it names (a batch status poll costs the node one reply to decode, not one per id).
const READ_MANY_LUA = `
local out = {}
for i, key in ipairs(KEYS) do out[i] = redis.call('HGETALL', key) end
return out
`;

/** Records one read script fetches at most (a larger read is split: Redis runs nothing else meanwhile). */
const READ_MANY_CHUNK = 256;

interface Scripts {
  jobReadMany(...keysThenArgs: (string | number)[]): Promise<string[][]>;
  jobPut(...args: (string | number)[]): Promise<string[]>;
  jobTransition(...args: (string | number)[]): Promise<string[] | null>;
  jobDelete(...args: (string | number)[]): Promise<number>;
  jobStartLight(...args: (string | number)[]): Promise<[number, string[]]>;
  jobCountUnfinished(...args: (string | number)[]): Promise<number>;
}

function pairsToObject(flat: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) out[flat[i]] = flat[i + 1];
  return out;
}

function decode(h: Record<string, string> | null | undefined): JobRecord | null {
  if (!h || h.r === undefined) return null;
  const rec = JSON.parse(h.r) as Record<string, unknown>;
  for (const [field, value] of Object.entries(h)) {
    if (field.startsWith('p:')) rec[field.slice(2)] = JSON.parse(value);
  }
  rec.statusInt = Number(h.s);
  rec.updatedAt = h.u;
  return rec as unknown as JobRecord;
}

export class RedisJobStore implements JobStore {
  readonly redis: Redis;
  private readonly scripts: Scripts;
  private readonly p: string;
  private readonly graceMs: number;
  private readonly now: () => number;
  private readonly log: JobLogger;

  constructor(opts: RedisJobStoreOptions) {
    if (!opts.prefix) throw new Error('RedisJobStore: prefix is required');
    this.p = `${opts.prefix}:jobs`;
    this.graceMs = opts.expiredGraceMs ?? 24 * 3600_000;
    this.now = opts.now ?? Date.now;
    this.log = opts.log ?? consoleLogger;
    this.redis = openRequestRedis(opts.url, ROLE, opts.log);
    this.redis.defineCommand('jobPut', { numberOfKeys: 4, lua: PUT_LUA });
    this.redis.defineCommand('jobTransition', { numberOfKeys: 2, lua: TRANSITION_LUA });
    this.redis.defineCommand('jobDelete', { numberOfKeys: 3, lua: DELETE_LUA });
    this.redis.defineCommand('jobStartLight', { numberOfKeys: 1, lua: START_LIGHT_LUA });
    this.redis.defineCommand('jobCountUnfinished', { numberOfKeys: 1, lua: COUNT_UNFINISHED_LUA });
    // Without numberOfKeys: each call passes its key count first.
    this.redis.defineCommand('jobReadMany', { lua: READ_MANY_LUA });
    this.scripts = this.redis as unknown as Scripts;
  }

  private recKey(member: string): string {
    return `${this.p}:rec:${member}`;
  }
  /** Where the scripts publish the job's changes (jobs/events.ts jobChannel). */
  private channel(member: string): string {
    return `${this.p}:ev:${member}`;
  }
  private get expKey(): string {
    return `${this.p}:exp`;
  }
  private get unfKey(): string {
    return `${this.p}:unf`;
  }
  private appKey(appId: string): string {
    return `${this.p}:unf:app:${b64u(appId)}`;
  }

  async put(job: JobRecord): Promise<JobRecord | null> {
    const prev = await this.putRecord(job, false);
    return decode(pairsToObject(prev));
  }

  async putSession(job: JobRecord): Promise<{ previous: JobRecord | null } | null> {
    const prev = await this.putRecord(job, true);
    if (prev[0] === '__refused__') return null;
    return { previous: decode(pairsToObject(prev)) };
  }

  async putUnlessLive(job: JobRecord): Promise<{ stored: true; previous: JobRecord | null } | { stored: false; live: JobRecord }> {
    const prev = pairsToObject(await this.putRecord(job, false, true));
    if (prev.__live__ === undefined) return { stored: true, previous: decode(prev) };
    return { stored: false, live: decode(prev)! };
  }

  private async putRecord(job: JobRecord, session: boolean, unlessLive = false): Promise<string[]> {
    const exp = expiresAtMs(job);
    const member = recordKey(job.tenantId, job.documentId);
    const prev = await failFast(ROLE, () =>
      this.scripts.jobPut(
        this.recKey(member),
        this.expKey,
        this.unfKey,
        this.appKey(job.appId),
        member,
        JSON.stringify(job),
        job.generation,
        job.statusInt,
        job.updatedAt,
        exp,
        exp + this.graceMs,
        isUnfinished(job.statusInt) ? '1' : '0',
        session ? '1' : '0',
        this.now(),
        this.channel(member),
        unlessLive ? '1' : '0',
      ),
    );
    return prev;
  }

  private visible(rec: JobRecord | null): JobRecord | null {
    if (!rec || isExpired(rec, this.now())) return null;
    return rec;
  }

  async get(tenantId: string, documentId: string): Promise<JobRecord | null> {
    const h = await failFast(ROLE, () => this.redis.hgetall(this.recKey(recordKey(tenantId, documentId))));
    return this.visible(decode(h));
  }

  async getMany(tenantId: string, documentIds: string[]): Promise<(JobRecord | null)[]> {
    if (documentIds.length === 0) return [];
    return this.visibleMany(documentIds.map((id) => recordKey(tenantId, id)));
  }

  private async visibleMany(members: string[]): Promise<(JobRecord | null)[]> {
    const records = await this.fetchMany(members);
    return records.map((r) => this.visible(r));
  }

  private async fetchMany(members: string[]): Promise<(JobRecord | null)[]> {
    const records = await this.fetchManyTolerant(members);
    return records.map((r) => {
      if (r instanceof Error) throw r;
      return r;
    });
  }

  /** Like fetchMany, but a hash that does not decode is returned as its error, not thrown. */
  private async fetchManyTolerant(members: string[]): Promise<(JobRecord | null | Error)[]> {
    if (members.length === 0) return [];
    const chunks: Promise<string[][]>[] = [];
    for (let i = 0; i < members.length; i += READ_MANY_CHUNK) {
      const keys = members.slice(i, i + READ_MANY_CHUNK).map((m) => this.recKey(m));
      chunks.push(this.scripts.jobReadMany(keys.length, ...keys));
    }
    const hashes = (await failFast(ROLE, () => Promise.all(chunks))).flat();
    return hashes.map((flat) => {
      try {
        return decode(pairsToObject(flat));
      } catch (e) {
        return e as Error;
      }
    });
  }

  async transition(
    ref: Pick<JobRef, 'tenantId' | 'documentId' | 'generation'>,
    to: JobStateInt,
    patch?: TransitionPatch,
    opts?: { from?: readonly JobStateInt[] },
  ): Promise<JobRecord | null> {
    const from = opts?.from;
    const sources = from ? legalSources(to).filter((s) => from.includes(s)) : legalSources(to);
    const member = recordKey(ref.tenantId, ref.documentId);
    const fields: string[] = [];
    for (const [k, v] of Object.entries(checkedPatch(patch))) fields.push(`p:${k}`, JSON.stringify(v));
    const now = this.now();
    try {
      const res = await this.scripts.jobTransition(
        this.recKey(member),
        this.unfKey,
        member,
        ref.generation,
        to,
        `,${sources.join(',')},`,
        now,
        new Date(now).toISOString(),
        isTerminal(to) ? '1' : '0',
        this.channel(member),
        ...fields,
      );
      return res ? decode(pairsToObject(res)) : null;
    } catch (err) {
      const m = /ILLEGAL_TRANSITION (\d+)/.exec(String((err as Error)?.message));
      if (m) throw new IllegalTransitionError(Number(m[1]), to);
      throw asRedisUnavailable(err, ROLE);
    }
  }

  async startLight(
    ref: Pick<JobRef, 'tenantId' | 'documentId' | 'generation'>,
    attempt: number,
    maxAttempts: number,
  ): Promise<{ job: JobRecord | null; started: boolean }> {
    const member = recordKey(ref.tenantId, ref.documentId);
    const now = this.now();
    const [moved, flat] = await failFast(ROLE, () =>
      this.scripts.jobStartLight(this.recKey(member), ref.generation, attempt, maxAttempts, now, new Date(now).toISOString(), this.channel(member)),
    );
    const job = decode(pairsToObject(flat));
    return moved === 1 ? { job, started: true } : { job: this.visible(job), started: false };
  }

  async delete(tenantId: string, documentId: string, generation?: string): Promise<void> {
    const member = recordKey(tenantId, documentId);
    await failFast(ROLE, () => this.scripts.jobDelete(this.recKey(member), this.expKey, this.unfKey, member, generation ?? ''));
  }

  listExpired(now: Date, limit: number): Promise<JobRecord[]> {
    return failFast(ROLE, () => this.expiredRecords(now, limit));
  }

  private async expiredRecords(now: Date, limit: number): Promise<JobRecord[]> {
    const out: JobRecord[] = [];
    const t = now.getTime();
    let offset = 0;
    while (out.length < limit) {
      const want = limit - out.length;
      const members = await this.redis.zrangebyscore(this.expKey, '-inf', `(${t}`, 'LIMIT', offset, want);
      if (members.length === 0) break;
      const records = await this.fetchManyTolerant(members);
      const dangling: string[] = [];
      records.forEach((r, i) => {
        if (r instanceof Error) {
          // One bad record must not stop the sweep for every tenant: it is skipped (and left in
          // the index, so a later sweep sees it again) while the rest is swept.
          this.log.error({ record: members[i], err: r.message }, 'jobs: expired record does not decode; skipped by the sweep');
        } else if (r) out.push(r);
        else dangling.push(members[i]);
      });
      // Hashes dropped by their TTL (no sweeper ran within the grace period): prune the index.
      if (dangling.length > 0) await this.redis.zrem(this.expKey, ...dangling);
      offset += members.length - dangling.length;
      if (members.length < want) break;
    }
    return out;
  }

  async countUnfinished(appId: string): Promise<number> {
    // One script, not MULTI … EXEC: one reply to read instead of four.
    return Number(await failFast(ROLE, () => this.scripts.jobCountUnfinished(this.appKey(appId), this.now())));
  }

  async listUnfinished(): Promise<JobRecord[]> {
    const now = this.now();
    const members = await failFast(ROLE, () => this.redis.zrangebyscore(this.unfKey, now, '+inf'));
    const records = await this.visibleMany(members);
    return records.filter((r): r is JobRecord => r !== null && isUnfinished(r.statusInt)).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  /** Fails at once while the connection is down (readiness must not wait for a reconnection). */
  ping(): Promise<void> {
    return pingRedis(this.redis, ROLE);
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
