// Tesseract (WASM, tesseract-wasm) loader. The engine .wasm ships in the npm package; the
// English model comes from Debian's tesseract-ocr-eng package (installed by
// scripts/install-engines.sh), found via DOCPARSE_TESSDATA_DIR, TESSDATA_PREFIX or the
// standard Debian paths (src/formats/kit/engine-locations.ts, with the locations config.ts read). Nothing is downloaded at run time. The parsing process compiles the engine's module once, when a thread
// first needs it, and hands it to every thread that asks (kit/engine-handles.ts), as for PDFium: the threads share
// its compiled code, including what V8 tiers up in any of them. One engine per thread,
// instantiated on first use and reused.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { createOCREngine, supportsFastBuild, type OCREngine } from 'tesseract-wasm';
import { precompiledModule } from '../kit/engine-handles.js';
import { tesseractModelPath } from '../kit/engine-locations.js';
import { engineUnavailable } from '../kit/engine-unavailable.js';
import type { EngineLocations } from '../settings.js';

const require = createRequire(import.meta.url);

// lib ES2023 has no WebAssembly typings: the few members used here.
interface WasmInstance {
  exports: Record<string, unknown>;
}
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  compile(bytes: Uint8Array): Promise<object>;
  instantiate(source: unknown, imports?: unknown): Promise<unknown>;
}
const WA = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/**
 * Path of the English model. A node without it fails the job as engine_unavailable (retried,
 * perhaps on a worker that has it): OCR without a model would complete with empty pages.
 */
export function requireTesseractModel(engines: EngineLocations): string {
  const model = tesseractModelPath(engines, 'eng');
  if (!model) throw engineUnavailable("Tesseract's English model (eng.traineddata)", 'for pdfMode=Ocr');
  return model;
}

function tesseractWasmPath(): string {
  const dist = path.dirname(require.resolve('tesseract-wasm'));
  return path.join(dist, supportsFastBuild() ? 'tesseract-core.wasm' : 'tesseract-core-fallback.wasm');
}

/** Compiles the engine's .wasm (the SIMD build where the runtime has SIMD), in the parsing process for the threads that ask. */
export function compileTesseractModule(): Promise<object> {
  return WA.compile(fs.readFileSync(tesseractWasmPath()));
}

/**
 * An OCR engine instantiated from a compiled module. tesseract-wasm's createOCREngine only takes
 * the binary and compiles it; its Emscripten glue hands that binary to WebAssembly.instantiate.
 * So the engine is given a marker buffer as its "binary", and for the length of the call
 * WebAssembly.instantiate answers that one buffer with an instance of `mod` (every other call
 * goes through unchanged).
 */
export async function ocrEngineFromModule(mod: object): Promise<OCREngine> {
  const marker = new ArrayBuffer(8);
  const original = WA.instantiate;
  let instance: WasmInstance | null = null;
  WA.instantiate = function (source: unknown, imports?: unknown) {
    if (source instanceof Uint8Array && source.buffer === marker) {
      return original.call(WA, mod, imports).then((i) => {
        instance = i as WasmInstance;
        return { module: mod, instance };
      });
    }
    return original.call(WA, source, imports);
  };
  let engine: OCREngine;
  try {
    engine = await createOCREngine({ wasmBinary: marker });
  } finally {
    WA.instantiate = original;
  }
  if (!instance) throw new Error('tesseract-wasm did not instantiate the module it was given');
  // Its heap grows with the page images (≈ 35 MB per 300 DPI page) and never shrinks: V8
  // counts it as the thread's external memory (src/pipeline/thread-context.ts).
  return engine;
}

let engine: Promise<OCREngine> | null = null;

/** The thread's OCR engine with the English model loaded. Throws when the model is missing. */
export function getTesseract(engines: EngineLocations): Promise<OCREngine> {
  if (!engine) {
    engine = (async () => {
      const model = requireTesseractModel(engines);
      const given = await precompiledModule('tesseract');
      const e = await ocrEngineFromModule(given instanceof WA.Module ? given : await compileTesseractModule());
      e.loadModel(fs.readFileSync(model));
      return e;
    })();
    engine.catch(() => {
      engine = null;
    });
  }
  return engine;
}
