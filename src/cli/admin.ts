// `docparse admin` commands on a control plane store open in this process, printing to one
// sink: what tests and the billing and mail suites run. The commands themselves are in
// commands/ (one file per group), run by the one table in command-table.ts.
import type { MailSettings } from '../mail/settings.js';
import type { ControlPlaneStore } from '../tenancy/types.js';
import type { Out } from './command-output.js';
import { ADMIN_COMMANDS } from './commands/index.js';
import { localBackend } from './local-backend.js';

export { SECRET_NOTICE } from './commands/app.js';
export { adminUsage } from './commands/index.js';

export interface AdminOptions {
  /** Mail settings of the node the command runs for (its config); the `mail` commands need them. */
  mail?: MailSettings;
}

/** Runs one admin command; returns the process exit code (0 ok, 1 failed, 2 bad usage). */
export function runAdmin(argv: string[], store: ControlPlaneStore, out: Out, opts: AdminOptions = {}): Promise<number> {
  return ADMIN_COMMANDS.run(argv, localBackend({ store, mail: opts.mail }), { out, err: out });
}
