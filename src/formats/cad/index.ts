// CAD family: DWG through LibreDWG (WASM, a fresh instance per drawing), DXF (ASCII and
// binary) through our own group-code reader. One Document Unit per processed drawing.
// Content shape: schema.ts (CadContent).
import { CompletenessCounter } from '../kit/completeness.js';
import type { JsonWriter } from '../kit/json-writer.js';
import type { FormatParser, ParseInput, ParseOutcome } from '../kit/types.js';
import { readDwg } from './dwg.js';
import { readDxf } from './dxf.js';
import type { CadDocument } from './model.js';
import { countCad } from './provenance.js';
import { writeCadContent } from './writer.js';

export { CadContent } from './schema.js';

function outcome(doc: CadDocument, format: 'dwg' | 'dxf', input: ParseInput): ParseOutcome {
  const completeness = new CompletenessCounter();
  countCad(completeness, doc, input.within);
  return {
    documentFormat: format,
    documentUnits: 1,
    metadata: {
      engine: doc.engine,
      fileVersion: doc.fileVersion.code,
      release: doc.fileVersion.release,
      units: doc.units.name,
      layers: doc.layers.length,
      blocks: doc.blocks.length,
      entities: doc.entityCount,
      texts: doc.texts.length,
    },
    warnings: doc.warnings,
    completeness: completeness.result(),
  };
}

export const parseDwg: FormatParser = async (input: ParseInput, content: JsonWriter) => {
  input.progress(0);
  const doc = await readDwg(input.filePath, input.settings.cad.maxBytes);
  input.progress(0.6);
  await writeCadContent(doc, content, input.within);
  input.progress(1);
  return outcome(doc, 'dwg', input);
};

export const parseDxf: FormatParser = async (input: ParseInput, content: JsonWriter) => {
  input.progress(0);
  const { doc, binary, encoding } = await readDxf(input.filePath, input.settings.cad.maxBytes);
  input.progress(0.6);
  await writeCadContent(doc, content, input.within, { binary, encoding });
  input.progress(1);
  return outcome(doc, 'dxf', input);
};
