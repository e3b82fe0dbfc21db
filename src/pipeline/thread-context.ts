// What a parsing thread knows about its pool: the parsers' settings (config.ts, handed down
// through workerData), WebAssembly modules compiled once by the main thread (handed on to the
// engine loaders through src/formats/kit/engine-handles.ts), and the memory ceiling after
// which the thread retires itself (WASM heaps never shrink).
import { getHeapStatistics } from 'node:v8';
import { workerData } from 'piscina';
import type { ParserSettings } from '../formats/settings.js';
import { anEngineIsBroken, engineMemoryBytes, provideCompiledModules } from '../formats/kit/engine-handles.js';

export interface ThreadData {
  /** The node's parser settings (config.parsers). */
  parsers: ParserSettings;
  /** Compiled engines by name, e.g. { pdfium: WebAssembly.Module }. */
  wasmModules?: Record<string, WebAssembly.Module>;
  /** Retire the thread after a task once JS heap + reported WASM memory exceed this (MB). */
  recycleAboveMb?: number;
}

const data: Partial<ThreadData> = (workerData as ThreadData | undefined) ?? {};
provideCompiledModules(data.wasmModules);

/** The settings this thread's pool was started with; null outside a pool thread. */
export function threadParserSettings(): ParserSettings | null {
  return data.parsers ?? null;
}

/** JS heap in use plus the WASM memory the engines report. */
export function threadMemoryBytes(): number {
  return getHeapStatistics().used_heap_size + engineMemoryBytes();
}

/**
 * Called after each task: past the ceiling, or with a broken engine, the thread exits once
 * its result is posted, and Piscina starts a fresh one for the next task.
 */
export function retireIfOverCeiling(): boolean {
  const broken = anEngineIsBroken();
  const limitMb = data.recycleAboveMb;
  if (!broken && (!limitMb || threadMemoryBytes() < limitMb * 1024 * 1024)) return false;
  setImmediate(() => process.exit(0));
  return true;
}
