// Every `docparse admin` command, by group, in the order `docparse admin help` lists them.
import { CommandTable } from '../command-table.js';
import { appCommands } from './app.js';
import { keysCommands, keysUsage } from './keys.js';
import { mailCommands } from './mail.js';
import { planCommands } from './plan.js';
import { signInLink } from './sign-in.js';
import { appSetStorage, storageCreate, storageUsage } from './storage.js';
import { tenantCommands } from './tenant.js';
import { usageCommands } from './usage.js';

export const ADMIN_COMMANDS = new CommandTable([
  { name: 'tenant', commands: tenantCommands },
  { name: 'app', commands: [...appCommands, appSetStorage] },
  { name: 'plan', commands: planCommands },
  { name: 'usage', commands: usageCommands },
  { name: 'mail', commands: mailCommands },
  { name: 'storage', commands: [storageCreate], onUnknown: storageUsage },
  { name: 'keys', commands: keysCommands, onUnknown: keysUsage },
  { name: 'sign-in-link', commands: [signInLink] },
]);

export function adminUsage(): string[] {
  return ADMIN_COMMANDS.usage();
}
