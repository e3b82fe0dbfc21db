// What an engine loader shares with the thread it runs in, without knowing the pool: the
// WebAssembly modules the main thread compiled once (instantiating one is far cheaper than
// compiling it per thread), how much WASM memory each engine holds, and whether its instance
// is broken. The pool's thread (src/pipeline/thread-context.ts) hands the modules in and
// reads the rest after each task to decide whether the thread retires.

let compiled: Record<string, WebAssembly.Module> = {};
const reporters: (() => number)[] = [];
const brokenChecks: (() => string | null)[] = [];

/** Called once by the thread's host with the modules its pool was given. */
export function provideCompiledModules(modules: Record<string, WebAssembly.Module> | undefined): void {
  compiled = modules ?? {};
}

/** The main thread's compiled module for an engine, when the pool was given one. */
export function precompiledModule(name: string): WebAssembly.Module | undefined {
  return compiled[name];
}

/** Engines register how many bytes of WASM memory they hold (memory.buffer.byteLength). */
export function registerMemoryReporter(bytes: () => number): void {
  reporters.push(bytes);
}

/** WASM memory the engines loaded in this thread hold, in bytes. */
export function engineMemoryBytes(): number {
  let total = 0;
  for (const r of reporters) {
    try {
      total += r();
    } catch {
      /* an engine that failed to load holds nothing */
    }
  }
  return total;
}

/** Engines register a check that names why this thread's instance is unusable (or null). */
export function registerBrokenCheck(check: () => string | null): void {
  brokenChecks.push(check);
}

/** Whether an engine loaded in this thread says its instance is unusable. */
export function anEngineIsBroken(): boolean {
  return brokenChecks.some((c) => c() !== null);
}
