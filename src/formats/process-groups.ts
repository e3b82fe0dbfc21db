// Subprocesses a parser starts (LibreOffice) run in process groups of their own. Their own
// kill timers live in the parsing thread, so they die with it when the task is stopped at its
// timeout or the thread is torn down; this registry tells the parsing process which groups
// each task holds, so it can kill them when the task ends, whatever way it ends.
//
// Threads post to a BroadcastChannel; the parsing process's main thread (pipeline/
// host-process.ts) listens. With no listener (parsers run directly in tests) the messages
// go nowhere and the parser's own timer is the only guard, as before.
import { BroadcastChannel } from 'node:worker_threads';

export const PROCESS_GROUP_CHANNEL = 'docparse:process-groups';

export interface ProcessGroupMessage {
  op: 'add' | 'remove';
  /** Process group id (the leader's pid: the child was spawned detached). */
  pgid: number;
  /** The task that started it, or null outside a task. */
  taskId: string | null;
}

let channel: BroadcastChannel | null = null;
let currentTaskId: string | null = null;

function post(message: ProcessGroupMessage): void {
  if (!channel) {
    channel = new BroadcastChannel(PROCESS_GROUP_CHANNEL);
    // A thread must be able to exit while the channel is open.
    (channel as unknown as { unref?: () => void }).unref?.();
  }
  channel.postMessage(message);
}

/** Called by the parsing thread before it runs a task: later groups belong to that task. */
export function enterTask(taskId: string | null): void {
  currentTaskId = taskId;
}

/** A detached child was started: its group must not outlive the task. */
export function trackProcessGroup(pgid: number): void {
  post({ op: 'add', pgid, taskId: currentTaskId });
}

/** The group's leader was reaped normally: nothing to kill any more. */
export function untrackProcessGroup(pgid: number): void {
  post({ op: 'remove', pgid, taskId: currentTaskId });
}

/** SIGKILL to a whole process group; a group that is already gone is fine. */
export function killProcessGroup(pgid: number): void {
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    /* already gone */
  }
}
