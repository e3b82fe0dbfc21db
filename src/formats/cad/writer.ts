// Drawing model → artifact `content` (shape in schema.ts), streamed through the JsonWriter.
import type { JsonWriter } from '../kit/json-writer.js';
import type { Provenance } from '../kit/provenance.js';
import type { CadDocument } from './model.js';
import { entityProvenance, layoutsByBlock } from './provenance.js';

export async function writeCadContent(
  doc: CadDocument,
  w: JsonWriter,
  within: Provenance | undefined,
  dxf?: { binary: boolean; encoding: string },
): Promise<void> {
  const layouts = layoutsByBlock(doc);
  w.beginObject().field('engine', doc.engine).field('fileVersion', doc.fileVersion);
  if (dxf) w.field('dxf', dxf);
  w.field('codepage', doc.codepage)
    .field('units', doc.units)
    .field('extents', doc.extents)
    .field('headerVariables', doc.headerVariables)
    .field('summary', {
      layers: doc.layers.length,
      blocks: doc.blocks.length,
      layouts: doc.layouts.length,
      entities: doc.entityCount,
      allEntities: doc.entities.length,
      texts: doc.texts.length,
      dimensions: doc.dimensions.length,
    })
    .field('layers', doc.layers);
  await w.maybeFlush();
  for (const [key, list] of [
    ['blocks', doc.blocks],
    ['layouts', doc.layouts],
  ] as const) {
    w.key(key).beginArray();
    for (const item of list) {
      w.value(item);
      await w.maybeFlush();
    }
    w.endArray();
  }
  w.field('entityCounts', doc.entityCounts);
  if (doc.fileEntityCounts) w.field('fileEntityCounts', doc.fileEntityCounts);
  for (const [key, list] of [
    ['texts', doc.texts],
    ['dimensions', doc.dimensions],
    ['entities', doc.entities],
  ] as const) {
    w.key(key).beginArray();
    for (const item of list) {
      // texts and dimensions name their entity too: the same layout and handle
      w.value({ ...item, provenance: entityProvenance(within, layouts, item.block, item.handle) });
      await w.maybeFlush();
    }
    w.endArray();
  }
  w.endObject();
}
