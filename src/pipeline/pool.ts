// The Piscina pool of parsing threads: sized to the machine, each task with a timeout and
// each thread with a V8 heap ceiling. A thread that dies is replaced by Piscina.
import { Piscina } from 'piscina';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import fs from 'node:fs';
import type { ParseTask, ParseTaskResult } from './task.js';
import type { ThreadData } from './thread-context.js';

export interface PoolOptions {
  threads: number;
  taskTimeoutMs: number;
  maxHeapMb: number;
  /** A thread whose JS heap + WASM memory passes this after a task is replaced (MB). */
  recycleAboveMb?: number;
  /** WebAssembly modules compiled once here and handed to every thread. */
  wasmModules?: Record<string, WebAssembly.Module>;
}

export interface PoolStats {
  threads: number;
  queued: number;
  running: number;
  utilization: number;
}

/** Why a task did not return a result: the thread timed out, ran out of memory, or died. */
export class PoolTaskError extends Error {
  constructor(
    message: string,
    public readonly kind: 'timeout' | 'memory' | 'crash',
  ) {
    super(message);
    this.name = 'PoolTaskError';
  }
}

/** The compiled thread entry; vitest runs from src/, so it points at dist/ (built by `npm test`). */
export function threadFile(): string {
  const here = fileURLToPath(import.meta.url);
  if (here.endsWith('.ts')) {
    const dist = path.resolve(path.dirname(here), '../../dist/pipeline/thread.js');
    if (!fs.existsSync(dist)) throw new Error(`worker entry ${dist} is missing: run npm run build`);
    return dist;
  }
  return path.join(path.dirname(here), 'thread.js');
}

export class ParsePool {
  private readonly piscina: Piscina;
  private running = 0;

  constructor(private readonly opts: PoolOptions) {
    this.piscina = new Piscina({
      filename: threadFile(),
      minThreads: Math.min(1, opts.threads),
      maxThreads: opts.threads,
      idleTimeout: 60_000,
      resourceLimits: { maxOldGenerationSizeMb: opts.maxHeapMb },
      // Without atomics an idle thread runs its event loop, so a retiring thread can exit
      // right after posting its result (with atomics it would block until the next task).
      atomics: 'disabled',
      workerData: { recycleAboveMb: opts.recycleAboveMb, wasmModules: opts.wasmModules } satisfies ThreadData,
    });
  }

  async run(task: ParseTask): Promise<ParseTaskResult> {
    const signal = AbortSignal.timeout(this.opts.taskTimeoutMs);
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
      if (signal.aborted) throw new PoolTaskError(`parsing took longer than ${Math.round(this.opts.taskTimeoutMs / 1000)} s and was stopped`, 'timeout');
      const e = err as NodeJS.ErrnoException;
      if (e?.code === 'ERR_WORKER_OUT_OF_MEMORY') {
        throw new PoolTaskError(`parsing exceeded the per-thread memory limit of ${this.opts.maxHeapMb} MB`, 'memory');
      }
      throw new PoolTaskError(`parsing thread died: ${e?.message ?? String(err)}`, 'crash');
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

  /** Ready once at least one thread is up (Piscina starts minThreads eagerly). */
  ready(): boolean {
    return this.piscina.threads.length > 0;
  }

  async close(): Promise<void> {
    await this.piscina.close({ force: true });
  }
}
