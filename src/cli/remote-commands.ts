// `docparse admin --url …`: usage, statement, mail list|show, storage create and
// app set-storage through the management API, printing what the local commands print
// (src/cli/admin.ts, src/cli/storage.ts) from the figures the node answers with.
import { parseArgs } from 'node:util';
import { statementLines, usageCsv, usageLinesCsv } from '../billing/render.js';
import type { MailView } from '../mail/view.js';
import type { Statement, TenantUsage } from '../tenancy/billing-store.js';
import { NotFoundError, type App, type Plan, type StorageConfig, type Tenant } from '../tenancy/types.js';
import type { UsageReport } from '../manage/api/usage-routes.js';
import type { CliOutput } from './forward-to-node.js';
import { ManageApiError, ManageUnreachableError, type ManageClient } from './manage-client.js';

export const MAPPED_COMMANDS = ['usage', 'statement', 'mail list', 'mail show', 'storage create', 'app set-storage'];

/** A mistake on the command line: exit code 2 with the command's usage. */
class UsageError extends Error {}

type Values = Record<string, string | boolean | undefined>;
type Fail = (message: string, code: number, usage?: string) => number;

interface Remote {
  client: ManageClient;
  baseUrl: string;
  key: string;
  io: CliOutput;
  fail: Fail;
  usage: (command: string) => string;
}

const enc = encodeURIComponent;
const str = (v: Values, name: string) => (typeof v[name] === 'string' ? (v[name] as string) : undefined);

function required(v: Values, name: string): string {
  const s = str(v, name);
  if (s === undefined || s.trim() === '') throw new UsageError(`--${name} is required`);
  return s.trim();
}

function monthOption(v: Values): string {
  const month = str(v, 'month') ?? new Date().toISOString().slice(0, 7);
  if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(month)) throw new UsageError(`--month: expected YYYY-MM, got "${month}"`);
  return month;
}

function parseCount(text: string, flag: string, min: number): number {
  const clean = text.replace(/[_,]/g, '');
  if (!/^\d+$/.test(clean)) throw new UsageError(`${flag}: "${text}" is not a whole number`);
  const n = Number(clean);
  if (!Number.isSafeInteger(n) || n < min) throw new UsageError(`${flag}: must be at least ${min}, got ${text}`);
  return n;
}

function table(rows: string[][]): string[] {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  '));
}

/** A text answer (CSV) of the management API; refusals as ManageClient reports them. */
async function getText(r: Remote, path: string, notFound?: [string, string]): Promise<string> {
  const base = r.baseUrl.replace(/\/+$/, '');
  let res: Response;
  try {
    res = await fetch(`${base}/manage/v1${path}`, { headers: { authorization: `Bearer ${r.key}`, accept: 'text/csv' }, signal: AbortSignal.timeout(120_000) });
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message;
    throw new ManageUnreachableError(`the node at ${base} does not answer (${cause})`);
  }
  const text = await res.text();
  if (res.ok) return text;
  let problem: { code?: string; detail?: string; title?: string } = {};
  try {
    problem = JSON.parse(text);
  } catch {
    // not a problem document
  }
  if (res.status === 404 && notFound) throw new NotFoundError(notFound[0], notFound[1]);
  if (res.status === 401) throw new ManageApiError(401, problem.code ?? 'unauthorized', `the node at ${base} refused the operator key (${problem.detail ?? problem.code})`);
  throw new ManageApiError(res.status, problem.code ?? 'error', problem.detail ?? problem.title ?? `HTTP ${res.status}`);
}

function emit(r: Remote, json: boolean, value: unknown, human: string[]): void {
  if (json) r.io.out(JSON.stringify(value));
  else for (const line of human) r.io.out(line);
}

function emitCsv(r: Remote, json: boolean, text: string): void {
  if (json) throw new UsageError('--csv and --json exclude each other');
  for (const line of text.replace(/\r\n$/, '').split('\r\n')) r.io.out(line);
}

/** Runs one of MAPPED_COMMANDS; returns the exit code as the local command would. */
export async function runMappedCommand(command: string, argv: string[], r: Remote): Promise<number> {
  if (command.startsWith('storage') || command === 'app set-storage') return storage(command, argv, r);
  const spec: Record<string, { options: Record<string, { type: 'string' | 'boolean' }>; positionals: number }> = {
    usage: { options: { app: { type: 'string' }, tenant: { type: 'string' }, month: { type: 'string' }, csv: { type: 'boolean' }, 'by-day': { type: 'boolean' } }, positionals: 0 },
    statement: { options: { tenant: { type: 'string' }, month: { type: 'string' }, csv: { type: 'boolean' } }, positionals: 0 },
    'mail list': { options: { pending: { type: 'boolean' }, tenant: { type: 'string' }, limit: { type: 'string' } }, positionals: 0 },
    'mail show': { options: {}, positionals: 1 },
  };
  const s = spec[command];
  const usage = r.usage(command);
  let args = [...argv];
  while (args[0] === '--json') args = args.slice(1);
  let values: Values;
  let positionals: string[];
  try {
    const parsed = parseArgs({ args: args.slice(command.split(' ').length), options: { ...s.options, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true });
    values = parsed.values as Values;
    positionals = parsed.positionals;
  } catch (err) {
    return r.fail((err as Error).message, 2, usage);
  }
  const json = argv[0] === '--json' || values.json === true;
  if (values.help === true) {
    r.io.out(`usage: ${usage}`);
    return 0;
  }
  if (positionals.length !== s.positionals) return r.fail(`expected ${s.positionals} argument(s), got ${positionals.length}`, 2, usage);
  try {
    if (command === 'usage') await usageCommand(r, values, json);
    else if (command === 'statement') await statement(r, values, json);
    else if (command === 'mail list') await mailList(r, values, json);
    else await mailShow(r, positionals[0], json);
    return 0;
  } catch (err) {
    if (err instanceof UsageError) return r.fail(err.message, 2, usage);
    return r.fail((err as Error).message, 1);
  }
}

async function usageCommand(r: Remote, v: Values, json: boolean): Promise<void> {
  const appId = str(v, 'app');
  const tenantId = str(v, 'tenant');
  if ((appId === undefined) === (tenantId === undefined)) throw new UsageError('give --app or --tenant (one of them)');
  const month = monthOption(v);
  const byDay = v['by-day'] === true;
  if (tenantId !== undefined) {
    await r.client.call<Tenant>('GET', `/tenants/${enc(tenantId)}`, undefined, ['tenant', tenantId]);
    const figures = (granularity: string) =>
      r.client.call<TenantUsage>('GET', `/tenants/${enc(tenantId)}/usage/by-family?month=${month}&granularity=${granularity}`, undefined, ['tenant', tenantId]);
    if (v.csv === true) {
      if (json) throw new UsageError('--csv and --json exclude each other');
      emitCsv(r, json, byDay ? usageCsv(await figures('day')) : await getText(r, `/tenants/${enc(tenantId)}/usage.csv?month=${month}`, ['tenant', tenantId]));
      return;
    }
    const u = await figures(byDay ? 'day' : 'month');
    emit(r, json, u, [
      `Tenant ${tenantId} used ${u.totals.units} Document Units in ${month} (${u.totals.documents} documents).`,
      ...u.quotas.map(
        (q) => `  app ${q.appId}${q.appName === null ? ' (deleted)' : ` "${q.appName}"`}: ${q.unitsCharged}` + (q.plan ? ` of ${q.plan.quota} (${q.remaining} remaining)` : ' (no plan)'),
      ),
      ...(u.items.length ? ['', ...table([['DAY', 'APP', 'FAMILY', 'UNITS', 'DOCUMENTS'], ...u.items.map((f) => [f.day ?? month, f.appId, f.family, String(f.units), String(f.documents)])])] : []),
    ]);
    return;
  }
  const app = await r.client.call<App>('GET', `/apps/${enc(appId!)}`, undefined, ['app', appId!]);
  if (v.csv === true) {
    if (json) throw new UsageError('--csv and --json exclude each other');
    // The tenant's usage lines, this app's only (app_id is the fifth field; the four before it never hold a comma).
    const lines = (await getText(r, `/tenants/${enc(app.tenantId)}/usage.csv?month=${month}`, ['app', app.id])).replace(/\r\n$/, '').split('\r\n');
    const mine = lines.slice(1).filter((l) => l.split(',')[4] === app.id);
    emitCsv(r, json, mine.length ? [lines[0], ...mine].join('\r\n') + '\r\n' : usageLinesCsv([]));
    return;
  }
  const u = await r.client.call<UsageReport>('GET', `/apps/${enc(app.id)}/usage?month=${month}`, undefined, ['app', app.id]);
  const plan = u.planId ? await r.client.call<Plan>('GET', `/plans/${enc(u.planId)}`, undefined, ['plan', u.planId]) : null;
  const remaining = u.quota === null ? null : Math.max(0, u.quota - u.unitsUsed);
  emit(r, json, { appId: u.appId, tenantId: u.tenantId, month: u.month, unitsUsed: u.unitsUsed, quota: u.quota, planId: u.planId, documents: u.documents, byFormat: u.byFormat }, [
    `App ${app.id} used ${u.unitsUsed} Document Units in ${month}` + (u.quota === null ? ' (no plan assigned).' : ` of ${u.quota} (plan "${plan!.name}"); ${remaining} remaining.`),
    `  documents:    ${u.documents}`,
    ...Object.entries(u.byFormat)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([format, units]) => `  ${format.padEnd(12)}  ${units}`),
  ]);
}

async function statement(r: Remote, v: Values, json: boolean): Promise<void> {
  const tenantId = required(v, 'tenant');
  const month = monthOption(v);
  const path = `/tenants/${enc(tenantId)}/statements/${month}`;
  if (v.csv === true) {
    const text = await getText(r, `${path}?format=csv`, ['tenant', tenantId]);
    emitCsv(r, json, text);
    return;
  }
  const s = await r.client.call<Statement>('GET', path, undefined, ['tenant', tenantId]);
  emit(r, json, s, statementLines(s));
}

function mailStatus(m: Omit<MailView, 'text' | 'html'>): string {
  if (m.status === 'sent') return `sent ${m.sentAt}`;
  if (m.status === 'kept') return 'kept (no DOCPARSE_SMTP_URL)';
  return m.attempts === 0 ? 'queued' : `retrying (${m.attempts} attempt${m.attempts === 1 ? '' : 's'}, next ${m.nextAttemptAt})`;
}

async function mailList(r: Remote, v: Values, json: boolean): Promise<void> {
  const limit = parseCount(str(v, 'limit') ?? '50', '--limit', 1);
  const q = new URLSearchParams({ limit: String(Math.min(limit, 1000)) });
  if (v.pending === true) q.set('pending', 'true');
  const tenant = str(v, 'tenant');
  if (tenant !== undefined) q.set('tenantId', tenant);
  const views = (await r.client.call<{ items: Omit<MailView, 'text' | 'html'>[] }>('GET', `/mail?${q}`)).items;
  emit(
    r,
    json,
    views,
    views.length === 0
      ? ['No e-mails.']
      : table([['ID', 'CREATED', 'STATUS', 'TO', 'SUBJECT'], ...views.map((m) => [m.id, m.createdAt, mailStatus(m), m.to.join(', '), m.subject ?? `(${m.problem})`])]),
  );
}

async function mailShow(r: Remote, id: string, json: boolean): Promise<void> {
  const v = await r.client.call<MailView>('GET', `/mail/${enc(id)}`, undefined, ['e-mail', id]);
  emit(r, json, v, [
    `E-mail ${v.id} (${v.template})`,
    `  status:       ${mailStatus(v)}`,
    ...(v.lastError ? [`  last error:   ${v.lastError}`] : []),
    `  from:         ${v.from}`,
    `  to:           ${v.to.join(', ')}`,
    `  subject:      ${v.subject ?? `(${v.problem})`}`,
    '',
    ...(v.text ?? '').replace(/\n$/, '').split('\n'),
  ]);
}

const PROVIDERS = ['s3', 'minio', 'r2', 'wasabi', 'gcs-s3', 'other-s3'];
const STORAGE_USAGE =
  'usage: docparse admin storage create --tenant T --bucket B --access-key-id K --secret-access-key S [--endpoint URL] [--region R] [--prefix P] [--provider s3|minio|r2|…] [--path-style] [--no-verify]\n       docparse admin app set-storage <app-id> <storage-config-id|none>';

const isNotFound = (err: unknown) => err instanceof NotFoundError || (err as { status?: number }).status === 404;

/** As src/cli/storage.ts prints it (its refusals without "error: ", bad options on stderr). */
async function storage(command: string, argv: string[], r: Remote): Promise<number> {
  const out = r.io.out;
  const rest = argv.slice(2);
  try {
    if (command === 'storage create') {
      let values: Values;
      try {
        values = parseArgs({
          args: rest,
          options: {
            tenant: { type: 'string' }, provider: { type: 'string', default: 's3' }, endpoint: { type: 'string' },
            region: { type: 'string', default: 'us-east-1' }, bucket: { type: 'string' }, prefix: { type: 'string', default: '' },
            'access-key-id': { type: 'string' }, 'secret-access-key': { type: 'string' }, 'path-style': { type: 'boolean', default: false },
            'no-verify': { type: 'boolean', default: false }, json: { type: 'boolean', default: false },
          },
          strict: true,
        }).values as Values;
      } catch (err) {
        r.io.err(`error: ${(err as Error).message}`);
        return 2;
      }
      const missing = ['tenant', 'bucket', 'access-key-id', 'secret-access-key'].filter((k) => !values[k]);
      if (missing.length) {
        out(`storage create: missing ${missing.map((m) => `--${m}`).join(', ')}`);
        return 2;
      }
      if (!PROVIDERS.includes(values.provider as string)) {
        out(`storage create: --provider must be one of ${PROVIDERS.join(', ')}`);
        return 2;
      }
      const tenantId = values.tenant as string;
      try {
        await r.client.call<Tenant>('GET', `/tenants/${enc(tenantId)}`);
      } catch (err) {
        if (!isNotFound(err)) throw err;
        out(`tenant ${tenantId} not found`);
        return 1;
      }
      const body = {
        provider: values.provider, ...(values.endpoint !== undefined ? { endpoint: values.endpoint } : {}), region: values.region, bucket: values.bucket,
        prefix: values.prefix, accessKeyId: values['access-key-id'], secretAccessKey: values['secret-access-key'], forcePathStyle: values['path-style'],
      };
      const path = `/tenants/${enc(tenantId)}/storage-configs`;
      let cfg: Omit<StorageConfig, 'secretAccessKeySealed'>;
      if (values['no-verify']) cfg = await r.client.call('POST', path, { ...body, verify: false });
      else {
        try {
          cfg = await r.client.call('POST', path, { ...body, verify: true });
        } catch (err) {
          if (!(err instanceof ManageApiError && err.code === 'storage_unreachable')) throw err;
          // As the local command: saved anyway, with a warning (operators may skip the check).
          out(`warning: bucket ${values.bucket} is not reachable with these credentials (${err.message.replace(/; nothing was saved\.$/, '')})`);
          cfg = await r.client.call('POST', path, { ...body, verify: false });
        }
      }
      out(values.json ? JSON.stringify(cfg) : `storage config ${cfg.id} (${cfg.provider} ${cfg.endpoint ?? 'aws'} bucket ${cfg.bucket})`);
      return 0;
    }
    if (command !== 'app set-storage') {
      out(STORAGE_USAGE);
      return 2;
    }
    const [appId, configId] = rest.filter((a) => !a.startsWith('--'));
    if (!appId || !configId) {
      out('usage: docparse admin app set-storage <app-id> <storage-config-id|none>');
      return 2;
    }
    let app: App;
    try {
      app = await r.client.call<App>('GET', `/apps/${enc(appId)}`);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      out(`app ${appId} not found`);
      return 1;
    }
    if (configId !== 'none') {
      const cfg = await r.client.call<StorageConfig>('GET', `/storage-configs/${enc(configId)}`).catch((err) => (isNotFound(err) ? null : Promise.reject(err)));
      if (!cfg || cfg.tenantId !== app.tenantId) {
        out(`storage config ${configId} not found for the app's tenant`);
        return 1;
      }
    }
    const updated = await r.client.call<App>('PATCH', `/apps/${enc(appId)}`, { storageConfigId: configId === 'none' ? null : configId });
    out(rest.includes('--json') ? JSON.stringify({ appId: updated.id, storageConfigId: updated.storageConfigId }) : `app ${updated.id} now stores documents in ${updated.storageConfigId ?? 'the node storage'}`);
    return 0;
  } catch (err) {
    r.io.err(`error: ${(err as Error).message}`);
    return 1;
  }
}
