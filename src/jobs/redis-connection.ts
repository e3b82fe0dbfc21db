// How docparse's Redis connections behave when Redis goes away and comes back.
//
// Request path (job store, rate counters, the queue's enqueue side): a command sent while
// Redis is unreachable fails at once, so the request answers 503 instead of waiting out the
// outage. Worker side (BullMQ Workers): commands wait for Redis to return, so a finished job's
// acknowledgement is not lost to a blip. Both reconnect every ≤ 1 s, so the node serves again
// about a second after Redis is back (ioredis' default backoff reaches 5 s, BullMQ's 20 s).

import { createRequire } from 'node:module';
import type { Redis, RedisOptions } from 'ioredis';

/** ioredis, loaded when a node first connects to Redis (an embedded node never does). */
export const loadIoredis = (): typeof import('ioredis') => createRequire(import.meta.url)('ioredis') as typeof import('ioredis');

import { DependencyUnavailableError, isSocketError } from '../errors/dependency-unavailable.js';
import { errorInfo, type JobLogger } from './support.js';

/** Delay before reconnection attempt n (1-based): 100 ms, 200 ms, … then every second. */
export function reconnectDelayMs(attempt: number): number {
  return Math.min(100 * attempt, 1000);
}

/**
 * Redis hung or the network partitioned: the socket stays open, so nothing else would end the
 * wait. A request-path command without an answer within this long fails, and a connection that
 * receives nothing for this long while commands are pending is dropped and rebuilt, so the
 * requests that follow fail at once instead of each waiting. Every such command is a key
 * lookup or a short script (milliseconds).
 */
export const REQUEST_COMMAND_TIMEOUT_MS = 1000;

/** How long a node waits at start for Redis to accept its first connection. */
export const FIRST_CONNECT_TIMEOUT_MS = 10_000;

/**
 * Options for request-path connections, without the offline-queue switch (see
 * openRequestRedis). maxRetriesPerRequest 0: commands in flight when the connection drops
 * fail at once rather than being resent after reconnection.
 */
export function requestPathOptions() {
  return {
    maxRetriesPerRequest: 0,
    commandTimeout: REQUEST_COMMAND_TIMEOUT_MS,
    socketTimeout: REQUEST_COMMAND_TIMEOUT_MS,
    retryStrategy: reconnectDelayMs,
    connectTimeout: 2000,
  } satisfies RedisOptions;
}

/**
 * Options for a BullMQ Queue used at upload time. BullMQ itself waits for the first
 * connection, so the offline queue can be off from the start.
 */
export function enqueueConnectionOptions(url: string) {
  return { url, ...({ ...requestPathOptions(), enableOfflineQueue: false } satisfies RedisOptions) };
}

/**
 * Options for BullMQ Workers. BullMQ requires maxRetriesPerRequest null on their (blocking)
 * connections; commands then wait through an outage, which is what the worker side wants.
 */
export function workerConnectionOptions(url: string) {
  return { url, ...({ maxRetriesPerRequest: null, retryStrategy: reconnectDelayMs } satisfies RedisOptions) };
}

/**
 * A request-path connection. Commands issued before the first connection wait for it (a store
 * is usable right after construction); from then on, commands issued while Redis is away fail
 * at once instead of queueing for the length of the outage.
 */
export function openRequestRedis(url: string, name: string, log?: JobLogger): Redis {
  // Commands issued in the same tick by different requests and jobs share one socket write.
  const redis = new (loadIoredis().Redis)(url, { ...requestPathOptions(), enableAutoPipelining: true });
  redis.once('ready', () => {
    redis.options.enableOfflineQueue = false;
  });
  reportOutages(redis, name, log);
  return redis;
}

/**
 * Logs once when an established connection is lost and once when it is back. Without an
 * 'error' listener ioredis would print every failed reconnection attempt to stderr.
 */
function reportOutages(redis: Redis, name: string, log?: JobLogger): void {
  let wasReady = false;
  let down = false;
  let lastError: unknown;
  redis.on('error', (err) => {
    lastError = err;
  });
  redis.on('ready', () => {
    if (down) log?.warn({ connection: name }, 'jobs: Redis is reachable again');
    wasReady = true;
    down = false;
  });
  redis.on('close', () => {
    if (!wasReady || down || redis.status === 'end') return;
    down = true;
    log?.warn({ connection: name, ...errorInfo(lastError) }, 'jobs: Redis connection lost; requests that need it answer 503 until it returns');
  });
}

/** Waits for the connection to be usable, or fails with DependencyUnavailableError after timeoutMs. */
export async function waitForRedis(redis: Redis, role: string, timeoutMs = FIRST_CONNECT_TIMEOUT_MS): Promise<void> {
  if (redis.status === 'ready') return;
  let lastError: unknown;
  const onError = (err: unknown) => {
    lastError = err;
  };
  redis.on('error', onError);
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new DependencyUnavailableError('Redis', role, lastError ?? new Error(`no connection within ${timeoutMs} ms`))),
        timeoutMs,
      );
      redis.once('ready', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  } finally {
    redis.off('error', onError);
  }
}

/** ioredis messages that mean the command never got an answer from Redis. */
const CONNECTION_MESSAGES = [
  "Stream isn't writeable", // offline queue off, not connected
  'Connection is closed', // connection ended
  'Command timed out', // commandTimeout
  'Command aborted due to connection close',
  'Socket timeout', // socketTimeout
  'Reached the max retries per request limit', // MaxRetriesPerRequestError
];
/** Replies from a Redis that is up but cannot serve yet (loading its data, stuck in a script). */
const NOT_SERVING_REPLIES = /^(LOADING|BUSY|MASTERDOWN|TRYAGAIN)\b/;

/** True when err says Redis could not be reached or could not serve, not that the command was wrong. */
export function isRedisUnavailableError(err: unknown): boolean {
  if (err instanceof DependencyUnavailableError) return err.dependency === 'Redis';
  if (!(err instanceof Error)) return false;
  if (err.name === 'MaxRetriesPerRequestError') return true;
  if (isSocketError(err)) return true;
  const m = err.message ?? '';
  return CONNECTION_MESSAGES.some((s) => m.includes(s)) || NOT_SERVING_REPLIES.test(m);
}

/** err as a DependencyUnavailableError when Redis was unreachable; otherwise err itself. */
export function asRedisUnavailable(err: unknown, role: string): unknown {
  if (err instanceof DependencyUnavailableError) return err;
  return isRedisUnavailableError(err) ? new DependencyUnavailableError('Redis', role, err) : err;
}

/** Runs a request-path operation, turning "Redis unreachable" failures into DependencyUnavailableError. */
export async function failFast<T>(role: string, op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (err) {
    throw asRedisUnavailable(err, role);
  }
}

/** Connection states of a connection that was up and is now lost. */
const LOST = new Set(['reconnecting', 'close', 'end']);

/**
 * Fails at once when the connection is lost (readiness checks must not wait for a
 * reconnection). Before the first connection, the ping waits for it like any command.
 */
export async function pingRedis(redis: Redis, role: string): Promise<void> {
  if (LOST.has(redis.status)) throw new DependencyUnavailableError('Redis', role, new Error(`connection ${redis.status}`));
  await failFast(role, () => redis.ping());
}
