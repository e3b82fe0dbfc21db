// The storage commands (`storage create`, `app set-storage`) on a store and master-key
// sealer open in this process (commands/storage.ts), printing to one sink.
import type { Sealer } from '../crypto/sealed.js';
import type { ControlPlaneStore } from '../tenancy/types.js';
import { ADMIN_COMMANDS } from './commands/index.js';
import { localBackend } from './local-backend.js';

export function runStorageAdmin(argv: string[], store: ControlPlaneStore, sealer: Sealer, out: (line: string) => void): Promise<number> {
  return ADMIN_COMMANDS.run(argv, localBackend({ store, sealer: async () => sealer }), { out, err: out });
}
