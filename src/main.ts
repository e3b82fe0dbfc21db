// The `docparse` command: `serve` runs a node (all roles, or --role api|worker|auth);
// `admin …` manages tenants, apps, plans, usage and keys, through the node that holds the
// data dir, against the control plane directly, or on a remote node with --url
// (src/cli/run-admin-cli.ts; its commands are one table, src/cli/commands/); `parse`,
// `status` and `result` are for API users, built on the SDK (src/cli/user/).
import { ConfigError, loadConfig } from './config.js';
import { VERSION } from './node.js';
import { runAdminCli } from './cli/run-admin-cli.js';
import { serve } from './cli/serve.js';
import { USER_USAGE } from './cli/user/usage.js';
import { DataDirLockedError } from './data-dir/lock.js';

interface TopCommand {
  name: string;
  /** Its lines in `docparse --help`: [usage, what it does]. */
  help: [string, string][];
  /** Sets process.exitCode itself when it is not 0. */
  run(args: string[]): Promise<void>;
}

const COMMANDS: TopCommand[] = [
  {
    name: 'serve',
    help: [['docparse serve [--role api|worker|auth ...]', 'run a node (all roles by default)']],
    run: serve,
  },
  {
    name: 'admin',
    help: [
      ['docparse admin <command> ...', 'manage tenants, apps, plans, usage'],
      ['docparse admin keys rotate|list', 'rotate or list token signing keys'],
      ['docparse admin keys create-operator [--name N]', 'an operator API key for the management API (printed once)'],
      ['docparse admin --url URL [--key dp_op_…] ...', 'run a command on a remote node through /manage/v1'],
      ['', '(key also from DOCPARSE_OPERATOR_KEY)'],
      ['docparse admin help', 'every admin command with its options'],
    ],
    async run(args) {
      process.exitCode = await runAdminCli(args, loadConfig(process.env), { out: (line) => console.log(line), err: (line) => console.error(line) });
    },
  },
  ...(['parse', 'status', 'result', 'cancel'] as const).map((name): TopCommand => ({
    name,
    help: [USER_USAGE[name]],
    async run(args) {
      // Loaded only for these commands: `docparse serve` has no use for the SDK.
      const { runUserCommand } = await import('./cli/user/run-user-cli.js');
      process.exitCode = await runUserCommand(name, args, {
        out: (line) => console.log(line),
        err: (line) => console.error(line),
        stdout: process.stdout,
        env: process.env,
        cwd: process.cwd(),
      });
    },
  })),
];

function usage(): string {
  const rows = [...COMMANDS.flatMap((c) => c.help), ['docparse --version', '']];
  const width = Math.max(...rows.map(([u]) => u.length)) + 2;
  return [
    `docparse ${VERSION}`,
    '',
    'Usage:',
    ...rows.map(([u, what]) => `  ${u.padEnd(width)}${what}`.trimEnd()),
    '',
    'A node is configured by environment variables (see docs/configuration.md); parse, status and',
    'result read DOCPARSE_URL, DOCPARSE_CLIENT_ID and DOCPARSE_CLIENT_SECRET or --config FILE (docs/clients.md).',
  ].join('\n');
}

export async function main(argv: string[]): Promise<void> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    console.log(usage());
    return;
  }
  if (name === '--version') {
    console.log(VERSION);
    return;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    console.error(`Unknown command ${JSON.stringify(name)}.\n\n${usage()}`);
    process.exitCode = 2;
    return;
  }
  try {
    await command.run(rest);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(78); // EX_CONFIG
    }
    if (err instanceof DataDirLockedError) {
      console.error(`docparse ${name}: not starting: ${err.message}`);
      process.exit(1);
    }
    throw err;
  }
}
