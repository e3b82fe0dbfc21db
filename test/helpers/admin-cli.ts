// `docparse admin` commands run in this test process on a control plane it has open: the CLI's
// own listener (the management API on a loopback port, opened by an in-memory credential)
// around the store, exactly as `docparse admin` runs when it holds the data dir itself.
import { randomBytes } from 'node:crypto';
import { AdminApi } from '../../src/cli/admin-api.js';
import { ADMIN_COMMANDS } from '../../src/cli/commands/index.js';
import { withOwnListener } from '../../src/cli/own-listener.js';
import { loadConfig, type Config } from '../../src/config.js';
import { Sealer } from '../../src/crypto/sealed.js';
import type { MailSettings } from '../../src/mail/settings.js';
import type { SqlControlPlaneStore } from '../../src/tenancy/sql-store.js';

export interface RunAdminOptions {
  /** Settings of the node the command runs for (regions …); the rest are the defaults. */
  config?: Partial<Config>;
  /** The node's mail settings (the `mail` commands render e-mails with them). */
  mail?: MailSettings;
  /** The master-key sealer (storage credentials); a random one by default. */
  sealer?: Sealer;
  /** Where stderr lines go (default: with stdout). */
  err?: (line: string) => void;
}

/** Runs one admin command; returns its exit code (0 ok, 1 failed, 2 bad usage). */
export function runAdmin(argv: string[], store: SqlControlPlaneStore, out: (line: string) => void, opts: RunAdminOptions = {}): Promise<number> {
  const mail = opts.mail ? { smtpUrl: opts.mail.smtpUrl, mailFrom: opts.mail.from, dashboardUrl: opts.mail.dashboardUrl } : {};
  const config: Config = { ...loadConfig({}), ...mail, ...opts.config };
  const sealer = opts.sealer ?? new Sealer(randomBytes(32).toString('base64url'));
  return withOwnListener({ controlPlane: store, config, sealer }, (client) => ADMIN_COMMANDS.run(argv, new AdminApi(client), { out, err: opts.err ?? out }));
}
