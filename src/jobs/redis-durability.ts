// Start-up check that Redis keeps what docparse puts in it. Accepted jobs live only in Redis
// (records, queue entries): a Redis that does not persist loses every one of them on restart,
// and one that evicts keys under memory pressure loses them at random. Neither shows as an
// error anywhere, so the node says so in its log at start.
//
// Wanted: `appendonly yes` (AOF; RDB snapshots alone lose what came after the last one) and
// `maxmemory-policy noeviction`. Managed services often disable CONFIG: then the node warns
// that it could not verify, and starts anyway.

import type { Redis } from 'ioredis';
import { loadIoredis } from './redis-connection.js';

import { errorInfo } from './support.js';

export interface DurabilityLogger {
  info?(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface RedisDurability {
  /** true: AOF on and no eviction; false: a problem was found; null: CONFIG GET was refused. */
  durable: boolean | null;
  appendonly: string | null;
  save: string | null;
  maxmemoryPolicy: string | null;
  /** One sentence per problem found (also logged as warnings). */
  problems: string[];
}

/** Longest the check may hold up a start. */
const CHECK_TIMEOUT_MS = 3000;

async function configGet(redis: Redis, name: string): Promise<string | null> {
  const reply = (await redis.call('CONFIG', 'GET', name)) as unknown;
  // RESP2: [name, value]; RESP3: { name: value }.
  if (Array.isArray(reply)) return reply.length >= 2 ? String(reply[1]) : null;
  if (reply && typeof reply === 'object') return String((reply as Record<string, unknown>)[name] ?? '') || null;
  return null;
}

/** What is wrong with these settings, as sentences for an operator. */
export function durabilityProblems(s: { appendonly: string | null; save: string | null; maxmemoryPolicy: string | null }): string[] {
  const problems: string[] = [];
  if (s.appendonly !== 'yes') {
    problems.push(
      s.save && s.save.trim() !== ''
        ? `Redis persists only RDB snapshots (save "${s.save}"): jobs accepted after the last snapshot are lost when Redis restarts; set appendonly yes`
        : 'Redis does not persist (appendonly no, no save points): every accepted job is lost when Redis restarts; set appendonly yes',
    );
  }
  if (s.maxmemoryPolicy !== null && s.maxmemoryPolicy !== 'noeviction') {
    problems.push(
      `Redis evicts keys under memory pressure (maxmemory-policy ${s.maxmemoryPolicy}): jobs and queue entries can disappear; set maxmemory-policy noeviction`,
    );
  }
  return problems;
}

/**
 * Reads appendonly, save and maxmemory-policy and warns about each setting that can lose
 * jobs. Takes a URL (a short-lived connection is opened) or a connected client (left open).
 * Never throws: a start is not refused over this.
 */
export async function checkRedisDurability(target: string | Redis, log: DurabilityLogger): Promise<RedisDurability> {
  const own = typeof target === 'string';
  const redis = own
    ? new (loadIoredis().Redis)(target, { maxRetriesPerRequest: 0, lazyConnect: true, connectTimeout: CHECK_TIMEOUT_MS, retryStrategy: () => null })
    : target;
  if (own) redis.on('error', () => {}); // reported through the refused command below
  let timer: NodeJS.Timeout | undefined;
  try {
    const read = async () => {
      if (own) await redis.connect();
      const [appendonly, save, maxmemoryPolicy] = await Promise.all([
        configGet(redis, 'appendonly'),
        configGet(redis, 'save'),
        configGet(redis, 'maxmemory-policy'),
      ]);
      return { appendonly, save, maxmemoryPolicy };
    };
    const settings = await Promise.race([
      read(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
      }),
    ]);
    const problems = durabilityProblems(settings);
    for (const p of problems) log.warn({ redis: settings }, `jobs: ${p}`);
    if (problems.length === 0) log.info?.({ redis: settings }, 'jobs: Redis persists (appendonly yes) and does not evict');
    return { durable: problems.length === 0, ...settings, problems };
  } catch (err) {
    log.warn(
      errorInfo(err),
      'jobs: could not verify that Redis persists (CONFIG GET refused or no answer); make sure it runs with appendonly yes and maxmemory-policy noeviction, or accepted jobs can be lost',
    );
    return { durable: null, appendonly: null, save: null, maxmemoryPolicy: null, problems: [] };
  } finally {
    clearTimeout(timer);
    if (own) redis.disconnect();
  }
}
