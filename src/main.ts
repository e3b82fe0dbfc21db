// The `docparse` command: `serve` runs a node (all roles, or --role api|worker|auth);
// `admin …` manages tenants, apps, plans and signing keys: through the node that holds the
// data dir, or against the control plane directly (src/cli/run-admin-cli.ts).
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ALL_ROLES, ConfigError, loadConfig, type Role } from './config.js';
import { startNode, VERSION, type RunningNode } from './node.js';
import { runAdminCli } from './cli/run-admin-cli.js';
import { DataDirLockedError } from './manage/data-dir-lock.js';

const USAGE = `docparse ${VERSION}

Usage:
  docparse serve [--role api|worker|auth ...]   run a node (all roles by default)
  docparse admin <command> ...                  manage tenants, apps, plans, usage
  docparse admin keys rotate|list               rotate or list token signing keys
  docparse admin keys create-operator [--name N]  an operator API key for the management API (printed once)
  docparse admin --url URL [--key dp_op_…] ...  run a command on a remote node through /manage/v1
                                                (key also from DOCPARSE_OPERATOR_KEY)
  docparse --version

Configuration comes from environment variables (see docs/configuration.md).`;

export async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    console.log(USAGE);
    return;
  }
  if (command === '--version') {
    console.log(VERSION);
    return;
  }
  try {
    if (command === 'serve') return await serve(rest);
    if (command === 'admin') {
      process.exitCode = await admin(rest);
      return;
    }
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(78); // EX_CONFIG
    }
    if (err instanceof DataDirLockedError) {
      console.error(`docparse ${command}: not starting: ${err.message}`);
      process.exit(1);
    }
    throw err;
  }
  console.error(`Unknown command ${JSON.stringify(command)}.\n\n${USAGE}`);
  process.exitCode = 2;
}

async function serve(args: string[]): Promise<void> {
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
          `Dashboard: no identity provider is configured, so the local operator signs in with this one-time link (works once, for 15 minutes):\n  ${link}\nFor another link restart the node, ${hint}.\n\n`,
        );
      } catch (err) {
        logger.warn({ reason: (err as Error).message }, `could not make a one-time dashboard sign-in link; ${hint}`);
      }
    } else {
      logger.info({ dashboard: node.dashboard.url }, `dashboard: no identity provider configured and no terminal for a one-time sign-in link; configure DOCPARSE_OIDC_CLIENT_ID, ${hint}`);
    }
  }
}

/** stderr when it is a terminal, else the controlling terminal; false when there is none. */
function toTerminal(text: string): boolean {
  if (process.stderr.isTTY) {
    process.stderr.write(text);
    return true;
  }
  let fd: number;
  try {
    fd = fs.openSync('/dev/tty', 'w');
  } catch {
    return false;
  }
  try {
    fs.writeSync(fd, text);
    return true;
  } catch {
    return false;
  } finally {
    fs.closeSync(fd);
  }
}

function hasTerminal(): boolean {
  if (process.stderr.isTTY) return true;
  try {
    fs.closeSync(fs.openSync('/dev/tty', 'w'));
    return true;
  } catch {
    return false;
  }
}

async function admin(args: string[]): Promise<number> {
  return runAdminCli(args, loadConfig(process.env), { out: (line) => console.log(line), err: (line) => console.error(line) });
}
