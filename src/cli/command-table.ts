// The `docparse admin` command table and its one runner. Every command is a client of the
// management API (AdminApi), whichever node answers it: a remote one (--url), the node
// holding the data dir, or the CLI's own listener. Exit codes: 0 done, 1 the operation
// failed, 2 bad command line.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { AdminApi } from './admin-api.js';
import { terminalOut, type Out } from './command-output.js';
import { UsageError, type Values } from './command-values.js';

export type Options = NonNullable<ParseArgsConfig['options']>;

export interface CommandContext {
  api: AdminApi;
  out: Out;
  err: Out;
  json: boolean;
  values: Values;
  positionals: string[];
}

export interface AdminCommand {
  /** The words that name it: 'tenant create', 'usage'. */
  name: string;
  usage: string;
  summary: string;
  /**
   * Its options, parsed strictly (--json and --help are added). null: the words after the
   * name are taken as they come, those without a leading -- as its arguments.
   */
  options: Options | null;
  /** Exact number of arguments; undefined when the command checks them itself. */
  positionals?: number;
  /**
   * Where its refusals go. The storage and key commands have always said theirs on stderr
   * as `error: …` (scripts read their stdout as the answer); the others on stdout, with the
   * usage line, or as {"error"} with --json.
   */
  refusals?: 'stderr';
  /** Returns the exit code when it is not 0. */
  run(ctx: CommandContext): Promise<number | void>;
}

/** A group's own answer to an action it does not have (instead of "unknown command"). */
export interface CommandGroup {
  name: string;
  commands: AdminCommand[];
  onUnknown?: (out: Out, err: Out) => number;
}

export interface CommandIo {
  out: Out;
  err: Out;
}

export class CommandTable {
  private readonly byName = new Map<string, AdminCommand>();
  private readonly groupByName = new Map<string, CommandGroup>();

  constructor(readonly groups: readonly CommandGroup[]) {
    for (const g of groups) {
      this.groupByName.set(g.name, g);
      for (const c of g.commands) this.byName.set(c.name, c);
    }
  }

  usage(): string[] {
    return [
      'Usage: docparse admin <command> [--json]',
      ...this.groups.flatMap((g) => ['', ...g.commands.flatMap((c) => [`  ${c.usage}`, `      ${c.summary}`])]),
      '',
      'Against a remote node: --url BASE_URL with --key dp_op_… (or DOCPARSE_OPERATOR_KEY).',
      '--json prints one JSON value per line (errors as {"error": ...}).',
      'Exit codes: 0 done, 1 the operation failed, 2 bad command line.',
    ];
  }

  /** Runs one command; returns the process exit code (0 ok, 1 failed, 2 bad usage). Everything printed is escaped for the terminal (terminalOut). */
  async run(argv: readonly string[], api: AdminApi, rawIo: CommandIo): Promise<number> {
    const io: CommandIo = { out: terminalOut(rawIo.out), err: terminalOut(rawIo.err) };
    const { out } = io;
    let args = [...argv];
    let json = false;
    while (args[0] === '--json') {
      json = true;
      args = args.slice(1);
    }
    const fail = (message: string, code: number, usage?: string): number => {
      if (json) out(JSON.stringify(usage ? { error: message, usage } : { error: message }));
      else {
        out(`error: ${message}`);
        if (usage) out(`usage: ${usage}`);
      }
      return code;
    };

    const [group, action] = args;
    if (group === undefined || group === 'help' || group === '--help' || group === '-h') {
      this.usage().forEach((l) => out(l));
      return group === undefined ? 2 : 0;
    }
    const key = this.byName.has(group) ? group : `${group} ${action ?? ''}`.trim();
    const command = this.byName.get(key);
    if (!command) {
      const g = this.groupByName.get(group);
      if (g?.onUnknown) return g.onUnknown(out, io.err);
      const known = g ? g.commands.map((c) => c.name.slice(group.length + 1)) : [];
      const hint = known.length ? `; ${group} commands: ${known.join(', ')}` : '; run "docparse admin help"';
      return fail(`unknown command "${key}"${hint}`, 2);
    }
    const usage = `docparse admin ${command.usage}`;
    const refuse = (message: string, code: number, withUsage = true): number => {
      if (command.refusals !== 'stderr') return fail(message, code, withUsage ? usage : undefined);
      io.err(`error: ${message}`);
      return code;
    };
    const rest = args.slice(key.split(' ').length);

    let values: Values;
    let positionals: string[];
    if (command.options === null) {
      positionals = rest.filter((a) => !a.startsWith('--'));
      values = { json: rest.includes('--json') };
    } else {
      try {
        const parsed = parseArgs({
          args: rest,
          options: { ...command.options, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
          allowPositionals: true,
          strict: true,
        });
        values = parsed.values as Values;
        positionals = parsed.positionals;
      } catch (err) {
        return refuse((err as Error).message, 2);
      }
    }
    if (values.json === true) json = true;
    if (values.help === true) {
      out(`usage: ${usage}`);
      out(`  ${command.summary}`);
      return 0;
    }
    if (command.positionals !== undefined && positionals.length !== command.positionals) {
      return refuse(`expected ${command.positionals} argument(s), got ${positionals.length}`, 2);
    }

    try {
      return (await command.run({ api, out, err: io.err, json, values, positionals })) ?? 0;
    } catch (err) {
      if (err instanceof UsageError) return refuse(err.message, 2);
      return refuse((err as Error).message, 1, false);
    }
  }
}
