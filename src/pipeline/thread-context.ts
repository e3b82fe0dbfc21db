// What a parsing thread knows about its pool: the parsers' settings (config.ts, handed down
// through workerData), WebAssembly modules compiled once by the main thread (instantiating a
// compiled module is far cheaper than compiling it per thread), and the memory ceiling after
// which the thread retires itself (WASM heaps never shrink).
import { getHeapStatistics } from 'node:v8';
import { workerData } from 'piscina';
import type { ParserSettings } from '../formats/settings.js';

export interface ThreadData {
  /** The node's parser settings (config.parsers). */
  parsers: ParserSettings;
  /** Compiled engines by name, e.g. { pdfium: WebAssembly.Module }. */
  wasmModules?: Record<string, WebAssembly.Module>;
  /** Retire the thread after a task once JS heap + reported WASM memory exceed this (MB). */
  recycleAboveMb?: number;
}

const data: Partial<ThreadData> = (workerData as ThreadData | undefined) ?? {};
const reporters: (() => number)[] = [];

/** The settings this thread's pool was started with; null outside a pool thread. */
export function threadParserSettings(): ParserSettings | null {
  return data.parsers ?? null;
}

/** The main thread's compiled module for an engine, when the pool was given one. */
export function precompiledModule(name: string): WebAssembly.Module | undefined {
  return data.wasmModules?.[name];
}

/** Engines register how many bytes of WASM memory they hold (memory.buffer.byteLength). */
export function registerMemoryReporter(bytes: () => number): void {
  reporters.push(bytes);
}

export function threadMemoryBytes(): number {
  let total = getHeapStatistics().used_heap_size;
  for (const r of reporters) {
    try {
      total += r();
    } catch {
      /* an engine that failed to load holds nothing */
    }
  }
  return total;
}

const brokenChecks: (() => string | null)[] = [];

/** Engines register a check that names why this thread's instance is unusable (or null). */
export function registerBrokenCheck(check: () => string | null): void {
  brokenChecks.push(check);
}

/**
 * Called after each task: past the ceiling, or with a broken engine, the thread exits once
 * its result is posted, and Piscina starts a fresh one for the next task.
 */
export function retireIfOverCeiling(): boolean {
  const broken = brokenChecks.some((c) => c() !== null);
  const limitMb = data.recycleAboveMb;
  if (!broken && (!limitMb || threadMemoryBytes() < limitMb * 1024 * 1024)) return false;
  setImmediate(() => process.exit(0));
  return true;
}
