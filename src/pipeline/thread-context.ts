// What a parsing thread knows about its pool: the parsers' settings (config.ts, handed down
// through workerData), WebAssembly modules compiled once by the process's main thread when a
// thread first needs one (engine-modules.ts, handed on to the engine loaders through
// src/formats/kit/engine-handles.ts), the memory one task may take
// (TaskMemory), and the ceiling after which the thread retires itself (WASM heaps never shrink).
import { getHeapStatistics } from 'node:v8';
import { threadId } from 'node:worker_threads';
import { workerData } from 'piscina';
import type { ParserSettings } from '../formats/settings.js';
import { ExtractionError } from '../formats/kit/types.js';
import { anEngineIsBroken, engineReservedBytes, provideCompiledModules, provideModuleSource } from '../formats/kit/engine-handles.js';
import { askProcessForModule } from './engine-modules.js';

export interface ThreadData {
  /** The node's parser settings (config.parsers). */
  parsers: ParserSettings;
  /** Compiled engines by name, e.g. { pdfium: WebAssembly.Module }; the others are asked of the process (engine-modules.ts). */
  wasmModules?: Record<string, WebAssembly.Module>;
  /** Retire the thread after a task once JS heap + reported WASM memory exceed this (MB). */
  recycleAboveMb?: number;
}

const data: Partial<ThreadData> = (workerData as ThreadData | undefined) ?? {};
provideCompiledModules(data.wasmModules);
// In a pool, the engines this thread needs are compiled by the process, on first demand.
if (data.parsers) provideModuleSource(askProcessForModule(threadId));

/** The settings this thread's pool was started with; null outside a pool thread. */
export function threadParserSettings(): ParserSettings | null {
  return data.parsers ?? null;
}

/**
 * This thread's memory outside the V8 heap: V8 counts every ArrayBuffer and every
 * WebAssembly memory of the thread's isolate (the engines' heaps among them) as external.
 */
export function externalMemoryBytes(): number {
  return getHeapStatistics().external_memory;
}

/** JS heap in use plus the thread's external memory (ArrayBuffers, WASM). */
export function threadMemoryBytes(): number {
  const h = getHeapStatistics();
  return h.used_heap_size + h.external_memory;
}

/** Set when a task went over its memory budget: its thread retires after it. */
let overBudget = false;

const MiB = 1024 * 1024;

/**
 * One task's memory budget (settings.memory.maxBytes) for what resourceLimits does not
 * bound: a thread's heap ceiling (maxOldGenerationSizeMb) leaves ArrayBuffers and WebAssembly
 * memory free to grow, so the task's growth of the thread's external memory is checked at
 * every checkpoint (each time the parser reports progress). Past the budget the check throws
 * document_too_complex, and keeps throwing, so the parse stops at its next step.
 */
export class TaskMemory {
  private readonly startBytes = externalMemoryBytes();
  private readonly startReserved = engineReservedBytes();
  private exceeded: ExtractionError | null = null;

  constructor(readonly maxBytes: number) {}

  /** External memory this task has added to its thread so far, engines' initial reservations aside. */
  grownBytes(): number {
    return externalMemoryBytes() - this.startBytes - (engineReservedBytes() - this.startReserved);
  }

  check(): void {
    if (!this.exceeded) {
      const grown = this.grownBytes();
      if (grown <= this.maxBytes) return;
      overBudget = true;
      // Not a ceiling the thread or the process died of (failureReasons.memory): it was stopped in time.
      this.exceeded = new ExtractionError(
        `Parsing this document was stopped: it took ${Math.round(grown / MiB)} MB of memory outside the JS heap, more than the ${Math.round(this.maxBytes / MiB)} MB one parse may use.`,
        'document_too_complex',
      );
    }
    throw this.exceeded;
  }
}

/**
 * Called after each task: past the ceiling, after a task over its memory budget, or with a
 * broken engine, a pool's thread exits once its result is posted, and Piscina starts a fresh
 * one for the next task. (A parse run outside a pool, by a test or a bench, exits nothing.)
 */
export function retireIfOverCeiling(): boolean {
  if (!data.parsers) {
    overBudget = false;
    return false;
  }
  const broken = anEngineIsBroken();
  const limitMb = data.recycleAboveMb;
  const retire = broken || overBudget || (!!limitMb && threadMemoryBytes() >= limitMb * MiB);
  overBudget = false;
  if (!retire) return false;
  setImmediate(() => process.exit(0));
  return true;
}
