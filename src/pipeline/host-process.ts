// The parsing process: a child of the node that holds the Piscina pool of parsing threads and
// their WASM engines. Whatever a document does to it — a V8 fatal error, a heap-limit abort
// in a thread (which Node cannot contain in the thread: nodejs/node#47224), a runaway
// allocation — ends this process, not the node's HTTP front or its job loop; the node's
// supervisor (parse-host.ts) starts a new one.
//
// It also owns the subprocesses the parsers start (formats/process-groups.ts): its main thread
// spawns them for the threads' tasks, reaps them, and kills a task's groups when that task
// ends, whichever way it ends. Each group is reported to the node, which kills them if this
// process dies alone, and recorded on disk while it runs, so that what the groups' own guard
// could not kill when the node and this process died together (kill -9 of their process
// group) is killed by the next parsing process started on this machine.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BroadcastChannel } from 'node:worker_threads';
import { ParsePool, PoolTaskError } from './pool.js';
import type { FromHost, ToHost } from './host-protocol.js';
import { ProcessGroupHost, killProcessGroup } from '../formats/process-groups.js';
import { UNITS_CHANNEL, type UnitsMessage } from './unit-meter.js';
import { PROGRESS_CHANNEL, type ProgressMessage } from './task-progress.js';
import { ownStartedAtMs, pidExists, processScope, processStartedAtMs, processStillRuns } from '../data-dir/process-liveness.js';

let pool: ParsePool | null = null;
let statsTimer: NodeJS.Timeout | null = null;

function send(message: FromHost): void {
  if (process.connected) process.send!(message);
}

// ── Records of live groups, for a successor ───────────────────────────────────────────────

/** One file per live group, under this machine's temp dir (a pid means something only here). */
const GROUP_RECORDS = path.join(os.tmpdir(), 'docparse-process-groups');

interface GroupRecord {
  scope: string;
  pgid: number;
  /** The leader's start time: its pid taken by a younger process is not the group's. */
  leaderStartedAtMs: number | null;
  ownerPid: number;
  ownerStartedAtMs: number;
}

const recordPath = (pgid: number) => path.join(GROUP_RECORDS, `${pgid}.json`);

function recordGroup(pgid: number): void {
  const record: GroupRecord = {
    scope: processScope(),
    pgid,
    leaderStartedAtMs: processStartedAtMs(pgid),
    ownerPid: process.pid,
    ownerStartedAtMs: ownStartedAtMs(),
  };
  try {
    fs.mkdirSync(GROUP_RECORDS, { recursive: true, mode: 0o700 });
    fs.writeFileSync(recordPath(pgid), JSON.stringify(record));
  } catch {
    /* a full or read-only temp dir: the group's own guard still holds */
  }
}

function forgetGroup(pgid: number): void {
  fs.rmSync(recordPath(pgid), { force: true });
}

/**
 * Kills the groups recorded by parsing processes that are gone (a live one's, another node's
 * on this machine, are left alone), unless the leader's pid now names a younger process. A
 * group whose leader died may still hold its children: its id is not reused while it does.
 */
function killGroupsOfDeadOwners(): void {
  let names: string[];
  try {
    names = fs.readdirSync(GROUP_RECORDS);
  } catch {
    return;
  }
  for (const name of names) {
    const file = path.join(GROUP_RECORDS, name);
    let record: GroupRecord;
    try {
      record = JSON.parse(fs.readFileSync(file, 'utf8')) as GroupRecord;
    } catch {
      continue; // being written by its owner this instant
    }
    if (record.scope !== processScope() || processStillRuns(record.ownerPid, record.ownerStartedAtMs)) continue;
    const sameLeader = record.leaderStartedAtMs !== null && processStartedAtMs(record.pgid) === record.leaderStartedAtMs;
    if (!pidExists(record.pgid) || sameLeader) killProcessGroup(record.pgid);
    fs.rmSync(file, { force: true });
  }
}

killGroupsOfDeadOwners();

const groups = new ProcessGroupHost({
  started: (pgid) => {
    recordGroup(pgid);
    send({ type: 'process-group', op: 'add', pgid });
  },
  ended: (pgid) => {
    forgetGroup(pgid);
    send({ type: 'process-group', op: 'remove', pgid });
  },
});

// Unit reservations: threads ask here, the node answers (it holds the control plane).
const units = new BroadcastChannel(UNITS_CHANNEL);
units.onmessage = (event) => {
  const m = (event as { data: UnitsMessage }).data;
  if (m.op === 'reserve') send({ type: 'reserve', id: m.taskId, reqId: m.reqId, total: m.total });
};

// Progress of the threads' tasks, passed on to the node (for the jobs' live status).
const progress = new BroadcastChannel(PROGRESS_CHANNEL);
progress.onmessage = (event) => {
  const m = (event as { data: ProgressMessage }).data;
  send({ type: 'progress', id: m.taskId, fraction: m.fraction });
};

async function init(options: Extract<ToHost, { type: 'init' }>['pool']): Promise<void> {
  // Threads start with the first tasks; the pool compiles an engine when a thread first needs it.
  pool = new ParsePool(options);
  send({ type: 'ready', stats: pool.stats() });
  statsTimer = setInterval(() => pool && send({ type: 'stats', stats: pool.stats() }), 1000);
  statsTimer.unref();
}

/** The running tasks' cancel switches (an 'abort' message pulls one). */
const cancels = new Map<string, AbortController>();

async function run(id: string, message: Extract<ToHost, { type: 'run' }>): Promise<void> {
  const task = { ...message.task, taskId: id };
  const cancel = new AbortController();
  cancels.set(id, cancel);
  try {
    const result = await pool!.run(task, cancel.signal);
    send({ type: 'done', id, result });
  } catch (err) {
    const kind = err instanceof PoolTaskError ? err.kind : 'crash';
    send({ type: 'failed', id, kind, message: (err as Error)?.message ?? String(err) });
  } finally {
    cancels.delete(id);
    // Kills what the task started (LibreOffice's process group), however it ended.
    groups.taskEnded(id);
  }
}

async function close(): Promise<void> {
  if (statsTimer) clearInterval(statsTimer);
  await pool?.close();
  groups.close();
  units.close();
  progress.close();
  process.disconnect?.();
}

process.on('message', (message: ToHost) => {
  if (message.type === 'init') {
    init(message.pool).catch((err) => {
      console.error('parsing process could not start:', err);
      process.exit(70);
    });
  } else if (message.type === 'run') {
    void run(message.id, message);
  } else if (message.type === 'reserved') {
    const { outcome } = message;
    units.postMessage({
      op: 'reserved',
      reqId: message.reqId,
      ok: outcome.ok,
      ...(outcome.ok ? {} : { message: outcome.message, transient: outcome.transient }),
    } satisfies UnitsMessage);
  } else if (message.type === 'abort') {
    cancels.get(message.id)?.abort();
  } else if (message.type === 'close') {
    void close().finally(() => process.exit(0));
  }
});

// The node is gone (stopped, or killed with -9): nothing may outlive it.
process.on('disconnect', () => {
  groups.killAll();
  process.exit(0);
});

// Ctrl-C in a terminal signals the whole process group; the node decides when this process
// stops (it finishes or hands back running tasks first), so signals are left to it.
process.on('SIGINT', () => {});
process.on('SIGTERM', () => {});
