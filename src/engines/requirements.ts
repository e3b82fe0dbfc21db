// Refuses, at upload, a document that needs an engine this node lacks: 503 engine_unavailable
// before anything is stored or charged. No Retry-After: the engine stays missing until an
// operator installs it, so retrying this node cannot help (another node might).
import { problem } from '../http/problem.js';
import type { JobOptions } from '../formats/kit/options.js';
import { engineInventory, findEngine, type EngineInventory } from './inventory.js';
import { enginesNeeded } from '../formats/registry.js';

export function requireEngines(format: string, options: JobOptions, inventory: EngineInventory = engineInventory()): void {
  for (const need of enginesNeeded(format, options, inventory.officeRender)) {
    if (findEngine(inventory, need.engine)?.available) continue;
    // Why it is missing is the operator's business (the node's log and /health say it).
    throw problem('engine_unavailable', `${need.engine} is needed ${need.why} and is not installed on this node. Nothing was stored or charged.`, {
      engine: need.engine,
      format,
      ...(format === 'pdf' && options.pdfMode ? { pdfMode: options.pdfMode } : {}),
    });
  }
}
