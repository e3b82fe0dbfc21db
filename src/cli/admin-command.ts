// One `docparse admin …` command against an open control plane, its output collected as
// lines: the CLI prints them when it holds the data dir itself, and a node returns them from
// its local management endpoint, so both run exactly the same code.
import type { Sealer } from '../crypto/sealed.js';
import type { KeyRing } from '../identity/keyring.js';
import type { ControlPlaneStore } from '../tenancy/types.js';
import { runAdmin } from './admin.js';
import { runKeysAdmin } from './keys.js';
import { runStorageAdmin } from './storage.js';

export interface AdminDeps {
  store: ControlPlaneStore;
  /** The master-key sealer (storage credentials); asked for only by the commands that need it. */
  sealer(): Promise<Sealer>;
  /** A loaded signing key ring; asked for only by `keys`. */
  keyring(): Promise<KeyRing>;
}

export interface AdminResult {
  /** 0 done, 1 the operation failed, 2 bad command line. */
  exitCode: number;
  stdout: string[];
  stderr: string[];
}

export const isStorageCommand = (args: string[]) => args[0] === 'storage' || (args[0] === 'app' && args[1] === 'set-storage');

export async function executeAdminCommand(args: string[], deps: AdminDeps): Promise<AdminResult> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const out = (line: string) => void stdout.push(line);
  const err = (line: string) => void stderr.push(line);
  let exitCode: number;
  try {
    if (isStorageCommand(args)) exitCode = await runStorageAdmin(args, deps.store, await deps.sealer(), out);
    else if (args[0] === 'keys') exitCode = await runKeysAdmin(args, await deps.keyring(), out, err);
    else exitCode = await runAdmin(args, deps.store, out);
  } catch (e) {
    // What the commands do not turn into an exit code themselves (e.g. an unknown option of
    // `storage create`, an unreachable database): said once, never a stack trace.
    const code = (e as NodeJS.ErrnoException).code;
    err(`error: ${(e as Error).message}`);
    exitCode = typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS') ? 2 : 1;
  }
  return { exitCode, stdout, stderr };
}
