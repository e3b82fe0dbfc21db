// `docparse admin keys …`: token signing keys (rotate, list) over a loaded key ring, and
// operator API keys (create-operator, list-operators, revoke-operator) for the management API.
import { parseArgs } from 'node:util';
import type { KeyRing } from '../identity/keyring.js';
import { listSigningKeys, rotateSigningKey } from '../identity/admin-keys.js';
import type { OperatorKeysStore } from '../tenancy/operator-keys-store.js';
import type { OperatorKey } from '../tenancy/types.js';

type Out = (line: string) => void;

export const OPERATOR_KEY_NOTICE = 'Store the operator key now: it will not be shown again.';
/** For an unknown `keys` action (the operator-key commands are listed by `docparse admin help`). */
export const KEYS_USAGE = 'usage: docparse admin keys rotate|list';
export const OPERATOR_KEYS_USAGE = 'usage: docparse admin keys create-operator [--name NAME] | list-operators | revoke-operator KEY_ID';

/** The key-ring commands (they need the signing keys loaded). */
export const isSigningKeyCommand = (args: string[]) => args[0] === 'keys' && (args[1] === 'rotate' || args[1] === 'list');

export async function runKeysAdmin(argv: string[], keyring: () => Promise<KeyRing>, operatorKeys: OperatorKeysStore, out: Out, err: Out): Promise<number> {
  const action = argv[1];
  // Signing keys: output is JSON lines either way, so --json changes nothing.
  if (action === 'rotate') {
    out(JSON.stringify(await rotateSigningKey(await keyring())));
    return 0;
  }
  if (action === 'list') {
    for (const k of await listSigningKeys(await keyring())) out(JSON.stringify(k));
    return 0;
  }
  if (action === 'create-operator' || action === 'list-operators' || action === 'revoke-operator') {
    const { values, positionals } = parseArgs({
      args: argv.slice(2),
      options: { name: { type: 'string' }, json: { type: 'boolean', default: false } },
      allowPositionals: true,
      strict: true,
    });
    const expected = action === 'revoke-operator' ? 1 : 0;
    if (positionals.length !== expected || (values.name !== undefined && action !== 'create-operator')) {
      err(OPERATOR_KEYS_USAGE);
      return 2;
    }
    return runOperatorKeyCommand(action, { name: values.name, id: positionals[0], json: values.json === true }, operatorKeys, out);
  }
  err(KEYS_USAGE);
  return 2;
}

/** The answer of an operator-key command, printed the same wherever it ran. */
export function printOperatorKeyResult(
  action: 'create-operator' | 'list-operators' | 'revoke-operator',
  result: { key?: string; operatorKey?: OperatorKey; items?: OperatorKey[] },
  json: boolean,
  out: Out,
): void {
  if (action === 'create-operator') {
    const { key, operatorKey } = result as { key: string; operatorKey: OperatorKey };
    if (json) out(JSON.stringify({ key, operatorKey, notice: OPERATOR_KEY_NOTICE }));
    else for (const l of [`Created operator key ${operatorKey.id} "${operatorKey.name}".`, '', `  key: ${key}`, '', OPERATOR_KEY_NOTICE]) out(l);
    return;
  }
  if (action === 'revoke-operator') {
    const k = result.operatorKey!;
    out(json ? JSON.stringify(k) : `Operator key ${k.id} "${k.name}" revoked at ${k.revokedAt}; it is refused from now on.`);
    return;
  }
  const items = result.items ?? [];
  if (json) out(JSON.stringify(items));
  else if (items.length === 0) out('No operator keys.');
  else {
    const rows = [['ID', 'STATE', 'CREATED', 'LAST USED', 'NAME'], ...items.map((k) => [k.id, k.revokedAt ? 'revoked' : 'active', k.createdAt, k.lastUsedAt ?? '-', k.name])];
    const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
    for (const r of rows) out(r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  '));
  }
}

async function runOperatorKeyCommand(
  action: 'create-operator' | 'list-operators' | 'revoke-operator',
  o: { name?: string; id?: string; json: boolean },
  store: OperatorKeysStore,
  out: Out,
): Promise<number> {
  if (action === 'create-operator') {
    const { key, record } = await store.create(o.name ?? '');
    printOperatorKeyResult(action, { key, operatorKey: record }, o.json, out);
    return 0;
  }
  if (action === 'list-operators') {
    printOperatorKeyResult(action, { items: await store.list() }, o.json, out);
    return 0;
  }
  const revoked = await store.revoke(o.id!);
  if (!revoked) {
    out(o.json ? JSON.stringify({ error: `operator key ${o.id} not found` }) : `error: operator key ${o.id} not found`);
    return 1;
  }
  printOperatorKeyResult(action, { operatorKey: revoked }, o.json, out);
  return 0;
}
