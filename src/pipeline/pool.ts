// The Piscina pool of parsing threads: sized to the machine, each task with a timeout and
// each thread with a V8 heap ceiling. A thread that dies is replaced by Piscina. Small tasks
// that need none of a thread's guards run on the calling thread instead (inline-tasks.ts).
import { Piscina } from 'piscina';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import fs from 'node:fs';
import type { ParseTask, ParseTaskResult } from './task.js';
import type { ThreadData } from './thread-context.js';
import { failureReasons } from './failure-reasons.js';
import { serveEngineModules } from './engine-modules.js';
import { runsInline } from './inline-tasks.js';
import type { ParserSettings } from '../formats/settings.js';

export interface PoolOptions {
  threads: number;
  /** The parsers' settings (config.parsers), handed to every thread as workerData. */
  parsers: ParserSettings;
  taskTimeoutMs: number;
  maxHeapMb: number;
  /** A thread whose JS heap + WASM memory passes this after a task is replaced (MB). */
  recycleAboveMb?: number;
  /** WebAssembly modules handed to every thread at its start (the rest are compiled on demand: engine-modules.ts). */
  wasmModules?: Record<string, WebAssembly.Module>;
  /** How long an idle thread is kept before it ends (ms; default 60 s). */
  idleTimeoutMs?: number;
}

export interface PoolStats {
  threads: number;
  queued: number;
  running: number;
  utilization: number;
}

/**
 * Why a task did not return a result: it ran past its timeout, past a memory ceiling, its
 * thread or process died (`crash`: may be the machine's fault, so retried), the parser
 * threw where nothing caught it (`error`: the same document would throw again), or its job
 * was cancelled (`cancelled`: its thread was stopped).
 */
export type PoolFailureKind = 'timeout' | 'memory' | 'crash' | 'error' | 'cancelled';

export class PoolTaskError extends Error {
  constructor(
    message: string,
    public readonly kind: PoolFailureKind,
  ) {
    super(message);
    this.name = 'PoolTaskError';
  }
}

/**
 * A compiled entry file of src/pipeline (a thread or process entry); vitest runs from src/,
 * so it points at dist/ (built by `npm test`).
 */
export function pipelineEntry(name: string): string {
  const here = fileURLToPath(import.meta.url);
  if (here.endsWith('.ts')) {
    const dist = path.resolve(path.dirname(here), '../../dist/pipeline', name);
    if (!fs.existsSync(dist)) throw new Error(`entry ${dist} is missing: run npm run build`);
    return dist;
  }
  return path.join(path.dirname(here), name);
}

export class ParsePool {
  private readonly piscina: Piscina;
  private running = 0;
  /** Engines are compiled here once, when a thread first needs one, and instantiated in each thread (compiling per thread costs seconds). */
  private readonly closeEngines: () => void;
  /** The parse entry for inline tasks, loaded with the first one (an idle process holds no parser). */
  private inlineEntry: Promise<typeof import('./thread.js')> | null = null;

  constructor(private readonly opts: PoolOptions) {
    this.closeEngines = serveEngineModules(opts.parsers.pdf.optimizedPdfium);
    this.piscina = new Piscina({
      filename: pipelineEntry('thread.js'),
      // No thread until there is work: an idle node holds no parser, engine or thread heap (a
      // thread starts in ≈ 50 ms); a thread idle past the timeout ends and gives its memory back.
      minThreads: 0,
      maxThreads: opts.threads,
      idleTimeout: opts.idleTimeoutMs ?? 60_000,
      resourceLimits: { maxOldGenerationSizeMb: opts.maxHeapMb },
      // Without atomics an idle thread runs its event loop, so a retiring thread can exit
      // right after posting its result (with atomics it would block until the next task).
      atomics: 'disabled',
      workerData: { parsers: opts.parsers, recycleAboveMb: opts.recycleAboveMb, wasmModules: opts.wasmModules } satisfies ThreadData,
    });
  }

  /** `cancel`: the job was cancelled; Piscina stops the task's thread. */
  async run(task: ParseTask, cancel?: AbortSignal): Promise<ParseTaskResult> {
    if (runsInline(task)) return this.runInline(task, cancel);
    // One controller and a timer cleared at the end, not AbortSignal.timeout() and .any():
    // their timer outlives the task (until taskTimeoutMs), so a busy pool kept tens of
    // thousands of them alive, and .any() links every signal to its sources for the GC.
    const stop = new AbortController();
    const { signal } = stop;
    const timer = setTimeout(() => stop.abort(), this.opts.taskTimeoutMs).unref();
    const onCancel = () => stop.abort();
    if (cancel?.aborted) stop.abort();
    else cancel?.addEventListener('abort', onCancel, { once: true });
    this.running++;
    try {
      try {
        return (await this.piscina.run(task, { signal })) as ParseTaskResult;
      } catch (err) {
        // Exit code 0 is only ever a thread retiring itself (thread-context.ts); a task handed
        // to it in that instant never started, so it runs again on a fresh thread.
        if (signal.aborted || !/exited with code: 0\b/.test(String((err as Error)?.message))) throw err;
        return (await this.piscina.run(task, { signal })) as ParseTaskResult;
      }
    } catch (err) {
      if (cancel?.aborted) throw new PoolTaskError('the job was cancelled', 'cancelled');
      if (signal.aborted) throw new PoolTaskError(failureReasons.timeout(Math.round(this.opts.taskTimeoutMs / 1000)), 'timeout');
      const e = err as NodeJS.ErrnoException;
      if (e?.code === 'ERR_WORKER_OUT_OF_MEMORY') {
        throw new PoolTaskError(`the per-thread heap limit of ${this.opts.maxHeapMb} MB`, 'memory');
      }
      // A thread that exited is the machine's or the engine's trouble; any other rejection is
      // an exception the parser threw outside its promise chain, which killed the thread.
      if (/exited with code/.test(String(e?.message))) throw new PoolTaskError(`parsing thread died: ${e.message}`, 'crash');
      throw new PoolTaskError(`parser error: ${e?.message ?? String(err)}`, 'error');
    } finally {
      clearTimeout(timer);
      cancel?.removeEventListener('abort', onCancel);
      this.running--;
    }
  }

  /**
   * A task that qualifies (inline-tasks.ts) runs here: over in a few milliseconds, it has no
   * thread to stop, so no timer; a job cancelled meanwhile gets its answer when it ends.
   */
  private async runInline(task: ParseTask, cancel?: AbortSignal): Promise<ParseTaskResult> {
    if (cancel?.aborted) throw new PoolTaskError('the job was cancelled', 'cancelled');
    this.running++;
    try {
      this.inlineEntry ??= import('./thread.js');
      let result: ParseTaskResult;
      try {
        result = await (await this.inlineEntry).parseInlineTask(task, this.opts.parsers);
      } catch (err) {
        // What would have killed a thread (writeArtifact answers the parser's own failures).
        throw new PoolTaskError(`parser error: ${(err as Error)?.message ?? String(err)}`, 'error');
      }
      if (cancel?.aborted) throw new PoolTaskError('the job was cancelled', 'cancelled');
      return result;
    } finally {
      this.running--;
    }
  }

  stats(): PoolStats {
    return {
      threads: this.piscina.threads.length,
      queued: this.piscina.queueSize,
      running: this.running,
      utilization: Math.round(this.piscina.utilization * 1000) / 1000,
    };
  }

  /** Ready as soon as it exists: threads are started by the first tasks (minThreads 0). */
  ready(): boolean {
    return true;
  }

  async close(): Promise<void> {
    await this.piscina.close({ force: true });
    this.closeEngines();
  }
}
