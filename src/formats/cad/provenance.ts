// Where a drawing's entities came from and what the artifact left out (issue 32, items 3–4).
// An entity's provenance is its layout (the model or paper space whose block record owns it;
// none for an entity of a block definition, which belongs to no layout until inserted) and
// its handle as the drawing stores it (hex, group code 5 in DXF).
import type { CompletenessCounter } from '../kit/completeness.js';
import type { Provenance } from '../kit/provenance.js';
import { isModelSpace, type CadDocument } from './model.js';

/** Block record name (upper case) → the name of the layout it draws. */
export function layoutsByBlock(doc: CadDocument): Map<string, string> {
  const out = new Map<string, string>();
  for (const b of doc.blocks) {
    if (b.layout) out.set(b.name.toUpperCase(), b.layout);
    else if (isModelSpace(b.name)) out.set(b.name.toUpperCase(), 'Model'); // an R12 DXF has no LAYOUT objects
  }
  for (const l of doc.layouts) if (l.block && !out.has(l.block.toUpperCase())) out.set(l.block.toUpperCase(), l.name);
  if (!out.has('*MODEL_SPACE')) out.set('*MODEL_SPACE', 'Model');
  return out;
}

/** `{ ...within, layout, handle }`, each only when known. */
export function entityProvenance(within: Provenance | undefined, layouts: Map<string, string>, block: string, handle: string | null): Provenance {
  const layout = layouts.get(block.toUpperCase());
  return { ...within, ...(layout !== undefined ? { layout } : {}), ...(handle ? { handle } : {}) };
}

/**
 * Layouts: all emitted, empty when their block record holds no entity. Entities: every entity
 * of every block record is emitted; those the engine does not convert are skipped, one run per
 * type with the engine's reason.
 */
export function countCad(counter: CompletenessCounter, doc: CadDocument, within: Provenance | undefined): void {
  const perBlock = new Map<string, number>();
  for (const e of doc.entities) perBlock.set(e.block.toUpperCase(), (perBlock.get(e.block.toUpperCase()) ?? 0) + 1);
  const empty = doc.layouts.filter((l) => !(l.block && perBlock.get(l.block.toUpperCase()))).length;
  counter.emitted('layouts', doc.layouts.length, empty);
  counter.emitted('entities', doc.entities.length);
  for (const s of doc.skippedEntities ?? []) counter.missed('entities', 'skipped', s.reason, { ...within }, s.count);
}
