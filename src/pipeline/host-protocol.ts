// Messages between a node (pipeline/parse-host.ts) and its parsing process
// (pipeline/host-process.ts), over the child-process IPC channel.
import type { PoolFailureKind, PoolOptions, PoolStats } from './pool.js';
import type { ParseTask, ParseTaskResult } from './task.js';
import type { ReserveOutcome } from './unit-meter.js';

/** Pool settings the parsing process is started with (its WASM modules it compiles itself). */
export type HostPoolOptions = Omit<PoolOptions, 'wasmModules'>;

export type ToHost =
  | { type: 'init'; pool: HostPoolOptions }
  | { type: 'run'; id: string; task: ParseTask }
  | { type: 'reserved'; reqId: string; outcome: ReserveOutcome }
  /** The task's job was cancelled: stop it (its thread and its process groups). */
  | { type: 'abort'; id: string }
  | { type: 'close' };

export type FromHost =
  | { type: 'ready'; stats: PoolStats }
  | { type: 'stats'; stats: PoolStats }
  | { type: 'done'; id: string; result: ParseTaskResult }
  | { type: 'failed'; id: string; kind: PoolFailureKind; message: string }
  | { type: 'process-group'; op: 'add' | 'remove'; pgid: number }
  /** How far a task is (task-progress.ts): at most once a second. */
  | { type: 'progress'; id: string; fraction: number }
  /** A task's parser asks for Document Units (unit-meter.ts). */
  | { type: 'reserve'; id: string; reqId: string; total: number };
