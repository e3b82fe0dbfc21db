// The engines a node has, as /health/ready and /health/node-state publish them (and the
// OpenAPI document describes them). No file-system paths: these endpoints are public.
import { Type, type Static } from '@sinclair/typebox';

export const EngineStatusSchema = Type.Object({
  name: Type.String({ description: 'PDFium, Tesseract, LibreOffice, GDAL, LibreDWG or hyparquet.' }),
  available: Type.Boolean(),
  version: Type.Union([Type.String(), Type.Null()], {
    description:
      "What is installed, e.g. 'LibreOffice 7.4.7.2' or '@embedpdf/pdfium 2.15.1'; null while LibreOffice's version is still being read at start, or when not installed.",
  }),
  packages: Type.Array(Type.Object({ name: Type.String(), version: Type.Union([Type.String(), Type.Null()]) }), {
    description: 'npm packages the engine comes from.',
  }),
  usedFor: Type.String({ description: 'Formats and modes that need this engine.' }),
  languages: Type.Optional(Type.Array(Type.String(), { description: 'Tesseract: trained models installed (eng is the one used).' })),
  build: Type.Optional(Type.String({ description: 'PDFium: which WASM binary runs (the build’s re-optimised one or the package’s, and why).' })),
  reason: Type.Optional(Type.String({ description: 'Why the engine is not available.' })),
});
export type EngineStatusT = Static<typeof EngineStatusSchema>;

export const EnginesSchema = Type.Object(
  {
    available: Type.Array(EngineStatusSchema),
    missing: Type.Array(EngineStatusSchema, {
      description: 'Engines this node lacks: uploads that need one are refused with 503 engine_unavailable; everything else is served.',
    }),
  },
  { description: 'Parsing engines found on this node when it started.' },
);
export type EnginesT = Static<typeof EnginesSchema>;
