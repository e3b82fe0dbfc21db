// `docparse admin --url BASE_URL [--key dp_op_…] …`: the same commands, sent to a remote
// node's management API with an operator key (--key or DOCPARSE_OPERATOR_KEY), printing
// what the command prints against a local database. Most commands run runAdmin over the API
// (remote-store.ts); creating an app and rotating its secret print the secret the node made;
// usage, statement, mail and storage commands are mapped onto their endpoints (remote-commands.ts).
import { parseArgs } from 'node:util';
import type { OperatorKey } from '../tenancy/types.js';
import { adminUsage, appLines, runAdmin, SECRET_NOTICE, splitList } from './admin.js';
import type { CliOutput } from './forward-to-node.js';
import { printOperatorKeyResult, KEYS_USAGE, OPERATOR_KEYS_USAGE } from './keys.js';
import { ManageClient } from './manage-client.js';
import { remoteStore } from './remote-store.js';
import { MAPPED_COMMANDS, runMappedCommand } from './remote-commands.js';
import type { App, Plan, Tenant } from '../tenancy/types.js';

/** Commands runAdmin carries out over the API unchanged. */
const OVER_API = new Set([
  'tenant create', 'tenant activate', 'tenant deactivate', 'tenant list',
  'app enable', 'app disable', 'app set-domains', 'app assign-plan', 'app list',
  'plan create', 'plan retire', 'plan list',
]);
export const REMOTE_COMMANDS = [...OVER_API, ...MAPPED_COMMANDS, 'app create', 'app rotate-secret', 'keys rotate', 'keys list', 'keys create-operator', 'keys list-operators', 'keys revoke-operator'];

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

type PublicApp = Omit<App, 'secretHash'>;
interface WithSecret { app: PublicApp; clientId: string; clientSecret: string; notice: string }

export async function runRemoteAdmin(argv: string[], baseUrl: string, key: string, io: CliOutput): Promise<number> {
  const json = argv.includes('--json');
  const words = argv.filter((a) => !a.startsWith('-'));
  const command = `${words[0] ?? ''} ${words[1] ?? ''}`.trim();
  const client = new ManageClient(baseUrl, key);
  const fail = (message: string, code: number, usage?: string) => {
    if (json) io.out(JSON.stringify(usage ? { error: message, usage } : { error: message }));
    else {
      io.out(`error: ${message}`);
      if (usage) io.out(`usage: ${usage}`);
    }
    return code;
  };
  try {
    if (OVER_API.has(command) || words.length === 0 || ['help', '--help', '-h'].includes(argv[0])) return await runAdmin(argv, remoteStore(client), io.out);
    if (command === 'app create' || command === 'app rotate-secret') return await appWithSecret(command, argv, client, io, fail);
    if (words[0] === 'keys') return await keys(words[1], argv, client, io, json);
    const mapped = words[0] === 'usage' || words[0] === 'statement' ? words[0] : words[0] === 'storage' ? `storage ${words[1] ?? ''}`.trim() : command;
    if (MAPPED_COMMANDS.includes(mapped) || words[0] === 'storage') return await runMappedCommand(mapped, argv, { client, baseUrl, key, io, fail, usage: usageOf });
    // Every command is mapped: what is left is unknown, and runAdmin says so as it does locally.
    return await runAdmin(argv, remoteStore(client), io.out);
  } catch (err) {
    return fail((err as Error).message, 1);
  }
}

function usageOf(command: string): string {
  const line = adminUsage().find((l) => l.startsWith(`  ${command} `) || l === `  ${command}`);
  return `docparse admin ${(line ?? command).trim()}`;
}

async function appWithSecret(command: 'app create' | 'app rotate-secret', argv: string[], client: ManageClient, io: CliOutput, fail: (m: string, c: number, u?: string) => number): Promise<number> {
  const usage = usageOf(command);
  let values: Record<string, string | boolean | undefined>;
  let positionals: string[];
  try {
    const parsed = parseArgs({
      args: argv.slice(2),
      options: { tenant: { type: 'string' }, name: { type: 'string' }, region: { type: 'string' }, 'db-code': { type: 'string' }, domains: { type: 'string' }, plan: { type: 'string' }, json: { type: 'boolean' } },
      allowPositionals: true,
      strict: true,
    });
    values = parsed.values;
    positionals = parsed.positionals;
  } catch (err) {
    return fail((err as Error).message, 2, usage);
  }
  const json = values.json === true;
  const print = (answer: WithSecret, heading: string) => {
    if (json) return io.out(JSON.stringify(answer));
    const app = { ...answer.app, secretHash: '' } as App;
    for (const l of [heading, ...appLines(app), '', `  client id:     ${answer.clientId}`, `  client secret: ${answer.clientSecret}`, '', SECRET_NOTICE]) io.out(l);
  };
  if (command === 'app rotate-secret') {
    if (positionals.length !== 1) return fail(`expected 1 argument(s), got ${positionals.length}`, 2, usage);
    const appId = positionals[0];
    const answer = await client.call<WithSecret>('POST', `/apps/${encodeURIComponent(appId)}/rotate-secret`, undefined, ['app', appId]);
    print(answer, 'Client secret rotated; the previous secret no longer works.');
    return 0;
  }
  if (positionals.length !== 0) return fail(`expected 0 argument(s), got ${positionals.length}`, 2, usage);
  const required = (name: string) => {
    const v = values[name];
    if (typeof v !== 'string' || v.trim() === '') throw Object.assign(new Error(`--${name} is required`), { usage: true });
    return v.trim();
  };
  let body: Record<string, unknown>;
  let tenantId: string;
  try {
    tenantId = required('tenant');
    body = { name: required('name'), licenseRegion: required('region'), dbCode: required('db-code'), allowedDomains: splitList(typeof values.domains === 'string' ? values.domains : '') };
  } catch (err) {
    return fail((err as Error).message, 2, usage);
  }
  const tenant = await client.call<Tenant>('GET', `/tenants/${encodeURIComponent(tenantId)}`, undefined, ['tenant', tenantId]);
  const planRef = typeof values.plan === 'string' ? values.plan : undefined;
  if (planRef !== undefined && planRef !== 'none') body.planId = (await usablePlan(client, planRef)).id;
  const answer = await client.call<WithSecret>('POST', `/tenants/${encodeURIComponent(tenant.id)}/apps`, body, ['tenant', tenant.id]);
  print(answer, 'Created app.');
  if (!json && tenant.state !== 'Active') io.out(`Note: tenant ${tenant.id} is ${tenant.state}; tokens are refused until it is activated.`);
  return 0;
}

/** A plan by id, or by name when exactly one usable plan has it (as the local command resolves it). */
async function usablePlan(client: ManageClient, ref: string): Promise<Plan> {
  const store = remoteStore(client);
  let plan = await store.getPlan(ref);
  if (!plan) {
    const named = (await store.listPlans()).filter((p) => p.name === ref && p.status === 'usable');
    if (named.length > 1) throw new Error(`several usable plans are named "${ref}"; give the plan id`);
    if (named.length === 0) throw new Error(`plan ${ref} not found`);
    plan = named[0];
  }
  if (plan.status !== 'usable') throw new Error(`plan ${plan.id} "${plan.name}" is retired; apps on a retired plan cannot get tokens`);
  return plan;
}

async function keys(action: string | undefined, argv: string[], client: ManageClient, io: CliOutput, json: boolean): Promise<number> {
  if (action === 'rotate') {
    io.out(JSON.stringify(await client.call('POST', '/signing-keys/rotate')));
    return 0;
  }
  if (action === 'list') {
    for (const k of (await client.call<{ items: unknown[] }>('GET', '/signing-keys')).items) io.out(JSON.stringify(k));
    return 0;
  }
  if (action === 'create-operator' || action === 'list-operators' || action === 'revoke-operator') {
    const { values, positionals } = parseArgs({ args: argv.slice(2), options: { name: { type: 'string' }, json: { type: 'boolean' } }, allowPositionals: true, strict: true });
    if (positionals.length !== (action === 'revoke-operator' ? 1 : 0) || (values.name !== undefined && action !== 'create-operator')) {
      io.err(OPERATOR_KEYS_USAGE);
      return 2;
    }
    if (action === 'create-operator') {
      const r = await client.call<{ key: string; operatorKey: OperatorKey }>('POST', '/operator-keys', { name: values.name ?? '' });
      printOperatorKeyResult(action, r, json, io.out);
    } else if (action === 'list-operators') {
      printOperatorKeyResult(action, await client.call<{ items: OperatorKey[] }>('GET', '/operator-keys'), json, io.out);
    } else {
      const id = positionals[0];
      try {
        printOperatorKeyResult(action, { operatorKey: await client.call<OperatorKey>('POST', `/operator-keys/${encodeURIComponent(id)}/revoke`) }, json, io.out);
      } catch (err) {
        if ((err as { status?: number }).status !== 404) throw err;
        io.out(json ? JSON.stringify({ error: `operator key ${id} not found` }) : `error: operator key ${id} not found`);
        return 1;
      }
    }
    return 0;
  }
  io.err(KEYS_USAGE);
  return 2;
}
