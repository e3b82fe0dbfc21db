// The node's side of parsing: runs tasks in a supervised child process (host-process.ts) that
// holds the Piscina pool, the way Tika runs its parsers in forked JVMs. A document that
// aborts, exhausts or hangs that process takes down only the process: this supervisor starts
// a new one at once and sorts out the tasks it held.
//
// Blame. Only the task that brought the process down is charged: a process that dies with
// one task in flight names its culprit. One that dies holding several does not, so each of
// them runs again, alone (nothing else is started while a suspect runs); a suspect that
// completes is cleared, one that kills the process again is the culprit. Innocent tasks are
// re-run here and their jobs never see the crash.
//
// Turns. Tasks waiting for a thread are taken in turns by tenant (jobs/tenant-turns.ts), not in
// arrival order: the light lane runs more handlers than threads, so a tenant's flood would
// otherwise hold every place in this queue ahead of another tenant's job.
//
// Ceilings. Every thread has a V8 heap ceiling (resourceLimits), and the process's main thread,
// which runs small CSV tasks itself (inline-tasks.ts), the same one; the process has an RSS
// ceiling, sampled from /proc, and is killed past it; every task on a thread has a timeout in
// the process, and every task a hard deadline here, in case the process stops answering.
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import type { Logger } from 'pino';
import type { FromHost, HostPoolOptions, ToHost } from './host-protocol.js';
import { PoolTaskError, pipelineEntry, type PoolFailureKind, type PoolStats } from './pool.js';
import type { ParseTask, ParseTaskResult } from './task.js';
import { killProcessGroup } from '../formats/process-groups.js';
import { failureReasons } from './failure-reasons.js';
import type { ReserveOutcome } from './unit-meter.js';
import { TenantTurns } from '../jobs/tenant-turns.js';

export interface ParseHostOptions extends HostPoolOptions {
  /** The parsing process is killed when its resident memory passes this (MB). */
  maxProcessRssMb: number;
  logger: Logger;
  /** Time the process gets to answer past a task's own timeout before it is killed (ms). */
  deadlineGraceMs?: number;
  /**
   * Flags for the parsing process's node, for diagnostics only (config.parserNodeArgs,
   * DOCPARSE_PARSER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof": docs/development.md).
   */
  nodeArgs?: string[];
}

/** What the node lends a running task. */
export interface TaskHooks {
  /** The parser asks for `total` Document Units in all (unit-meter.ts); absent: always granted. */
  reserveUnits?(total: number): Promise<ReserveOutcome>;
  /**
   * Aborted when the job is cancelled: a waiting task is dropped, a running one is stopped in
   * the parsing process (its thread, its process groups); run() rejects with kind 'cancelled'.
   */
  signal?: AbortSignal;
  /** How far the parse is (0..1), at most once a second (pipeline/task-progress.ts). */
  progress?(fraction: number): void;
  /** Whose task it is: waiting tasks take the threads in turns by tenant. */
  tenantId?: string;
}

/** What the node needs of a parsing backend: the worker loop and health use only this. */
export interface TaskRunner {
  run(task: ParseTask, hooks?: TaskHooks): Promise<ParseTaskResult>;
  stats(): PoolStats;
  ready(): boolean;
  /** Lets running tasks finish, then stops the parsing process. */
  close(): Promise<void>;
  /** Stops the parsing process at once: every task in flight or waiting is rejected. */
  abandon(): Promise<void>;
}

interface Pending {
  id: string;
  task: ParseTask;
  hooks: TaskHooks;
  /** Was in flight when the process died with others: runs alone until it is cleared. */
  suspect: boolean;
  deadline: NodeJS.Timeout | null;
  resolve(result: ParseTaskResult): void;
  reject(err: Error): void;
}

/** Why the supervisor itself killed the process, and for which task. */
type Kill = { why: 'memory'; rssMb: number } | { why: 'deadline'; taskId: string };

const RSS_SAMPLE_MS = 250;

export class ParseHost implements TaskRunner {
  private child: ChildProcess | null = null;
  private childReady = false;
  private childStats: PoolStats = { threads: 0, queued: 0, running: 0, utilization: 0 };
  /** Tasks waiting for a thread, in turns by tenant. */
  private readonly waiting = new TenantTurns<Pending>();
  /** Tasks that were in flight when the process died with others: each runs alone, before any waiting task. */
  private readonly suspects: Pending[] = [];
  private readonly inFlight = new Map<string, Pending>();
  /** Process groups the current parsing process reported (LibreOffice …). */
  private readonly groups = new Set<number>();
  private stderrTail = '';
  private kill: Kill | null = null;
  private rssTimer: NodeJS.Timeout | null = null;
  private seq = 0;
  private closing = false;
  private quickDeaths = 0;
  /** whenReady() callers waiting for the next 'ready'. */
  private readonly readyWaiters = new Set<() => void>();
  /** Parsing processes started and lost; for node-state, /metrics and tests. */
  restarts = 0;
  /** The parsing process's resident memory at its last sample (every RSS_SAMPLE_MS), or null while none runs. */
  rssBytes: number | null = null;

  constructor(private readonly opts: ParseHostOptions) {
    this.spawn();
  }

  run(task: ParseTask, hooks: TaskHooks = {}): Promise<ParseTaskResult> {
    if (this.closing) return Promise.reject(new PoolTaskError('the parsing process is shutting down', 'crash'));
    if (hooks.signal?.aborted) return Promise.reject(new PoolTaskError('the job was cancelled', 'cancelled'));
    return new Promise((resolve, reject) => {
      const pending: Pending = { id: `${process.pid}-${++this.seq}`, task, hooks, suspect: false, deadline: null, resolve, reject };
      hooks.signal?.addEventListener('abort', () => this.cancel(pending), { once: true });
      this.waiting.push(hooks.tenantId ?? '', pending);
      this.pump();
    });
  }

  /** A cancelled job's task: dropped while it waits; stopped by the parsing process while it runs (which answers 'failed'). */
  private cancel(p: Pending): void {
    if (this.waiting.remove(p.hooks.tenantId ?? '', p)) {
      p.reject(new PoolTaskError('the job was cancelled', 'cancelled'));
    } else if (this.inFlight.has(p.id)) this.send({ type: 'abort', id: p.id });
  }

  stats(): PoolStats {
    return { ...this.childStats, queued: this.childStats.queued + this.waiting.size + this.suspects.length, running: this.inFlight.size };
  }

  /** The parsing process is up and answers (its threads start with the first tasks). */
  ready(): boolean {
    return this.childReady;
  }

  /** Resolves true once a parsing process is up, or false after `timeoutMs`. */
  whenReady(timeoutMs: number): Promise<boolean> {
    if (this.ready()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.readyWaiters.delete(up);
        resolve(false);
      }, timeoutMs);
      const up = () => {
        clearTimeout(timer);
        resolve(true);
      };
      this.readyWaiters.add(up);
    });
  }

  /** The parsing process's pid (tests, diagnostics). */
  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    for (const p of this.takeAllWaiting()) p.reject(new PoolTaskError('the parsing process is shutting down', 'crash'));
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    this.send({ type: 'close' });
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }

  async abandon(): Promise<void> {
    this.closing = true;
    for (const p of this.takeAllWaiting()) p.reject(new PoolTaskError('the parsing process is shutting down', 'crash'));
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    // onExit rejects the tasks it held and kills the process groups it started (LibreOffice).
    child.kill('SIGKILL');
    await exited;
  }

  private takeAllWaiting(): Pending[] {
    return [...this.suspects.splice(0), ...this.waiting.drain()];
  }

  private spawn(): void {
    const child = fork(pipelineEntry('host-process.js'), [], {
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
      // The node's own flags (a test runner's loaders, inspector ports) are not the parser's.
      // The process's own heap gets a thread's ceiling: small tasks run on its main thread (inline-tasks.ts).
      execArgv: [`--max-old-space-size=${this.opts.maxHeapMb}`, ...(this.opts.nodeArgs ?? [])],
    });
    this.child = child;
    this.childReady = false;
    this.stderrTail = '';
    this.kill = null;
    const startedAt = Date.now();
    child.stderr!.on('data', (chunk: Buffer) => {
      process.stderr.write(chunk);
      this.stderrTail = (this.stderrTail + chunk.toString()).slice(-4096);
    });
    child.on('message', (m: FromHost) => this.onMessage(m));
    child.on('error', (err) => this.opts.logger.error({ err }, 'parsing process error'));
    child.once('exit', (code, signal) => this.onExit(code, signal, Date.now() - startedAt));
    const { maxProcessRssMb, logger, deadlineGraceMs, nodeArgs, ...pool } = this.opts;
    this.send({ type: 'init', pool });
    this.rssTimer = setInterval(() => this.checkRss(child), RSS_SAMPLE_MS);
    this.rssTimer.unref();
  }

  private send(message: ToHost): void {
    if (this.child?.connected) this.child.send(message);
  }

  private onMessage(m: FromHost): void {
    switch (m.type) {
      case 'ready':
        this.childReady = true;
        this.quickDeaths = 0;
        this.childStats = m.stats;
        this.wakeReadyWaiters();
        this.pump();
        return;
      case 'stats':
        this.childStats = m.stats;
        this.wakeReadyWaiters();
        return;
      case 'reserve':
        void this.reserve(m.id, m.reqId, m.total);
        return;
      case 'progress':
        this.inFlight.get(m.id)?.hooks.progress?.(m.fraction);
        return;
      case 'process-group':
        if (m.op === 'add') this.groups.add(m.pgid);
        else this.groups.delete(m.pgid);
        return;
      case 'done':
      case 'failed': {
        const p = this.inFlight.get(m.id);
        if (!p) return;
        this.settle(p);
        if (m.type === 'done') p.resolve(m.result);
        else p.reject(new PoolTaskError(m.message, m.kind));
        this.pump();
      }
    }
  }

  private async reserve(id: string, reqId: string, total: number): Promise<void> {
    const hook = this.inFlight.get(id)?.hooks.reserveUnits;
    let outcome: ReserveOutcome;
    try {
      outcome = hook ? await hook(total) : { ok: true };
    } catch (err) {
      this.opts.logger.warn({ err, total }, 'could not reserve Document Units');
      outcome = { ok: false, message: 'The Document Units for this document could not be reserved (the control plane is unreachable).', transient: true };
    }
    this.send({ type: 'reserved', reqId, outcome });
  }

  private wakeReadyWaiters(): void {
    if (!this.ready()) return;
    for (const up of this.readyWaiters) up();
    this.readyWaiters.clear();
  }

  private settle(p: Pending): void {
    this.inFlight.delete(p.id);
    if (p.deadline) clearTimeout(p.deadline);
    p.deadline = null;
  }

  /**
   * Starts what may start: at most one task per thread (so everything in flight is really
   * running, and a crash's suspects are exactly those), and nothing beside a suspect.
   */
  private pump(): void {
    if (!this.childReady || this.closing) return;
    const slots = Math.max(1, this.opts.threads);
    while (this.inFlight.size < slots) {
      if (this.suspects.length) {
        // A suspect runs alone: it starts once nothing is in flight, and nothing starts beside it.
        if (this.inFlight.size > 0) return;
      } else if (!this.waiting.size || (this.inFlight.size > 0 && this.suspectInFlight())) return;
      const next = this.suspects.shift() ?? this.waiting.take()!;
      this.inFlight.set(next.id, next);
      const deadlineMs = this.opts.taskTimeoutMs + (this.opts.deadlineGraceMs ?? 15_000);
      next.deadline = setTimeout(() => this.killChild({ why: 'deadline', taskId: next.id }), deadlineMs);
      next.deadline.unref();
      this.send({ type: 'run', id: next.id, task: next.task });
    }
  }

  private suspectInFlight(): boolean {
    for (const p of this.inFlight.values()) if (p.suspect) return true;
    return false;
  }

  private checkRss(child: ChildProcess): void {
    if (child !== this.child || !child.pid) return;
    this.rssBytes = readRssBytes(child.pid);
    const rssMb = this.rssBytes === null ? null : Math.round(this.rssBytes / 1024 / 1024);
    if (rssMb !== null && rssMb > this.opts.maxProcessRssMb) this.killChild({ why: 'memory', rssMb });
  }

  private killChild(kill: Kill): void {
    if (!this.child || this.kill) return;
    this.kill = kill;
    this.opts.logger.warn({ pid: this.child.pid, ...kill }, 'killing the parsing process');
    this.child.kill('SIGKILL');
  }

  private onExit(code: number | null, signal: NodeJS.Signals | null, livedMs: number): void {
    if (this.rssTimer) clearInterval(this.rssTimer);
    // Whatever the process started must not outlive it.
    for (const pgid of this.groups) killProcessGroup(pgid);
    this.groups.clear();
    this.child = null;
    this.childReady = false;
    this.rssBytes = null;
    const held = [...this.inFlight.values()];
    for (const p of held) this.settle(p);
    if (this.closing) {
      for (const p of held) p.reject(new PoolTaskError('the parsing process stopped', 'crash'));
      return;
    }
    // A cancelled job's task is not run again, whatever took the process down.
    for (const p of held.filter((h) => h.hooks.signal?.aborted)) {
      held.splice(held.indexOf(p), 1);
      p.reject(new PoolTaskError('the job was cancelled', 'cancelled'));
    }
    const kill = this.kill;
    const failure = this.classifyExit(kill, code, signal);
    this.restarts++;
    this.opts.logger.error(
      { code, signal, tasks: held.map((p) => p.task.documentId), kill, stderr: this.stderrTail.slice(-600) },
      'the parsing process died; starting a new one',
    );

    const culprit = kill?.why === 'deadline' ? held.find((p) => p.id === kill.taskId) : held.length === 1 ? held[0] : undefined;
    if (culprit) culprit.reject(new PoolTaskError(failure.message, kill?.why === 'deadline' ? 'timeout' : failure.kind));
    // Everyone else runs again, alone, ahead of new work.
    const suspects = held.filter((p) => p !== culprit);
    for (const p of suspects) p.suspect = true;
    this.suspects.unshift(...suspects);

    // A process that dies while starting (no document involved) is restarted with a delay.
    if (livedMs < 5000 && held.length === 0) this.quickDeaths++;
    const delay = Math.min(10_000, this.quickDeaths === 0 ? 0 : 250 * 2 ** this.quickDeaths);
    setTimeout(() => this.closing || this.spawn(), delay).unref();
  }

  private classifyExit(kill: Kill | null, code: number | null, signal: NodeJS.Signals | null): { kind: PoolFailureKind; message: string } {
    if (kill?.why === 'memory') {
      return { kind: 'memory', message: `${kill.rssMb} MB used, over the parsing process's ceiling of ${this.opts.maxProcessRssMb} MB` };
    }
    if (kill?.why === 'deadline') return { kind: 'timeout', message: failureReasons.timeout(Math.round(this.opts.taskTimeoutMs / 1000)) };
    // V8's own aborts: a thread past its heap limit takes the process with it (nodejs/node#47224).
    if (/heap limit|out of memory|invalid size error|Allocation failed|invalid array length/i.test(this.stderrTail)) {
      return { kind: 'memory', message: `the per-thread heap limit of ${this.opts.maxHeapMb} MB` };
    }
    return { kind: 'crash', message: `the parsing process died (${signal ?? `exit code ${code}`})` };
  }
}

/** Resident set size of a process in MB, from /proc (Linux); null where unavailable. */
export function readRssMb(pid: number): number | null {
  const bytes = readRssBytes(pid);
  return bytes === null ? null : Math.round(bytes / 1024 / 1024);
}

/** Resident set size of a process in bytes, from /proc (Linux); null where unavailable. */
export function readRssBytes(pid: number): number | null {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'latin1');
    const m = /VmRSS:\s+(\d+) kB/.exec(status);
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}
