// Tesseract (WASM, tesseract-wasm) loader. The engine .wasm ships in the npm package; the
// English model comes from Debian's tesseract-ocr-eng package (installed by the project's
// install step), found via TESSDATA_PREFIX or the standard Debian paths. Nothing is
// downloaded at run time. One engine per thread, created on first use and reused.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { createOCREngine, supportsFastBuild, type OCREngine } from 'tesseract-wasm';

const require = createRequire(import.meta.url);

const MODEL_DIRS = [
  process.env.TESSDATA_PREFIX,
  '/usr/share/tesseract-ocr/5/tessdata',
  '/usr/share/tesseract-ocr/4.00/tessdata',
  '/usr/share/tessdata',
].filter((d): d is string => !!d);

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

let engine: Promise<OCREngine> | null = null;

/** The thread's OCR engine with the English model loaded. Throws when the model is missing. */
export function getTesseract(): Promise<OCREngine> {
  if (!engine) {
    engine = (async () => {
      const model = tesseractModelPath();
      if (!model) throw new Error('Tesseract English model (eng.traineddata) not installed: install Debian tesseract-ocr-eng or set TESSDATA_PREFIX');
      const e = await createOCREngine({ wasmBinary: fs.readFileSync(tesseractWasmPath()) });
      e.loadModel(fs.readFileSync(model));
      return e;
    })();
    engine.catch(() => {
      engine = null;
    });
  }
  return engine;
}
