// LibreDWG (libredwg-web 0.7.14, GPL-3.0) in WebAssembly.
//
// The engine crashes on the second DWG read in one WASM instance (PACKAGES.md), so every
// drawing gets a fresh instance. To keep that cheap, the 9.5 MB .wasm is compiled to a
// WebAssembly.Module once per thread; each drawing only instantiates it (a few ms) and
// drops the instance afterwards, so its linear memory is garbage-collected with it.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { noteEngineReservation } from '../kit/engine-handles.js';

const require = createRequire(import.meta.url);

/** Directory holding libredwg-web.js and libredwg-web.wasm. */
export function libredwgWasmDir(): string {
  // The package's "exports" hide package.json; its CommonJS entry is dist/libredwg-web.umd.cjs.
  const main = require.resolve('@mlightcad/libredwg-web');
  return path.join(path.dirname(main), '..', 'wasm');
}

type CreateModule = (arg: Record<string, unknown>) => Promise<any>;
type LibreDwgClass = { createByWasmInstance(instance: any): any };

let compiled: Promise<{ module: WebAssembly.Module; createModule: CreateModule; LibreDwg: LibreDwgClass }> | null = null;

/** Compiles the engine once per thread (idempotent; a failed compile is retried next time). */
export function compileLibreDwg(): Promise<{ module: WebAssembly.Module; createModule: CreateModule; LibreDwg: LibreDwgClass }> {
  if (!compiled) {
    compiled = (async () => {
      const dir = libredwgWasmDir();
      const [bytes, glue, wrapper] = await Promise.all([
        readFile(path.join(dir, 'libredwg-web.wasm')),
        import(pathToFileURL(path.join(dir, 'libredwg-web.js')).href),
        import('@mlightcad/libredwg-web'),
      ]);
      const module = await WebAssembly.compile(bytes);
      return { module, createModule: glue.default as CreateModule, LibreDwg: (wrapper as any).LibreDwg as LibreDwgClass };
    })();
    compiled.catch(() => {
      compiled = null;
    });
  }
  return compiled;
}

/**
 * A fresh engine instance for one drawing: the raw Emscripten module (FS, dwg_read_file,
 * dwg_free…) wrapped by libredwg-web's LibreDwg class (convert(), dynapi helpers).
 * Engine messages on stdout/stderr are collected rather than printed.
 */
export async function newLibreDwgInstance(): Promise<{ lib: any; raw: any; messages: string[] }> {
  const { module, createModule, LibreDwg } = await compileLibreDwg();
  const messages: string[] = [];
  const keep = (s: string) => {
    if (messages.length < 200) messages.push(String(s));
  };
  const raw = await createModule({
    print: keep,
    printErr: keep,
    // Must hand the exports back synchronously: the glue reads malloc & co. from the
    // value returned here right after this call.
    instantiateWasm(imports: WebAssembly.Imports, receive: (instance: WebAssembly.Instance, module: WebAssembly.Module) => unknown) {
      return receive(new WebAssembly.Instance(module, imports), module);
    },
  });
  // Its 1 GiB of initial memory is address space until the drawing uses it: not the task's growth.
  noteEngineReservation(raw.HEAPU8.buffer.byteLength);
  return { lib: LibreDwg.createByWasmInstance(raw), raw, messages };
}
