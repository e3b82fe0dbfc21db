// `docparse admin …`: who runs the command. With PostgreSQL the CLI writes the database
// directly (every node reads apps, tenants and plans on each token request). On the embedded
// default the data dir has one owner at a time: a node holding it gets the command through
// its local management endpoint; otherwise the CLI takes the lock itself for the command,
// so neither a node nor another CLI opens the database meanwhile.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config.js';
import { resolveMasterKey } from '../data-dir/master-key.js';
import { openControlPlaneStore } from '../tenancy/sql-store.js';
import { Sealer } from '../crypto/sealed.js';
import { OperatorKeysStore } from '../tenancy/operator-keys-store.js';
import { AuditStore } from '../tenancy/audit-store.js';
import { KeyRing } from '../identity/keyring.js';
import { createLogger } from '../log.js';
import { mailSettingsOf } from '../mail/settings.js';
import { describeHolder, tryAcquireDataDirLock } from '../data-dir/lock.js';
import { adminUsage } from './admin.js';
import { executeAdminCommand } from './admin-command.js';
import { forwardToNode, type CliOutput } from './forward-to-node.js';
import { runRemoteAdmin, splitRemoteOptions } from './remote-admin.js';

/** How long the CLI waits for another `docparse admin`, or for a node still starting. */
const LOCK_WAIT_MS = 60_000;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export async function runAdminCli(args: string[], config: Config, io: CliOutput): Promise<number> {
  if (args.length === 0 || ['help', '--help', '-h'].includes(args[0])) {
    for (const line of adminUsage()) io.out(line);
    return args.length === 0 ? 2 : 0;
  }
  // A remote node, through its management API: nothing local is opened.
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
    return runRemoteAdmin(remote.rest, remote.url, key, io);
  }
  if (config.databaseUrl) return runDirectly(args, config, io);

  const dataDir = path.resolve(config.dataDir);
  await fs.mkdir(dataDir, { recursive: true });
  const deadline = Date.now() + LOCK_WAIT_MS;
  let told = false;
  for (;;) {
    const got = await tryAcquireDataDirLock(dataDir, 'admin');
    if ('lock' in got) {
      try {
        return await runDirectly(args, config, io);
      } finally {
        await got.lock.release();
      }
    }
    const holder = got.holder;
    if (holder.role === 'node' && !holder.foreign && holder.manageUrl) return forwardToNode(dataDir, holder, args, io);
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

/** Opens the control plane (the lock is held, or it is PostgreSQL) and runs the command here. */
async function runDirectly(args: string[], config: Config, io: CliOutput): Promise<number> {
  const store = await openControlPlaneStore({ databaseUrl: config.databaseUrl ?? undefined, dataDir: config.dataDir });
  let sealer: Sealer | null = null;
  const getSealer = async () => (sealer ??= new Sealer(await resolveMasterKey(config)));
  try {
    const result = await executeAdminCommand(args, {
      store,
      sealer: getSealer,
      operatorKeys: new OperatorKeysStore(store.db),
      audit: new AuditStore(store.db),
      mail: mailSettingsOf(config),
      keyring: async () => {
        const keyring = new KeyRing({ store, sealer: await getSealer(), logger: createLogger('warn') });
        await keyring.init();
        return keyring;
      },
    });
    for (const line of result.stdout) io.out(line);
    for (const line of result.stderr) io.err(line);
    return result.exitCode;
  } finally {
    await store.close();
  }
}
