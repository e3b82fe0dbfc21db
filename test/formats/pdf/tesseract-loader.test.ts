// The Tesseract engine is instantiated from a module compiled once (by the main thread, handed
// to the workers): tesseract-wasm itself only takes a binary and compiles it, so the loader
// answers its glue's WebAssembly.instantiate with the compiled module. A thread given the
// module must compile nothing, recognise text, and count the engine's heap toward its memory.
import fs from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { compileTesseractModule, ocrEngineFromModule } from '../../../src/formats/pdf/tesseract-loader.js';
import { threadMemoryBytes } from '../../../src/pipeline/thread-context.js';
import { getPdfium } from '../../../src/formats/pdf/pdfium-loader.js';
import { PdfDocument } from '../../../src/formats/pdf/document.js';
import { corpusPath } from './helpers.js';

vi.setConfig({ testTimeout: 120_000 });

afterEach(() => {
  vi.restoreAllMocks();
});

/** Page `index` of a PDF rendered at 150 DPI as RGBA. */
async function render(file: string, index: number): Promise<{ data: Uint8ClampedArray; width: number; height: number }> {
  const p = await getPdfium();
  const doc = PdfDocument.open(p, file);
  try {
    const page = p.ex.FPDF_LoadPage(doc.handle, index);
    const width = Math.round((p.ex.FPDF_GetPageWidthF(page) * 150) / 72),
      height = Math.round((p.ex.FPDF_GetPageHeightF(page) * 150) / 72);
    const bmp = p.ex.FPDFBitmap_Create(width, height, 1);
    p.ex.FPDFBitmap_FillRect(bmp, 0, 0, width, height, 0xffffffff);
    p.ex.FPDF_RenderPageBitmap(bmp, page, 0, 0, width, height, 0, 0x10);
    const at = p.ex.FPDFBitmap_GetBuffer(bmp);
    const data = new Uint8ClampedArray(p.M.HEAPU8.subarray(at, at + width * height * 4));
    p.ex.FPDFBitmap_Destroy(bmp);
    p.ex.FPDF_ClosePage(page);
    return { data, width, height };
  } finally {
    doc.close();
  }
}

describe('Tesseract from a compiled module', () => {
  it('compiles nothing itself, recognises a scanned page, and its heap counts toward the thread', async () => {
    const mod = await compileTesseractModule();
    const compile = vi.spyOn(WebAssembly, 'compile');
    const instantiate = vi.spyOn(WebAssembly, 'instantiate');
    const before = threadMemoryBytes();
    const engine = await ocrEngineFromModule(mod);
    // Every instantiation reached WebAssembly with the compiled module, none with bytes.
    expect(compile).not.toHaveBeenCalled();
    expect(instantiate.mock.calls.length).toBeGreaterThan(0);
    for (const [source] of instantiate.mock.calls) expect(source).toBeInstanceOf(WebAssembly.Module);
    // And WebAssembly.instantiate is itself again.
    expect(WebAssembly.instantiate).toBe(instantiate);

    engine.loadModel(fs.readFileSync('/usr/share/tesseract-ocr/5/tessdata/eng.traineddata'));
    expect(threadMemoryBytes() - before).toBeGreaterThan(16 * 1024 * 1024);
    const image = await render(corpusPath('pdf', 'generated__scanned-3p.pdf'), 0);
    engine.setVariable('user_defined_dpi', '150');
    engine.loadImage(image);
    const words = engine
      .getTextBoxes('word')
      .map((w) => w.text.trim())
      .filter(Boolean);
    engine.destroy();
    expect(words.length).toBeGreaterThan(10);
    expect(words.join(' ')).toMatch(/[A-Za-z]{4,}/);
  });
});
