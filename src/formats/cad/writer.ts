// Drawing model → artifact `content` (shape in schema.ts), streamed through the JsonWriter.
import type { JsonWriter } from '../kit/json-writer.js';
import type { CadDocument } from './model.js';

export async function writeCadContent(doc: CadDocument, w: JsonWriter, dxf?: { binary: boolean; encoding: string }): Promise<void> {
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
    for (const item of list as unknown[]) {
      w.value(item);
      await w.maybeFlush();
    }
    w.endArray();
  }
  w.endObject();
}
