// The parsing process: a child of the node that holds the Piscina pool of parsing threads and
// their WASM engines. Whatever a document does to it — a V8 fatal error, a heap-limit abort
// in a thread (which Node cannot contain in the thread: nodejs/node#47224), a runaway
// allocation — ends this process, not the node's HTTP front or its job loop; the node's
// supervisor (parse-host.ts) starts a new one.
//
// It also owns the subprocesses the parsers start: every process group a task registers
// (formats/process-groups.ts) is killed when that task ends, whichever way it ends, and the
// node is told of each group so it can kill them if this whole process dies.
import { BroadcastChannel } from 'node:worker_threads';
import { ParsePool, PoolTaskError } from './pool.js';
import type { FromHost, ToHost } from './host-protocol.js';
import { PROCESS_GROUP_CHANNEL, killProcessGroup, type ProcessGroupMessage } from '../formats/process-groups.js';
import { UNITS_CHANNEL, type UnitsMessage } from './unit-meter.js';
import { compilePdfiumModule } from '../formats/pdf/pdfium-loader.js';
import { compileTesseractModule } from '../formats/pdf/tesseract-loader.js';

let pool: ParsePool | null = null;
let statsTimer: NodeJS.Timeout | null = null;

/** Process groups by the task that started them; tasks that have ended. */
const groupsByTask = new Map<string, Set<number>>();
const endedTasks = new Set<string>();

function send(message: FromHost): void {
  if (process.connected) process.send!(message);
}

const channel = new BroadcastChannel(PROCESS_GROUP_CHANNEL);
channel.onmessage = (event) => {
  const m = (event as { data: ProcessGroupMessage }).data;
  send({ type: 'process-group', op: m.op, pgid: m.pgid });
  if (!m.taskId) return;
  if (m.op === 'add') {
    // A registration that arrives after its task ended (the thread was torn down right after
    // posting it) is killed at once.
    if (endedTasks.has(m.taskId)) return killProcessGroup(m.pgid);
    let set = groupsByTask.get(m.taskId);
    if (!set) groupsByTask.set(m.taskId, (set = new Set()));
    set.add(m.pgid);
  } else {
    groupsByTask.get(m.taskId)?.delete(m.pgid);
  }
};

// Unit reservations: threads ask here, the node answers (it holds the control plane).
const units = new BroadcastChannel(UNITS_CHANNEL);
units.onmessage = (event) => {
  const m = (event as { data: UnitsMessage }).data;
  if (m.op === 'reserve') send({ type: 'reserve', id: m.taskId, reqId: m.reqId, total: m.total });
};

function taskEnded(taskId: string): void {
  for (const pgid of groupsByTask.get(taskId) ?? []) killProcessGroup(pgid);
  groupsByTask.delete(taskId);
  endedTasks.add(taskId);
  // Late registrations arrive within a tick or two; the set stays small.
  setTimeout(() => endedTasks.delete(taskId), 60_000).unref();
}

function killAllGroups(): void {
  for (const set of groupsByTask.values()) for (const pgid of set) killProcessGroup(pgid);
  groupsByTask.clear();
}

async function init(options: Extract<ToHost, { type: 'init' }>['pool']): Promise<void> {
  // Compiled once here, instantiated in each thread (compiling per thread costs seconds).
  const wasmModules = {
    pdfium: (await compilePdfiumModule(options.parsers.pdf.optimizedPdfium)) as WebAssembly.Module,
    tesseract: (await compileTesseractModule()) as WebAssembly.Module,
  };
  pool = new ParsePool({ ...options, wasmModules });
  send({ type: 'ready', stats: pool.stats() });
  statsTimer = setInterval(() => pool && send({ type: 'stats', stats: pool.stats() }), 1000);
  statsTimer.unref();
}

async function run(id: string, message: Extract<ToHost, { type: 'run' }>): Promise<void> {
  const task = { ...message.task, taskId: id };
  try {
    const result = await pool!.run(task);
    send({ type: 'done', id, result });
  } catch (err) {
    const kind = err instanceof PoolTaskError ? err.kind : 'crash';
    send({ type: 'failed', id, kind, message: (err as Error)?.message ?? String(err) });
  } finally {
    taskEnded(id);
  }
}

async function close(): Promise<void> {
  if (statsTimer) clearInterval(statsTimer);
  await pool?.close();
  killAllGroups();
  channel.close();
  units.close();
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
  } else if (message.type === 'close') {
    void close().finally(() => process.exit(0));
  }
});

// The node is gone (stopped, or killed with -9): nothing may outlive it.
process.on('disconnect', () => {
  killAllGroups();
  process.exit(0);
});

// Ctrl-C in a terminal signals the whole process group; the node decides when this process
// stops (it finishes or hands back running tasks first), so signals are left to it.
process.on('SIGINT', () => {});
process.on('SIGTERM', () => {});
