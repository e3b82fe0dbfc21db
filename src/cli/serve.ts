// `docparse serve [--role api|worker|auth ...]`: runs a node until SIGTERM or SIGINT, then
// drains it; tells the person who started it what only they may see.
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ALL_ROLES, ConfigError, loadConfig, type Role } from '../config.js';
import { startNode, type RunningNode } from '../node.js';
import { hasTerminal, toTerminal } from './terminal.js';

export async function serve(args: string[]): Promise<void> {
  // Uploads, artifacts, scratch files (the parsers' and LibreOffice's too) and the control
  // plane are tenants' data: readable by the service's user only.
  process.umask(0o077);
  const { values } = parseArgs({ args, options: { role: { type: 'string', multiple: true } }, strict: true });
  const roles = (values.role ?? []).flatMap((r) => r.split(','));
  for (const r of roles) if (!ALL_ROLES.includes(r as Role)) throw new ConfigError([`--role ${r} is not one of ${ALL_ROLES.join(', ')}`]);
  const config = loadConfig(process.env, roles.length ? (roles as Role[]) : ALL_ROLES);
  // Signals are handled from the first moment: one during start-up stops the node as soon
  // as it is up; a second signal exits at once.
  let node: RunningNode | null = null;
  let stopRequested: string | null = null;
  let stopping = false;
  const stop = (signal: string) => {
    if (stopRequested || stopping) {
      console.error(`${signal} again: exiting without waiting for in-flight work`);
      process.exit(1);
    }
    stopRequested = signal;
    if (node) void shutdown(node, signal);
  };
  const shutdown = async (n: RunningNode, signal: string) => {
    stopping = true;
    n.logger.info({ signal }, 'shutting down: draining in-flight work');
    try {
      await n.close();
      process.exit(0);
    } catch (err) {
      n.logger.error({ err }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));

  node = await startNode(config);
  await tellWhoStartedIt(node);
  if (stopRequested) await shutdown(node, stopRequested);
}

/**
 * What only the person who started the node may see: the demo app's client secret (on the
 * start that created it; only its hash is stored) and a one-time dashboard sign-in link (when
 * no identity provider is configured). Written to their terminal, never to stdout, where the
 * JSON log stream goes and log collectors keep it. Without a terminal (a service, a container)
 * the secret goes to a file only the service's user can read, and no link is made.
 */
async function tellWhoStartedIt(node: RunningNode): Promise<void> {
  const { config, logger } = node;
  const demo = node.demoCredentials;
  if (demo) {
    const text = [
      'Demo workspace created. Store these credentials now: the secret will not be shown again.',
      `  client_id:     ${demo.clientId}`,
      `  client_secret: ${demo.clientSecret}`,
      `  token:         curl -s -X POST ${config.authUrl}/connect/token -d grant_type=client_credentials -d scope=Service.API -d client_id=${demo.clientId} -d client_secret=...`,
    ].join('\n');
    if (!toTerminal(`\n${text}\n\n`)) {
      const file = path.join(config.dataDir, 'demo-credentials.txt');
      fs.writeFileSync(file, `${text}\n`, { mode: 0o600 });
      logger.info({ file }, 'demo workspace created; no terminal to show its client secret to, so it is in this file (readable by this user only)');
    }
  }
  if (node.dashboard && !node.dashboard.oidc) {
    const hint = 'or sign in with an operator key (docparse admin keys create-operator)';
    if (hasTerminal()) {
      try {
        const link = await node.dashboard.createSignInLink();
        toTerminal(
          `Dashboard: no identity provider is configured, so the local operator signs in with this one-time link (works once, for 15 minutes):\n  ${link}\nFor another link run docparse admin sign-in-link, ${hint}.\n\n`,
        );
      } catch (err) {
        logger.warn({ reason: (err as Error).message }, `could not make a one-time dashboard sign-in link; ${hint}`);
      }
    } else {
      logger.info(
        { dashboard: node.dashboard.url },
        `dashboard: no identity provider configured and no terminal for a one-time sign-in link; configure DOCPARSE_OIDC_CLIENT_ID, ${hint}`,
      );
    }
  }
}
