// `docparse admin --url BASE_URL [--key dp_op_…] …`: the same commands, sent to a remote
// node's management API with an operator key (--key or DOCPARSE_OPERATOR_KEY), printing
// what the command prints against a local database: the one command table runs over the
// API's backend (remote-backend.ts).
import type { CliOutput } from './forward-to-node.js';
import { ADMIN_COMMANDS } from './commands/index.js';
import { ManageClient } from './manage-client.js';
import { remoteBackend } from './remote-backend.js';

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

export function runRemoteAdmin(argv: string[], baseUrl: string, key: string, io: CliOutput): Promise<number> {
  return ADMIN_COMMANDS.run(argv, remoteBackend(new ManageClient(baseUrl, key)), io);
}
