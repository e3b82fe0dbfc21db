// What an engine loader shares with the thread it runs in, without knowing the pool: the
// WebAssembly modules the parsing process compiles once, when a thread first asks for one
// (instantiating one is far cheaper than compiling it per thread), and whether its instance is broken. The pool's thread
// (src/pipeline/thread-context.ts) hands the modules in and asks after each task whether the
// thread retires. (WASM memory is counted as the thread’s external memory: TaskMemory in src/pipeline/thread-context.ts.)

let compiled: Record<string, WebAssembly.Module> = {};
let source: ((name: string) => Promise<WebAssembly.Module | undefined>) | null = null;
let reservedBytes = 0;
const brokenChecks: (() => string | null)[] = [];

/** Called once by the thread's host with the modules its pool was given. */
export function provideCompiledModules(modules: Record<string, WebAssembly.Module> | undefined): void {
  compiled = modules ?? {};
}

/** Called once by the thread's host: where a module not handed in is asked for (the parsing process compiles it on first demand). */
export function provideModuleSource(ask: (name: string) => Promise<WebAssembly.Module | undefined>): void {
  source = ask;
}

/**
 * The process's compiled module for an engine: handed in, or asked of the module source (and
 * kept); undefined outside a pool (the loader compiles its own then).
 */
export async function precompiledModule(name: string): Promise<WebAssembly.Module | undefined> {
  if (!compiled[name] && source) {
    const m = await source(name);
    if (m) compiled[name] = m;
  }
  return compiled[name];
}

/** Engines register a check that names why this thread's instance is unusable (or null). */
export function registerBrokenCheck(check: () => string | null): void {
  brokenChecks.push(check);
}

/** Whether an engine loaded in this thread says its instance is unusable. */
export function anEngineIsBroken(): boolean {
  return brokenChecks.some((c) => c() !== null);
}

/**
 * An engine instance's initial linear memory: reserved at once (LibreDWG declares 1 GiB) but
 * touched only as it is used, so it is not counted against a task's memory budget; what the
 * instance grows beyond it is.
 */
export function noteEngineReservation(bytes: number): void {
  reservedBytes += bytes;
}

/** Every reservation noted in this thread so far (a task compares it at its start and end). */
export function engineReservedBytes(): number {
  return reservedBytes;
}
