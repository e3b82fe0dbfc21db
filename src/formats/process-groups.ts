// Subprocesses a parser starts (LibreOffice) run in process groups of their own, and none may
// outlive the task that started it, nor the process that holds it, whatever kills that process.
//
// Who spawns. Inside the parsing process a thread asks the process's main thread to run the
// subprocess (over a BroadcastChannel). A child belongs to the thread that spawned it: only
// that thread's event loop waits for it, so one spawned by a thread torn down at a task's
// timeout would be left unreaped, a zombie. The main thread lives as long as the process,
// reaps every child it starts, and kills a task's groups when the task ends, however it ends.
// Without a parsing process (parsers run directly: tests, benches) the caller spawns itself.
//
// Parent death. On Linux the group's leader is a guard shell started through util-linux's
// `setpriv --pdeathsig TERM`: when the thread that spawned it dies — with its whole process,
// even by SIGKILL — the kernel sends the guard SIGTERM and the guard kills its group,
// LibreOffice's soffice.bin and helpers included (they are not its direct children, so a
// death signal of their own would not do). The parsing process also records each group for
// the node and for its own successor (pipeline/host-process.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { BroadcastChannel, isMainThread, threadId } from 'node:worker_threads';

export const PROCESS_GROUP_CHANNEL = 'docparse:process-groups';

/** A command to run in a group of its own, killed with its group past `timeoutMs`. */
export interface GroupCommand {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
}

export interface GroupOutcome {
  /** The leader's exit code (null when a signal ended it). */
  code: number | null;
  /** The first 8 KB of its standard error. */
  stderr: string;
  timedOut: boolean;
}

type ChannelMessage =
  | { op: 'run'; reqId: string; taskId: string; run: GroupCommand }
  | { op: 'ended'; reqId: string; outcome: GroupOutcome }
  | { op: 'failed'; reqId: string; message: string };

const STDERR_BYTES = 8192;

/** SIGKILL to a whole process group; a group that is already gone is fine. */
export function killProcessGroup(pgid: number): void {
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    /* already gone */
  }
}

const SETPRIV_LOCATIONS = ['/usr/bin/setpriv', '/bin/setpriv'];
let setprivPath: string | null | undefined;

/** util-linux's setpriv (every Debian and most Linux systems), or null. */
function setpriv(): string | null {
  if (setprivPath === undefined) {
    setprivPath =
      SETPRIV_LOCATIONS.find((p) => {
        try {
          fs.accessSync(p, fs.constants.X_OK);
          return true;
        } catch {
          return false;
        }
      }) ?? null;
  }
  return setprivPath;
}

// `sh -c GUARD docparse-guard <command> <args…>`: the command runs in the background so that
// the shell is free to take SIGTERM (its parent died) and kill its whole group, itself too.
// The trap is set before the command starts; SIGTERM before that ends the shell alone.
const GUARD = 'trap "kill -KILL 0" TERM; "$@" </dev/null & wait $!';

/**
 * Spawns `command` as the leader of a new process group (detached) that dies with the calling
 * thread where setpriv exists (see above); elsewhere only the callers' kills guard it.
 */
export function spawnTiedGroup(command: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  const guard = setpriv();
  const [bin, argv] = guard ? [guard, ['--pdeathsig', 'TERM', '--', '/bin/sh', '-c', GUARD, 'docparse-guard', command, ...args]] : [command, args];
  return spawn(bin, argv, { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env });
}

interface GroupHooks {
  started?(pgid: number): void;
  ended?(pgid: number): void;
}

/** Runs a command in this thread, in a tied group, to its end or its timeout. */
function runHere(run: GroupCommand, hooks: GroupHooks = {}): Promise<GroupOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawnTiedGroup(run.command, run.args, run.env);
    const pgid = child.pid;
    if (pgid) hooks.started?.(pgid);
    let stderr = '';
    let timedOut = false;
    child.stdout!.resume();
    child.stderr!.on('data', (d: Buffer) => {
      if (stderr.length < STDERR_BYTES) stderr += d.toString();
    });
    const timer = setTimeout(() => {
      timedOut = true;
      if (pgid) killProcessGroup(pgid);
    }, run.timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      if (!pgid) return;
      // The leader is reaped; helpers it left in its group go with it (and stop holding the
      // output pipes open, so 'close' follows).
      killProcessGroup(pgid);
      hooks.ended?.(pgid);
    });
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('close', (code) => resolve({ code, stderr, timedOut }));
  });
}

// ── A parsing thread's side ───────────────────────────────────────────────────────────────

let currentTaskId: string | null = null;
let threadChannel: BroadcastChannel | null = null;
let seq = 0;
const waiting = new Map<string, { resolve(o: GroupOutcome): void; reject(err: Error): void; timer: NodeJS.Timeout }>();

/** How long past its own timeout a run may go unanswered before the thread gives up on it. */
const ANSWER_GRACE_MS = 15_000;

/** Called by the parsing thread before it runs a task (null after it). */
export function enterTask(taskId: string | null): void {
  currentTaskId = taskId;
}

function channelOfThread(): BroadcastChannel {
  if (threadChannel) return threadChannel;
  threadChannel = new BroadcastChannel(PROCESS_GROUP_CHANNEL);
  // A thread must be able to exit while the channel is open; a pending run's timer holds it.
  (threadChannel as unknown as { unref?: () => void }).unref?.();
  threadChannel.onmessage = (event) => {
    const m = (event as { data: ChannelMessage }).data;
    if (m.op === 'run') return;
    const w = waiting.get(m.reqId);
    if (!w) return; // another thread's answer
    waiting.delete(m.reqId);
    clearTimeout(w.timer);
    if (m.op === 'ended') w.resolve(m.outcome);
    else w.reject(new Error(m.message));
  };
  return threadChannel;
}

/**
 * Runs a command in a process group of its own to its end or its timeout: by the parsing
 * process's main thread inside one of its tasks, else right here. Rejects when it cannot start.
 */
export function runProcessGroup(run: GroupCommand): Promise<GroupOutcome> {
  const taskId = currentTaskId;
  if (taskId === null || isMainThread) return runHere(run);
  const reqId = `${threadId}-${++seq}`;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      waiting.delete(reqId);
      reject(new Error('the parsing process did not answer for its subprocess'));
    }, run.timeoutMs + ANSWER_GRACE_MS);
    waiting.set(reqId, { resolve, reject, timer });
    channelOfThread().postMessage({ op: 'run', reqId, taskId, run } satisfies ChannelMessage);
  });
}

// ── The parsing process's main thread ─────────────────────────────────────────────────────

/** Told of every group the host starts and of its end (the node, the successor's sweep). */
export type GroupLedger = GroupHooks;

/** Runs the groups its threads' tasks ask for, and kills a task's groups when the task ends. */
export class ProcessGroupHost {
  private readonly channel = new BroadcastChannel(PROCESS_GROUP_CHANNEL);
  private readonly groupsByTask = new Map<string, Set<number>>();
  /** Tasks that have ended recently: a request that arrives late is refused. */
  private readonly endedTasks = new Set<string>();

  constructor(private readonly ledger: GroupLedger = {}) {
    this.channel.onmessage = (event) => {
      const m = (event as { data: ChannelMessage }).data;
      if (m.op === 'run') this.run(m);
    };
  }

  private run({ reqId, taskId, run }: Extract<ChannelMessage, { op: 'run' }>): void {
    const reply = (m: ChannelMessage) => this.channel.postMessage(m);
    if (this.endedTasks.has(taskId)) return reply({ op: 'failed', reqId, message: 'the task has ended' });
    runHere(run, {
      started: (pgid) => {
        let set = this.groupsByTask.get(taskId);
        if (!set) this.groupsByTask.set(taskId, (set = new Set()));
        set.add(pgid);
        this.ledger.started?.(pgid);
      },
      ended: (pgid) => {
        this.groupsByTask.get(taskId)?.delete(pgid);
        this.ledger.ended?.(pgid);
      },
    }).then(
      (outcome) => reply({ op: 'ended', reqId, outcome }),
      (err: Error) => reply({ op: 'failed', reqId, message: err.message }),
    );
  }

  /** The task ended, whichever way: its groups are killed (and their leaders reaped here). */
  taskEnded(taskId: string): void {
    for (const pgid of this.groupsByTask.get(taskId) ?? []) killProcessGroup(pgid);
    this.groupsByTask.delete(taskId);
    this.endedTasks.add(taskId);
    // Late requests arrive within a tick or two; the set stays small.
    setTimeout(() => this.endedTasks.delete(taskId), 60_000).unref();
  }

  killAll(): void {
    for (const set of this.groupsByTask.values()) for (const pgid of set) killProcessGroup(pgid);
    this.groupsByTask.clear();
  }

  close(): void {
    this.killAll();
    this.channel.close();
  }
}
