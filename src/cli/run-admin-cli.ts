// `docparse admin …`: where the command goes. Every command is a client of the management
// API; only the node answering it differs:
//   --url BASE_URL   a remote node, with an operator key (--key or DOCPARSE_OPERATOR_KEY);
//   PostgreSQL       the CLI serves the API itself for the command (every node reads apps,
//                    tenants and plans on each token request, so nothing needs telling);
//   the data dir     a node holding it gets the command on its loopback listener; otherwise
//                    the CLI takes the lock and serves the API itself, so neither a node nor
//                    another CLI opens the database meanwhile.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config.js';
import { Sealer } from '../crypto/sealed.js';
import { describeHolder, tryAcquireDataDirLock, type LockHolder } from '../data-dir/lock.js';
import { resolveMasterKey } from '../data-dir/master-key.js';
import { credentialFilePath, readOperatorCredential } from '../data-dir/operator-credential.js';
import { openControlPlaneStore } from '../tenancy/sql-store.js';
import { AdminApi } from './admin-api.js';
import { ADMIN_COMMANDS, adminUsage } from './commands/index.js';
import type { CommandIo } from './command-table.js';
import { ManageApiError, ManageClient, ManageUnreachableError } from './manage-client.js';
import { withOwnListener } from './own-listener.js';

/** How long the CLI waits for another `docparse admin`, or for a node still starting. */
const LOCK_WAIT_MS = 60_000;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Takes --url and --key (either `--x v` or `--x=v`) out of the arguments. */
export function splitRemoteOptions(args: string[]): { url: string | null; key: string | null; rest: string[] } {
  let url: string | null = null;
  let key: string | null = null;
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const m = /^--(url|key)(?:=(.*))?$/.exec(a);
    if (!m) {
      rest.push(a);
      continue;
    }
    const value = m[2] ?? args[++i] ?? '';
    if (m[1] === 'url') url = value;
    else key = value;
  }
  return { url, key, rest };
}

export async function runAdminCli(args: string[], config: Config, io: CommandIo): Promise<number> {
  if (args.length === 0 || ['help', '--help', '-h'].includes(args[0])) {
    for (const line of adminUsage()) io.out(line);
    return args.length === 0 ? 2 : 0;
  }
  const remote = splitRemoteOptions(args);
  if (remote.url !== null) {
    const key = remote.key ?? process.env.DOCPARSE_OPERATOR_KEY?.trim() ?? '';
    if (!/^https?:\/\/[^/]/.test(remote.url)) {
      io.err("docparse admin: --url needs the node's base URL, e.g. --url https://docparse.example.com");
      return 2;
    }
    if (!key) {
      io.err('docparse admin: --url needs an operator key: --key dp_op_… or DOCPARSE_OPERATOR_KEY (docparse admin keys create-operator makes one)');
      return 2;
    }
    return ADMIN_COMMANDS.run(remote.rest, new AdminApi(new ManageClient(remote.url, key)), io);
  }
  if (config.databaseUrl) return runOnOwnListener(args, config, io);

  const dataDir = path.resolve(config.dataDir);
  await fs.mkdir(dataDir, { recursive: true });
  const deadline = Date.now() + LOCK_WAIT_MS;
  let told = false;
  for (;;) {
    const got = await tryAcquireDataDirLock(dataDir, 'admin');
    if ('lock' in got) {
      try {
        return await runOnOwnListener(args, config, io);
      } finally {
        await got.lock.release();
      }
    }
    const holder = got.holder;
    if (holder.role === 'node' && !holder.foreign && holder.manageUrl) return runThroughNode(dataDir, holder, args, io);
    if (holder.role === 'node' && holder.foreign) {
      io.err(`docparse admin: data dir ${dataDir} is held by ${describeHolder(holder)}; run docparse admin where that node runs. Nothing was changed.`);
      return 1;
    }
    // Another `docparse admin`, or a node that does not listen yet: wait for it.
    if (Date.now() >= deadline) {
      io.err(`docparse admin: data dir ${dataDir} is still held by ${describeHolder(holder)} after ${LOCK_WAIT_MS / 1000} s. Nothing was changed.`);
      return 1;
    }
    if (!told) io.err(`docparse admin: waiting for ${describeHolder(holder)}, which holds data dir ${dataDir}`);
    told = true;
    await sleep(200);
  }
}

/** The node holding the data dir answers on its loopback listener, opened by the credential it wrote there. */
async function runThroughNode(dataDir: string, node: LockHolder, args: string[], io: CommandIo): Promise<number> {
  const who = `docparse serve (pid ${node.pid})`;
  const refuse = (why: string) => {
    io.err(`docparse admin: ${why}`);
    return 1;
  };
  let credential: string;
  try {
    credential = await readOperatorCredential(dataDir);
  } catch (err) {
    return refuse(`${who} holds data dir ${dataDir}, but ${(err as Error).message}. Nothing was changed.`);
  }
  const client = new ManageClient(node.manageUrl!, credential, `the operator credential in ${credentialFilePath(dataDir)}`);
  // Asked before the command, so a node that cannot be reached is told apart from a command that failed half way.
  try {
    await client.call('GET', '/regions');
  } catch (err) {
    if (err instanceof ManageUnreachableError) {
      return refuse(
        `${who} holds data dir ${dataDir} but ${err.reason}. ` +
          'Nothing was changed: a data dir a live node holds is never opened by the CLI. Try again once the node answers, or stop it.',
      );
    }
    if (err instanceof ManageApiError && err.status === 401) {
      return refuse(
        `${who} refused the operator credential in ${credentialFilePath(dataDir)} (a node makes a new one on every start: try again). Nothing was changed.`,
      );
    }
    throw err;
  }
  return ADMIN_COMMANDS.run(args, new AdminApi(client), io);
}

/** Opens the control plane (the lock is held, or it is PostgreSQL) and serves the command's API calls in this process. */
async function runOnOwnListener(args: string[], config: Config, io: CommandIo): Promise<number> {
  const controlPlane = await openControlPlaneStore({ databaseUrl: config.databaseUrl ?? undefined, dataDir: config.dataDir });
  try {
    const sealer = new Sealer(await resolveMasterKey(config));
    return await withOwnListener({ controlPlane, config, sealer }, (client) => ADMIN_COMMANDS.run(args, new AdminApi(client), io));
  } finally {
    await controlPlane.close();
  }
}
