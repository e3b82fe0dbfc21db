// Progress of a running parse, for the job's live status (jobs/events.ts). Parsers already
// report a fraction, often (ParseInput.progress); the thread passes it on at most once a
// second, and not during a task's first second (a short job reports nothing), over a
// BroadcastChannel to the parsing process, which sends it to the node over IPC.
import { BroadcastChannel } from 'node:worker_threads';

export const PROGRESS_CHANNEL = 'docparse:progress';
/** Least time between two reports of one task, and before its first (ms). */
export const PROGRESS_INTERVAL_MS = 1000;

export interface ProgressMessage {
  taskId: string;
  /** 0..1 */
  fraction: number;
}

let channel: BroadcastChannel | null = null;

function open(): BroadcastChannel {
  if (channel) return channel;
  channel = new BroadcastChannel(PROGRESS_CHANNEL);
  (channel as unknown as { unref?: () => void }).unref?.();
  return channel;
}

/** The progress callback of one task in its thread (no task id: a direct call, reports nothing). */
export function progressReporter(taskId: string | undefined, now: () => number = Date.now): (fraction: number) => void {
  if (!taskId) return () => {};
  let next = now() + PROGRESS_INTERVAL_MS;
  return (fraction) => {
    const t = now();
    if (t < next || !Number.isFinite(fraction)) return;
    next = t + PROGRESS_INTERVAL_MS;
    open().postMessage({ taskId, fraction: Math.min(1, Math.max(0, fraction)) } satisfies ProgressMessage);
  };
}
