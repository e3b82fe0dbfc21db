// Tesseract loader: the implementation lives in src/formats/pdf/tesseract-loader.ts (compiled
// with src/). Engine .wasm from the tesseract-wasm package; English model from Debian's
// tesseract-ocr-eng (/usr/share/tesseract-ocr/5/tessdata/eng.traineddata) or TESSDATA_PREFIX.
export * from '../src/formats/pdf/tesseract-loader.js';
