// `docparse admin keys …`: token signing keys (rotate, list) and operator API keys for the
// management API (create-operator, list-operators, revoke-operator). Signing-key output is
// JSON lines either way; refusals go to stderr.
import type { OperatorKey } from '../../tenancy/types.js';
import type { AdminCommand, CommandContext } from '../command-table.js';
import { table, type Out } from '../command-output.js';
import { OPERATOR_KEY_NOTICE } from '../../manage/api/key-routes.js';

/** For an unknown `keys` action (the operator-key commands are listed by `docparse admin help`). */
export const KEYS_USAGE = 'usage: docparse admin keys rotate|list';
const OPERATOR_KEYS_USAGE = 'usage: docparse admin keys create-operator [--name NAME] | list-operators | revoke-operator KEY_ID';

/** What `docparse admin keys` answers to an action it does not have. */
export function keysUsage(_out: Out, err: Out): number {
  err(KEYS_USAGE);
  return 2;
}

/** The operator-key commands take --name (create-operator only) and a key id (revoke-operator only). */
function badOperatorArgs(ctx: CommandContext, expected: number, takesName: boolean): boolean {
  if (ctx.positionals.length === expected && (takesName || ctx.values.name === undefined)) return false;
  ctx.err(OPERATOR_KEYS_USAGE);
  return true;
}

const OPERATOR_OPTIONS = { name: { type: 'string' } } as const;

export const keysCommands: AdminCommand[] = [
  {
    name: 'keys rotate',
    usage: 'keys rotate',
    summary: 'a new token signing key signs from now on; the previous ones verify until their last token has expired',
    options: null,
    refusals: 'stderr',
    async run(ctx) {
      ctx.out(JSON.stringify(await ctx.api.rotateSigningKey()));
    },
  },
  {
    name: 'keys list',
    usage: 'keys list',
    summary: 'token signing keys, one JSON line each',
    options: null,
    refusals: 'stderr',
    async run(ctx) {
      for (const k of await ctx.api.listSigningKeys()) ctx.out(JSON.stringify(k));
    },
  },
  {
    name: 'keys create-operator',
    usage: 'keys create-operator [--name NAME]',
    summary: 'an operator API key for the management API (printed once)',
    options: OPERATOR_OPTIONS,
    refusals: 'stderr',
    async run(ctx) {
      if (badOperatorArgs(ctx, 0, true)) return 2;
      const { key, operatorKey } = await ctx.api.createOperatorKey(str(ctx.values.name) ?? '');
      if (ctx.json) ctx.out(JSON.stringify({ key, operatorKey, notice: OPERATOR_KEY_NOTICE }));
      else for (const l of [`Created operator key ${operatorKey.id} "${operatorKey.name}".`, '', `  key: ${key}`, '', OPERATOR_KEY_NOTICE]) ctx.out(l);
    },
  },
  {
    name: 'keys list-operators',
    usage: 'keys list-operators',
    summary: 'operator API keys (never the keys themselves)',
    options: OPERATOR_OPTIONS,
    refusals: 'stderr',
    async run(ctx) {
      if (badOperatorArgs(ctx, 0, false)) return 2;
      const items = await ctx.api.listOperatorKeys();
      if (ctx.json) ctx.out(JSON.stringify(items));
      else if (items.length === 0) ctx.out('No operator keys.');
      else for (const l of operatorKeyTable(items)) ctx.out(l);
    },
  },
  {
    name: 'keys revoke-operator',
    usage: 'keys revoke-operator KEY_ID',
    summary: 'revoke an operator API key (refused from now on)',
    options: OPERATOR_OPTIONS,
    refusals: 'stderr',
    async run(ctx) {
      if (badOperatorArgs(ctx, 1, false)) return 2;
      const id = ctx.positionals[0];
      const k = await ctx.api.revokeOperatorKey(id);
      if (!k) {
        ctx.out(ctx.json ? JSON.stringify({ error: `operator key ${id} not found` }) : `error: operator key ${id} not found`);
        return 1;
      }
      ctx.out(ctx.json ? JSON.stringify(k) : `Operator key ${k.id} "${k.name}" revoked at ${k.revokedAt}; it is refused from now on.`);
    },
  },
];

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

function operatorKeyTable(items: OperatorKey[]): string[] {
  return table([
    ['ID', 'STATE', 'CREATED', 'LAST USED', 'NAME'],
    ...items.map((k) => [k.id, k.revokedAt ? 'revoked' : 'active', k.createdAt, k.lastUsedAt ?? '-', k.name]),
  ]);
}
