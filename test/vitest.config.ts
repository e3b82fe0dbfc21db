import { CORPUS_AVAILABLE, CORPUS_DIR } from './helpers/corpus-dir.mjs';
import { configDefaults, defineConfig } from 'vitest/config';

const root = new URL('..', import.meta.url).pathname;

// The real-files corpus (test/helpers/corpus-dir.mjs) is not part of the repository. A clone
// without it still passes: these files read it throughout and are left out; the others run,
// and the corpus-aware ones skip what needs it (CORPUS_AVAILABLE).
const NEEDS_CORPUS = [
  'test/formats/pdf/borderless-corpus.test.ts',
  'test/formats/office/converted-documents.test.ts',
  'test/api/families.test.ts',
  'test/engines/missing-engines.test.ts',
  'test/engines/parser-without-engine.test.ts',
  'test/engines/worker-without-engine.test.ts',
  'test/formats/archive-guard.test.ts',
  'test/formats/cad/cad.test.ts',
  'test/formats/csv/spatial.test.ts',
  'test/formats/csv/tabular.test.ts',
  'test/formats/email/content.test.ts',
  'test/formats/email/corpus.test.ts',
  'test/formats/email/service-attachments.test.ts',
  'test/formats/gis/behaviour.test.ts',
  'test/formats/gis/corpus.test.ts',
  'test/formats/gis/fgb-route.test.ts',
  'test/formats/office/docx.test.ts',
  'test/formats/office/guards.test.ts',
  'test/formats/office/presentations.test.ts',
  'test/formats/office/render-modes.test.ts',
  'test/formats/office/spreadsheets.test.ts',
  'test/formats/parquet/parquet.test.ts',
  'test/formats/pdf/advanced.test.ts',
  'test/formats/pdf/ocr.test.ts',
  'test/formats/pdf/pdfium-binary.test.ts',
  'test/formats/pdf/singlecolumn-wasm.test.ts',
  'test/formats/pdf/tesseract-loader.test.ts',
  'test/formats/pdf/text.test.ts',
  'test/formats/pdf/textlayer.test.ts',
  'test/pipeline/artifact.test.ts',
  'test/formats/detect.test.ts',
];
const corpusMissing = !CORPUS_AVAILABLE;
if (corpusMissing) console.warn(`No corpus at ${CORPUS_DIR}: ${NEEDS_CORPUS.length} test files that read it are left out.`);

export default defineConfig({
  test: {
    root,
    include: ['test/**/*.test.ts'],
    exclude: [...configDefaults.exclude, ...(corpusMissing ? NEEDS_CORPUS : [])],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Integration suites share Redis/PostgreSQL and ports: run files one at a time.
    fileParallelism: false,
    pool: 'forks',
  },
});
