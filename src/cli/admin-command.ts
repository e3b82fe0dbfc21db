// One `docparse admin …` command against an open control plane, its output collected as
// lines: the CLI prints them when it holds the data dir itself, and a node returns them from
// its local management endpoint, so both run exactly the same code.
import type { Sealer } from '../crypto/sealed.js';
import type { KeyRing } from '../identity/keyring.js';
import type { ControlPlaneStore } from '../tenancy/types.js';
import type { OperatorKeysStore } from '../tenancy/operator-keys-store.js';
import type { AuditStore } from '../tenancy/audit-store.js';
import type { MailSettings } from '../mail/settings.js';
import { ADMIN_COMMANDS } from './commands/index.js';
import { localBackend } from './local-backend.js';

export interface AdminDeps {
  store: ControlPlaneStore;
  /** The master-key sealer (storage credentials); asked for only by the commands that need it. */
  sealer(): Promise<Sealer>;
  /** A loaded signing key ring; asked for only by `keys rotate|list`. */
  keyring(): Promise<KeyRing>;
  /** Operator API keys (`keys create-operator|list-operators|revoke-operator`). */
  operatorKeys: OperatorKeysStore;
  /** Where a command that changed something is recorded (who: the local operator). */
  audit?: AuditStore;
  /** The node's mail settings (the `mail` commands), from its config. */
  mail: MailSettings;
}

/** Options whose value is a secret: never written to the audit log. */
const SECRET_OPTIONS = new Set(['--secret-access-key']);

/** The command line as the audit log keeps it: secrets replaced. */
export function redactArgs(args: string[]): string[] {
  return args.map((a, i) =>
    i > 0 && SECRET_OPTIONS.has(args[i - 1]) ? '(secret)' : a.startsWith('--secret-access-key=') ? '--secret-access-key=(secret)' : a,
  );
}

/** A command that changes something: audited when it succeeds. */
const isChange = (args: string[]) => ADMIN_COMMANDS.find(args)?.changes === true;

export interface AdminResult {
  /** 0 done, 1 the operation failed, 2 bad command line. */
  exitCode: number;
  stdout: string[];
  stderr: string[];
}

export async function executeAdminCommand(args: string[], deps: AdminDeps): Promise<AdminResult> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const out = (line: string) => void stdout.push(line);
  const err = (line: string) => void stderr.push(line);
  let exitCode: number;
  try {
    exitCode = await ADMIN_COMMANDS.run(args, localBackend(deps), { out, err });
  } catch (e) {
    // What the command table does not turn into an exit code itself (e.g. an unreachable
    // database): said once, never a stack trace.
    const code = (e as NodeJS.ErrnoException).code;
    err(`error: ${(e as Error).message}`);
    exitCode = typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS') ? 2 : 1;
  }
  if (exitCode === 0 && deps.audit && isChange(args)) {
    const words = args.filter((a) => !a.startsWith('-'));
    await deps.audit
      .append({
        actor: { kind: 'operator', id: 'local-cli', email: null },
        tenantId: null,
        action: `cli.${words[0]}.${words[1]}`,
        objectType: words[0],
        objectId: words[2] ?? null,
        diff: { args: redactArgs(args) },
        clientAddress: 'local',
        requestId: null,
      })
      .catch((e: Error) => err(`warning: the change was made but could not be written to the audit log: ${e.message}`));
  }
  return { exitCode, stdout, stderr };
}
