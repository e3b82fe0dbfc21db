// PDFium (WASM, @embedpdf/pdfium) loader. The .wasm ships inside the npm package (the build
// re-optimises a copy of it, see pdfiumBinary); nothing is fetched at run time. In a pool the
// compiled WebAssembly.Module comes from the parsing process, compiled there when a thread first
// needs PDFium (kit/engine-handles.ts, see compilePdfiumModule); otherwise it is compiled here,
// once per thread, and the instance is cached for the life of the thread.
import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_PARSER_SETTINGS } from '../settings.js';
import { precompiledModule } from '../kit/engine-handles.js';
import type { WrappedPdfiumModule } from '@embedpdf/pdfium';

const require = createRequire(import.meta.url);

// lib ES2023 has no WebAssembly typings: the few members used here.
/** A compiled WebAssembly.Module (opaque; structured-cloneable to worker threads). */
export type WasmModule = object;
interface WasmApi {
  Module: new (...a: never[]) => WasmModule;
  compile(bytes: Uint8Array): Promise<WasmModule>;
  instantiate(m: WasmModule, imports: unknown): Promise<object>;
}
const WA = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/** Which PDFium binary this process runs, and why. */
export interface PdfiumBinary {
  path: string;
  /** true: dist/wasm/pdfium.wasm, re-optimised from the installed package by the build. */
  optimized: boolean;
  /** Why the package binary is used instead (absent when optimized). */
  reason?: string;
}

/** The binary chosen for each value of the switch (chosen once: it hashes the files). */
const chosen = new Map<boolean, PdfiumBinary>();
const OPTIMIZED_BY_DEFAULT = DEFAULT_PARSER_SETTINGS.pdf.optimizedPdfium;

const sha256 = (file: string): string => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');

/**
 * Picks between the package's binary (`packageWasm`) and the build's re-optimised copy in
 * `optimizedDir` (pdfium.wasm + pdfium.json, written by wasm/optimize-pdfium.mjs): the copy only
 * when its manifest names the package binary's SHA-256 and the copy's own.
 */
export function choosePdfiumBinary(packageWasm: string, optimizedDir: string, optimizedWanted: boolean): PdfiumBinary {
  const fallback = (reason: string): PdfiumBinary => ({ path: packageWasm, optimized: false, reason });
  if (!optimizedWanted) return fallback('DOCPARSE_PDFIUM_OPTIMIZED=false');
  const file = path.join(optimizedDir, 'pdfium.wasm');
  let manifest: { sourceSha256?: string; outputSha256?: string };
  try {
    manifest = JSON.parse(fs.readFileSync(path.join(optimizedDir, 'pdfium.json'), 'utf8')) as typeof manifest;
  } catch {
    return fallback('no optimised build (npm run build makes one)');
  }
  if (manifest.sourceSha256 !== sha256(packageWasm)) return fallback('the optimised build is of another @embedpdf/pdfium binary (npm run build remakes it)');
  if (!fs.existsSync(file) || manifest.outputSha256 !== sha256(file))
    return fallback('the optimised file does not match its manifest (npm run build remakes it)');
  return { path: file, optimized: true };
}

/**
 * The PDFium binary this process runs (chosen once): the build's re-optimised copy
 * (wasm/optimize-pdfium.mjs, ≈ 15 % faster) when it was made from the installed package
 * binary, else the package's own. `optimizedWanted` false (DOCPARSE_PDFIUM_OPTIMIZED=false,
 * settings.pdf.optimizedPdfium) always picks the package's.
 */
export function pdfiumBinary(optimizedWanted = OPTIMIZED_BY_DEFAULT): PdfiumBinary {
  let binary = chosen.get(optimizedWanted);
  if (!binary) {
    // src/formats/pdf and dist/formats/pdf both sit two levels under the project root.
    const dir = fileURLToPath(new URL('../../../dist/wasm/', import.meta.url));
    binary = choosePdfiumBinary(require.resolve('@embedpdf/pdfium/pdfium.wasm'), dir, optimizedWanted);
    chosen.set(optimizedWanted, binary);
  }
  return binary;
}

/** Compiles pdfium.wasm (in the parsing process, for the threads that ask: kit/engine-handles.ts). */
export function compilePdfiumModule(optimizedWanted = OPTIMIZED_BY_DEFAULT): Promise<WasmModule> {
  return WA.compile(fs.readFileSync(pdfiumBinary(optimizedWanted).path));
}

/** Raw wasm exports (direct calls skip the wrapper's argument checks: hot loops use these). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type PdfiumExports = Record<string, any>;

export interface Pdfium {
  /** Typed wrappers (string arguments are converted for us). */
  api: WrappedPdfiumModule;
  /** Emscripten module: heap views, addFunction, UTF16ToString… */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  M: any;
  /** Raw exports of the instance. */
  ex: PdfiumExports;
}

let instance: Promise<Pdfium> | null = null;

/** The module the parsing process compiled (kit/engine-handles.ts), if any. */
async function moduleFromWorkerData(): Promise<WasmModule | null> {
  const m: unknown = await precompiledModule('pdfium');
  return m instanceof WA.Module ? (m as WasmModule) : null;
}

/**
 * The thread's PDFium instance (instantiated on first use, then reused), from the module the
 * pool compiled, else (a parser run without a pool) compiled here from the chosen binary.
 */
export function getPdfium(optimizedWanted = OPTIMIZED_BY_DEFAULT): Promise<Pdfium> {
  if (!instance) {
    instance = (async () => {
      const mod = (await moduleFromWorkerData()) ?? (await compilePdfiumModule(optimizedWanted));
      // The glue is loaded with the first instance: the node imports this file only to name the binary.
      const { init } = await import('@embedpdf/pdfium');
      const api = await init({
        instantiateWasm(imports: unknown, done: (inst: object, m: WasmModule) => void) {
          WA.instantiate(mod, imports).then((inst) => done(inst, mod));
          return {};
        },
        // Emscripten prints PDFium's stderr noise otherwise.
        printErr: () => {},
        print: () => {},
      } as never);
      api.PDFiumExt_Init();
      const ex = api.pdfium.wasmExports as unknown as PdfiumExports;
      return { api, M: api.pdfium, ex };
    })();
    instance.catch(() => {
      instance = null;
    });
  }
  return instance;
}

/**
 * Drops the thread's instance after PDFium aborted (a WASM trap leaves its heap in an unknown
 * state); the next document instantiates a fresh one from the same compiled module.
 */
export function resetPdfium(): void {
  instance = null;
}
