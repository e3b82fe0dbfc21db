// What a node says about its engines at start: a warning per missing engine (uploads that
// need it are refused), and, once LibreOffice's version is read, one line with what it has.
import type { Logger } from 'pino';
import type { EngineInventory } from './inventory.js';

export function logEngineInventory(inventory: EngineInventory, logger: Logger): void {
  for (const e of inventory.engines.filter((x) => !x.available)) {
    logger.warn(
      { engine: e.name, reason: e.reason, usedFor: e.usedFor },
      `${e.name} is not installed: uploads that need it are refused (503 engine_unavailable)`,
    );
  }
  void inventory.versionsRead.then(() => {
    const found = inventory.engines
      .filter((e) => e.available)
      .map((e) => [e.name, { version: e.version, location: e.location, ...(e.languages ? { languages: e.languages } : {}) }]);
    logger.info({ engines: Object.fromEntries(found) }, 'engines found');
  });
}
