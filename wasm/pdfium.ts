// PDFium loader: the implementation lives in src/formats/pdf/pdfium-loader.ts so that it is
// compiled with the rest of src/ (tsconfig rootDir is src). Finds pdfium.wasm inside the
// installed @embedpdf/pdfium package; compilePdfiumModule() is the main-thread hook.
export * from '../src/formats/pdf/pdfium-loader.js';
