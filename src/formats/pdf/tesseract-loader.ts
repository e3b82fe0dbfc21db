// Tesseract (WASM, tesseract-wasm) loader. The engine .wasm ships in the npm package; the
// English model comes from Debian's tesseract-ocr-eng package (installed by the project's
// install step), found via TESSDATA_PREFIX or the standard Debian paths. Nothing is
// downloaded at run time. The main thread compiles the engine's module once and hands it to
// every worker thread (pool workerData, thread-context.ts), as for PDFium: the threads share
// its compiled code, including what V8 tiers up in any of them. One engine per thread,
// instantiated on first use and reused.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { createOCREngine, supportsFastBuild, type OCREngine } from 'tesseract-wasm';
import { precompiledModule, registerMemoryReporter } from '../../pipeline/thread-context.js';

const require = createRequire(import.meta.url);

const MODEL_DIRS = [
  process.env.TESSDATA_PREFIX,
  '/usr/share/tesseract-ocr/5/tessdata',
  '/usr/share/tesseract-ocr/4.00/tessdata',
  '/usr/share/tessdata',
].filter((d): d is string => !!d);

// lib ES2023 has no WebAssembly typings: the few members used here.
interface WasmInstance {
  exports: Record<string, unknown>;
}
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Memory: new (d: { initial: number }) => { buffer: ArrayBuffer };
  compile(bytes: Uint8Array): Promise<object>;
  instantiate(source: unknown, imports?: unknown): Promise<unknown>;
}
const WA = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/** Path of eng.traineddata, or null when the model is not installed. */
function tesseractModelPath(lang = 'eng'): string | null {
  for (const d of MODEL_DIRS) {
    const p = path.join(d, `${lang}.traineddata`);
    if (fs.existsSync(p)) return p;
  }
  return null;
}

function tesseractWasmPath(): string {
  const dist = path.dirname(require.resolve('tesseract-wasm'));
  return path.join(dist, supportsFastBuild() ? 'tesseract-core.wasm' : 'tesseract-core-fallback.wasm');
}

/** Compiles the engine's .wasm (the SIMD build where the runtime has SIMD) for the main thread to pass to workers. */
export function compileTesseractModule(): Promise<object> {
  return WA.compile(fs.readFileSync(tesseractWasmPath()));
}

let memory: { buffer: ArrayBuffer } | null = null;
// Tesseract's heap grows with the page images (≈ 35 MB per 300 DPI page) and never shrinks:
// counted with PDFium's toward the thread's retirement ceiling.
registerMemoryReporter(() => memory?.buffer.byteLength ?? 0);

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
  memory = (Object.values((instance as WasmInstance).exports).find((e) => e instanceof WA.Memory) as { buffer: ArrayBuffer } | undefined) ?? null;
  return engine;
}

let engine: Promise<OCREngine> | null = null;

/** The thread's OCR engine with the English model loaded. Throws when the model is missing. */
export function getTesseract(): Promise<OCREngine> {
  if (!engine) {
    engine = (async () => {
      const model = tesseractModelPath();
      if (!model) throw new Error('Tesseract English model (eng.traineddata) not installed: install Debian tesseract-ocr-eng or set TESSDATA_PREFIX');
      const given = precompiledModule('tesseract');
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
