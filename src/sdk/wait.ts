// How waitFor learns that jobs moved: a StatusFeed yields the statuses it has seen, again
// and again, until the caller stops. One job is followed on its live status stream (live.ts);
// several, or when the stream cannot be had, by polling the batch status endpoint with back-off.
import { sleep } from './transport.js';
import type { BatchStatusItem, JobStatus } from './types.js';

export type StatusFeed = (documentIds: string[], signal: AbortSignal) => AsyncIterable<BatchStatusItem[]>;

export interface PollingBackoff {
  /** First pause between polls (250 ms). */
  initialMs: number;
  /** Each pause is the last one times this (1.5)… */
  factor: number;
  /** …up to this (5 s). */
  maxMs: number;
}

export const DEFAULT_POLLING: PollingBackoff = { initialMs: 250, factor: 1.5, maxMs: 5000 };

/** completed (8) or failed (9). */
export function isTerminal(s: Pick<JobStatus, 'statusInt'>): boolean {
  return s.statusInt === 8 || s.statusInt === 9;
}

/** Polls the ids not yet finished; the pause grows while nothing changes and starts over when something does. */
export function pollingFeed(batch: (ids: string[], signal: AbortSignal) => Promise<BatchStatusItem[]>, backoff: PollingBackoff = DEFAULT_POLLING): StatusFeed {
  return async function* poll(documentIds, signal) {
    const pending = new Set(documentIds);
    const last = new Map<string, number>();
    let pause = backoff.initialMs;
    for (;;) {
      const seen = await batch([...pending], signal);
      yield seen;
      let changed = false;
      for (const item of seen) {
        if (!('statusInt' in item)) continue;
        if (last.get(item.documentId) !== item.statusInt) changed = true;
        last.set(item.documentId, item.statusInt);
        if (isTerminal(item)) pending.delete(item.documentId);
      }
      if (pending.size === 0) return;
      pause = changed ? backoff.initialMs : Math.min(backoff.maxMs, pause * backoff.factor);
      await sleep(pause, signal);
    }
  };
}
