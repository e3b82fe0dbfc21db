// Operator commands for the control plane (`docparse admin …`): tenants, apps, plans, usage.
// Pure logic over a ControlPlaneStore and an output sink, so it runs the same from the real
// CLI and from tests. Exit codes: 0 ok, 1 the operation failed, 2 bad command line.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { generateClientId, generateClientSecret, hashSecret } from '../identity/secrets.js';
import { NotFoundError, type App, type ControlPlaneStore, type Plan, type Tenant } from '../tenancy/types.js';
import { OutboxStore, type OutboxMail } from '../mail/outbox-store.js';
import type { MailSettings } from '../mail/settings.js';
import { mailView } from '../mail/view.js';
import { BillingStore } from '../tenancy/billing-store.js';
import { SqlControlPlaneStore } from '../tenancy/sql-store.js';
import type { SqlClient } from '../tenancy/sql.js';
import { currentMonth } from '../tenancy/month.js';
import { statementCsv, statementLines, usageCsv, usageLinesCsv } from '../billing/render.js';

type Out = (line: string) => void;
type Options = NonNullable<ParseArgsConfig['options']>;
type Values = Record<string, string | boolean | undefined>;

interface Ctx {
  store: ControlPlaneStore;
  /** How e-mails are rendered and whether they are sent (mail commands). */
  mail(): MailSettings;
  out: Out;
  json: boolean;
  values: Values;
  positionals: string[];
}

interface Command {
  usage: string;
  summary: string;
  options: Options;
  /** Exact number of positional arguments. */
  positionals: number;
  run(ctx: Ctx): Promise<void>;
}

/** A mistake on the command line: exit code 2. */
class UsageError extends Error {}

export const SECRET_NOTICE = 'Store the client secret now: it will not be shown again.';

const DEFAULT_MAX_FILE_SIZE = '256MiB';
const DEFAULT_MAX_CONCURRENT = 8;
const DEFAULT_MAX_BYTES_PER_SECOND = '64MiB';

// ------------------------------------------------------------------ parsing helpers

const SIZE_UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  tb: 1e12,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
  tib: 1024 ** 4,
};

/** "1048576", "10MB" (10^6), "2GiB" (2^30), "1.5 GB", "64MiB/s" → bytes. */
export function parseByteSize(text: string, flag: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*(?:\/s)?\s*$/i.exec(text);
  const unit = m ? SIZE_UNITS[m[2].toLowerCase()] : undefined;
  if (!m || unit === undefined) {
    throw new UsageError(`${flag}: "${text}" is not a size; use bytes or a suffix like 10MB, 500MiB, 2GiB`);
  }
  const bytes = Math.round(Number(m[1]) * unit);
  if (!Number.isSafeInteger(bytes) || bytes <= 0) throw new UsageError(`${flag}: must be a positive size, got "${text}"`);
  return bytes;
}

function parseCount(text: string, flag: string, min: number): number {
  const clean = text.replace(/[_,]/g, '');
  if (!/^\d+$/.test(clean)) throw new UsageError(`${flag}: "${text}" is not a whole number`);
  const n = Number(clean);
  if (!Number.isSafeInteger(n) || n < min) throw new UsageError(`${flag}: must be at least ${min}, got ${text}`);
  return n;
}

export function splitList(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

function str(values: Values, name: string): string | undefined {
  const v = values[name];
  return typeof v === 'string' ? v : undefined;
}

function required(values: Values, name: string): string {
  const v = str(values, name);
  if (v === undefined || v.trim() === '') throw new UsageError(`--${name} is required`);
  return v.trim();
}

function monthOption(values: Values): string {
  const month = str(values, 'month') ?? currentMonth();
  if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(month)) throw new UsageError(`--month: expected YYYY-MM, got "${month}"`);
  return month;
}

/** The SQL connection behind the store (billing and the outbox query it directly). */
function sqlOf(store: ControlPlaneStore): SqlClient {
  if (store instanceof SqlControlPlaneStore) return store.db;
  throw new Error('this command needs the SQL control plane');
}

/** Prints a CSV document line by line (the terminal ends lines with LF). */
function emitCsv(ctx: Ctx, text: string): void {
  if (ctx.json) throw new UsageError('--csv and --json exclude each other');
  for (const line of text.replace(/\r\n$/, '').split('\r\n')) ctx.out(line);
}

// ------------------------------------------------------------------ presentation

function emit(ctx: Ctx, value: unknown, human: string[]): void {
  if (ctx.json) ctx.out(JSON.stringify(value));
  else for (const line of human) ctx.out(line);
}

/** An app as shown to operators: never the secret hash. */
function publicApp(app: App): Omit<App, 'secretHash'> {
  const { secretHash: _omit, ...rest } = app;
  return rest;
}

function tenantLines(t: Tenant): string[] {
  return [
    `Tenant ${t.id} "${t.name}"`,
    `  state:        ${t.state}`,
    `  contact:      ${t.contactEmail ?? '-'}`,
    `  created:      ${t.createdAt}`,
    `  activated:    ${t.activatedAt ?? '-'}`,
  ];
}

export function appLines(a: App): string[] {
  return [
    `App ${a.id} "${a.name}"`,
    `  tenant:       ${a.tenantId}`,
    `  client id:    ${a.clientId}`,
    `  region:       ${a.licenseRegion ?? '-'}`,
    `  db code:      ${a.dbCode ?? '-'}`,
    `  domains:      ${a.allowedDomains.length ? a.allowedDomains.join(', ') : '-'}`,
    `  plan:         ${a.planId ?? 'none'}`,
    `  enabled:      ${a.enabled ? 'yes' : 'no'}`,
  ];
}

function planLines(p: Plan): string[] {
  return [
    `Plan ${p.id} "${p.name}" (${p.status})`,
    `  units/month:  ${p.maxDocumentUnitsPerMonth}`,
    `  advanced PDF: ${p.advancedPdfExtraction ? 'yes' : 'no'}`,
    `  OCR PDF:      ${p.ocrPdfExtraction ? 'yes' : 'no'}`,
    `  max file:     ${p.maxFileSizeBytes} bytes`,
    `  concurrency:  ${p.maxConcurrentJobs} jobs`,
    `  upload rate:  ${p.maxBytesPerSecond} bytes/s`,
  ];
}

function table(rows: string[][]): string[] {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  '));
}

function mailStatus(m: OutboxMail, settings: MailSettings): string {
  if (m.sentAt) return `sent ${m.sentAt}`;
  if (!settings.smtpUrl) return 'kept (no DOCPARSE_SMTP_URL)';
  return m.attempts === 0 ? 'queued' : `retrying (${m.attempts} attempt${m.attempts === 1 ? '' : 's'}, next ${m.nextAttemptAt})`;
}

// ------------------------------------------------------------------ lookups

async function mustTenant(store: ControlPlaneStore, id: string): Promise<Tenant> {
  const t = await store.getTenant(id);
  if (!t) throw new NotFoundError('tenant', id);
  return t;
}

async function mustApp(store: ControlPlaneStore, id: string): Promise<App> {
  const a = await store.getApp(id);
  if (!a) throw new NotFoundError('app', id);
  return a;
}

/** A plan by id, or by name when exactly one usable plan has that name. */
async function resolvePlan(store: ControlPlaneStore, ref: string): Promise<Plan> {
  const byId = await store.getPlan(ref);
  if (byId) return byId;
  const named = (await store.listPlans()).filter((p) => p.name === ref && p.status === 'usable');
  if (named.length === 1) return named[0];
  if (named.length > 1) throw new Error(`several usable plans are named "${ref}"; give the plan id`);
  throw new NotFoundError('plan', ref);
}

async function usablePlan(store: ControlPlaneStore, ref: string): Promise<Plan> {
  const plan = await resolvePlan(store, ref);
  if (plan.status !== 'usable') {
    throw new Error(`plan ${plan.id} "${plan.name}" is retired; apps on a retired plan cannot get tokens`);
  }
  return plan;
}

async function newCredentials(): Promise<{ clientId: string; clientSecret: string; secretHash: string }> {
  const clientSecret = generateClientSecret();
  return { clientId: generateClientId(), clientSecret, secretHash: await hashSecret(clientSecret) };
}

function emitCredentials(ctx: Ctx, app: App, clientSecret: string, heading: string): void {
  emit(ctx, { app: publicApp(app), clientId: app.clientId, clientSecret, notice: SECRET_NOTICE }, [
    heading,
    ...appLines(app),
    '',
    `  client id:     ${app.clientId}`,
    `  client secret: ${clientSecret}`,
    '',
    SECRET_NOTICE,
  ]);
}

// ------------------------------------------------------------------ commands

const JSON_OPTION = { json: { type: 'boolean' } } as const;

const commands: Record<string, Command> = {
  'tenant create': {
    usage: 'tenant create --name NAME [--email EMAIL]',
    summary: 'create a tenant (starts as Pending Activation)',
    options: { name: { type: 'string' }, email: { type: 'string' } },
    positionals: 0,
    async run(ctx) {
      const t = await ctx.store.createTenant({ name: required(ctx.values, 'name'), contactEmail: str(ctx.values, 'email') ?? null });
      emit(ctx, t, ['Created tenant.', ...tenantLines(t)]);
    },
  },
  'tenant activate': {
    usage: 'tenant activate TENANT_ID',
    summary: 'activate a tenant (its apps can get tokens)',
    options: {},
    positionals: 1,
    async run(ctx) {
      const t = await ctx.store.setTenantState(ctx.positionals[0], 'Active');
      emit(ctx, t, ['Tenant is active.', ...tenantLines(t)]);
    },
  },
  'tenant deactivate': {
    usage: 'tenant deactivate TENANT_ID',
    summary: 'deactivate a tenant (its apps can no longer get tokens)',
    options: {},
    positionals: 1,
    async run(ctx) {
      const t = await ctx.store.setTenantState(ctx.positionals[0], 'Deactivated');
      emit(ctx, t, ['Tenant is deactivated; its apps can no longer get tokens.', ...tenantLines(t)]);
    },
  },
  'tenant list': {
    usage: 'tenant list',
    summary: 'list tenants',
    options: {},
    positionals: 0,
    async run(ctx) {
      const list = await ctx.store.listTenants();
      emit(
        ctx,
        list,
        list.length === 0
          ? ['No tenants.']
          : table([['ID', 'STATE', 'NAME', 'EMAIL'], ...list.map((t) => [t.id, t.state, t.name, t.contactEmail ?? '-'])]),
      );
    },
  },

  'app create': {
    usage: 'app create --tenant TENANT_ID --name NAME --region REGION --db-code CODE [--domains a,b,c] [--plan PLAN]',
    summary: 'create an app and print its client credentials once',
    options: {
      tenant: { type: 'string' },
      name: { type: 'string' },
      region: { type: 'string' },
      'db-code': { type: 'string' },
      domains: { type: 'string' },
      plan: { type: 'string' },
    },
    positionals: 0,
    async run(ctx) {
      const tenantId = required(ctx.values, 'tenant');
      const name = required(ctx.values, 'name');
      const region = required(ctx.values, 'region');
      const dbCode = required(ctx.values, 'db-code');
      const domains = splitList(str(ctx.values, 'domains') ?? '');
      const tenant = await mustTenant(ctx.store, tenantId);
      const planRef = str(ctx.values, 'plan');
      const plan = planRef !== undefined && planRef !== 'none' ? await usablePlan(ctx.store, planRef) : null;
      const cred = await newCredentials();
      const app = await ctx.store.createApp({
        tenantId: tenant.id,
        name,
        licenseRegion: region,
        dbCode,
        clientId: cred.clientId,
        secretHash: cred.secretHash,
        allowedDomains: domains,
        planId: plan?.id ?? null,
        enabled: true,
      });
      emitCredentials(ctx, app, cred.clientSecret, 'Created app.');
      if (!ctx.json && tenant.state !== 'Active') {
        ctx.out(`Note: tenant ${tenant.id} is ${tenant.state}; tokens are refused until it is activated.`);
      }
    },
  },
  'app enable': {
    usage: 'app enable APP_ID',
    summary: 'enable an app',
    options: {},
    positionals: 1,
    async run(ctx) {
      const app = await ctx.store.setAppEnabled(ctx.positionals[0], true);
      emit(ctx, publicApp(app), ['App enabled.', ...appLines(app)]);
    },
  },
  'app disable': {
    usage: 'app disable APP_ID',
    summary: 'disable an app (no new tokens)',
    options: {},
    positionals: 1,
    async run(ctx) {
      const app = await ctx.store.setAppEnabled(ctx.positionals[0], false);
      emit(ctx, publicApp(app), ['App disabled; it can no longer get tokens.', ...appLines(app)]);
    },
  },
  'app set-domains': {
    usage: "app set-domains APP_ID a,b,c   (at most 3 host[:port] entries; '' clears)",
    summary: 'replace the allowed domains of an app',
    options: {},
    positionals: 2,
    async run(ctx) {
      const app = await ctx.store.setAppDomains(ctx.positionals[0], splitList(ctx.positionals[1]));
      emit(ctx, publicApp(app), ['Allowed domains updated.', ...appLines(app)]);
    },
  },
  'app assign-plan': {
    usage: 'app assign-plan APP_ID PLAN|none',
    summary: 'assign a usable plan to an app (by id or name), or remove it',
    options: {},
    positionals: 2,
    async run(ctx) {
      const [appId, ref] = ctx.positionals;
      await mustApp(ctx.store, appId);
      const plan = ref === 'none' ? null : await usablePlan(ctx.store, ref);
      const app = await ctx.store.assignPlan(appId, plan?.id ?? null);
      emit(ctx, publicApp(app), [plan ? `Plan "${plan.name}" assigned.` : 'Plan removed; the app gets basic extraction without entitlements.', ...appLines(app)]);
    },
  },
  'app rotate-secret': {
    usage: 'app rotate-secret APP_ID',
    summary: 'replace the client secret (the old one stops working now) and print the new one once',
    options: {},
    positionals: 1,
    async run(ctx) {
      const appId = ctx.positionals[0];
      await mustApp(ctx.store, appId);
      const secret = generateClientSecret();
      const app = await ctx.store.setAppSecretHash(appId, await hashSecret(secret));
      emitCredentials(ctx, app, secret, 'Client secret rotated; the previous secret no longer works.');
    },
  },
  'app list': {
    usage: 'app list [--tenant TENANT_ID]',
    summary: 'list apps',
    options: { tenant: { type: 'string' } },
    positionals: 0,
    async run(ctx) {
      const list = await ctx.store.listApps(str(ctx.values, 'tenant'));
      emit(
        ctx,
        list.map(publicApp),
        list.length === 0
          ? ['No apps.']
          : table([
              ['ID', 'TENANT', 'NAME', 'CLIENT ID', 'REGION', 'ENABLED', 'PLAN'],
              ...list.map((a) => [a.id, a.tenantId, a.name, a.clientId, a.licenseRegion ?? '-', a.enabled ? 'yes' : 'no', a.planId ?? 'none']),
            ]),
      );
    },
  },

  'plan create': {
    usage:
      'plan create --name NAME --units UNITS_PER_MONTH [--advanced] [--ocr] [--max-file-size SIZE] [--max-concurrent N] [--max-bytes-per-second SIZE]',
    summary: `create a usable plan (defaults: max file ${DEFAULT_MAX_FILE_SIZE}, ${DEFAULT_MAX_CONCURRENT} concurrent jobs, ${DEFAULT_MAX_BYTES_PER_SECOND}/s)`,
    options: {
      name: { type: 'string' },
      units: { type: 'string' },
      advanced: { type: 'boolean' },
      ocr: { type: 'boolean' },
      'max-file-size': { type: 'string' },
      'max-concurrent': { type: 'string' },
      'max-bytes-per-second': { type: 'string' },
    },
    positionals: 0,
    async run(ctx) {
      const v = ctx.values;
      const plan = await ctx.store.createPlan({
        name: required(v, 'name'),
        maxDocumentUnitsPerMonth: parseCount(required(v, 'units'), '--units', 0),
        advancedPdfExtraction: v.advanced === true,
        ocrPdfExtraction: v.ocr === true,
        maxFileSizeBytes: parseByteSize(str(v, 'max-file-size') ?? DEFAULT_MAX_FILE_SIZE, '--max-file-size'),
        maxConcurrentJobs: parseCount(str(v, 'max-concurrent') ?? String(DEFAULT_MAX_CONCURRENT), '--max-concurrent', 1),
        maxBytesPerSecond: parseByteSize(str(v, 'max-bytes-per-second') ?? DEFAULT_MAX_BYTES_PER_SECOND, '--max-bytes-per-second'),
      });
      emit(ctx, plan, ['Created plan.', ...planLines(plan)]);
    },
  },
  'plan retire': {
    usage: 'plan retire PLAN_ID',
    summary: 'retire a plan (apps on it can no longer get tokens)',
    options: {},
    positionals: 1,
    async run(ctx) {
      const plan = await ctx.store.retirePlan(ctx.positionals[0]);
      const onPlan = (await ctx.store.listApps()).filter((a) => a.planId === plan.id).length;
      emit(ctx, plan, [
        'Plan retired.',
        ...planLines(plan),
        onPlan > 0 ? `${onPlan} app(s) on this plan can no longer get tokens until given another plan.` : 'No app is on this plan.',
      ]);
    },
  },
  'plan list': {
    usage: 'plan list',
    summary: 'list plans',
    options: {},
    positionals: 0,
    async run(ctx) {
      const list = await ctx.store.listPlans();
      emit(
        ctx,
        list,
        list.length === 0
          ? ['No plans.']
          : table([
              ['ID', 'STATUS', 'UNITS/MONTH', 'ADV', 'OCR', 'MAX FILE', 'CONC', 'BYTES/S', 'NAME'],
              ...list.map((p) => [
                p.id,
                p.status,
                String(p.maxDocumentUnitsPerMonth),
                p.advancedPdfExtraction ? 'yes' : 'no',
                p.ocrPdfExtraction ? 'yes' : 'no',
                String(p.maxFileSizeBytes),
                String(p.maxConcurrentJobs),
                String(p.maxBytesPerSecond),
                p.name,
              ]),
            ]),
      );
    },
  },

  usage: {
    usage: 'usage --app APP_ID | --tenant TENANT_ID  [--month YYYY-MM] [--csv] [--by-day]   (default: the current UTC month)',
    summary: 'Document Units used in a month against the plan quota; --csv prints the usage lines (every charge)',
    options: { app: { type: 'string' }, tenant: { type: 'string' }, month: { type: 'string' }, csv: { type: 'boolean' }, 'by-day': { type: 'boolean' } },
    positionals: 0,
    async run(ctx) {
      const appId = str(ctx.values, 'app');
      const tenantId = str(ctx.values, 'tenant');
      if ((appId === undefined) === (tenantId === undefined)) throw new UsageError('give --app or --tenant (one of them)');
      const month = monthOption(ctx.values);
      const billing = new BillingStore(sqlOf(ctx.store));
      if (tenantId !== undefined) {
        await mustTenant(ctx.store, tenantId);
        if (ctx.values.csv === true) {
          emitCsv(ctx, ctx.values['by-day'] === true ? usageCsv(await billing.usage(tenantId, month, 'day')) : usageLinesCsv(await billing.usageLines({ tenantId, month })));
          return;
        }
        const u = await billing.usage(tenantId, month, ctx.values['by-day'] === true ? 'day' : 'month');
        emit(ctx, u, [
          `Tenant ${tenantId} used ${u.totals.units} Document Units in ${month} (${u.totals.documents} documents).`,
          ...u.quotas.map(
            (q) =>
              `  app ${q.appId}${q.appName === null ? ' (deleted)' : ` "${q.appName}"`}: ${q.unitsCharged}` +
              (q.plan ? ` of ${q.plan.quota} (${q.remaining} remaining)` : ' (no plan)'),
          ),
          ...(u.items.length ? ['', ...table([['DAY', 'APP', 'FAMILY', 'UNITS', 'DOCUMENTS'], ...u.items.map((f) => [f.day ?? month, f.appId, f.family, String(f.units), String(f.documents)])])] : []),
        ]);
        return;
      }
      const app = await mustApp(ctx.store, appId!);
      if (ctx.values.csv === true) {
        emitCsv(ctx, usageLinesCsv(await billing.usageLines({ appId: app.id, month })));
        return;
      }
      const plan = app.planId ? await ctx.store.getPlan(app.planId) : null;
      const unitsUsed = await ctx.store.unitsUsed(app.id, month);
      const charges = await ctx.store.listUsage({ appId: app.id, month });
      const byFormat: Record<string, number> = {};
      for (const c of charges) byFormat[c.format] = (byFormat[c.format] ?? 0) + c.units;
      const quota = plan ? plan.maxDocumentUnitsPerMonth : null;
      const remaining = quota === null ? null : Math.max(0, quota - unitsUsed);
      emit(
        ctx,
        { appId: app.id, tenantId: app.tenantId, month, unitsUsed, quota, planId: plan?.id ?? null, documents: charges.length, byFormat },
        [
          `App ${app.id} used ${unitsUsed} Document Units in ${month}` +
            (quota === null ? ' (no plan assigned).' : ` of ${quota} (plan "${plan!.name}"); ${remaining} remaining.`),
          `  documents:    ${charges.length}`,
          ...Object.entries(byFormat)
            .sort(([a], [b]) => a.localeCompare(b))
            .map(([format, units]) => `  ${format.padEnd(12)}  ${units}`),
        ],
      );
    },
  },
  statement: {
    usage: 'statement --tenant TENANT_ID [--month YYYY-MM] [--csv]   (default: the current UTC month)',
    summary: "a tenant's monthly statement: units per app and format family, each app's plan, overage (none: the quota is hard)",
    options: { tenant: { type: 'string' }, month: { type: 'string' }, csv: { type: 'boolean' } },
    positionals: 0,
    async run(ctx) {
      const tenantId = required(ctx.values, 'tenant');
      const month = monthOption(ctx.values);
      const s = await new BillingStore(sqlOf(ctx.store)).statement(tenantId, month);
      if (ctx.values.csv === true) emitCsv(ctx, statementCsv(s));
      else emit(ctx, s, statementLines(s));
    },
  },

  'mail list': {
    usage: 'mail list [--pending] [--tenant TENANT_ID] [--limit N]',
    summary: 'e-mails in the outbox, newest first (without DOCPARSE_SMTP_URL they are kept there, not sent)',
    options: { pending: { type: 'boolean' }, tenant: { type: 'string' }, limit: { type: 'string' } },
    positionals: 0,
    async run(ctx) {
      const limit = parseCount(str(ctx.values, 'limit') ?? '50', '--limit', 1);
      const list = await new OutboxStore(sqlOf(ctx.store)).list({ pendingOnly: ctx.values.pending === true, tenantId: str(ctx.values, 'tenant'), limit });
      const views = list.map((m) => mailView(m, ctx.mail()));
      emit(
        ctx,
        views.map(({ text: _t, html: _h, ...rest }) => rest),
        views.length === 0
          ? ['No e-mails.']
          : table([
              ['ID', 'CREATED', 'STATUS', 'TO', 'SUBJECT'],
              ...list.map((m, i) => [m.id, m.createdAt, mailStatus(m, ctx.mail()), m.recipients.join(', '), views[i].subject ?? `(${views[i].problem})`]),
            ]),
      );
    },
  },
  'mail show': {
    usage: 'mail show MAIL_ID',
    summary: 'one e-mail of the outbox: recipients, status, subject, the text (and, with --json, the HTML)',
    options: {},
    positionals: 1,
    async run(ctx) {
      const mail = await new OutboxStore(sqlOf(ctx.store)).get(ctx.positionals[0]);
      if (!mail) throw new NotFoundError('e-mail', ctx.positionals[0]);
      const v = mailView(mail, ctx.mail());
      emit(ctx, v, [
        `E-mail ${v.id} (${v.template})`,
        `  status:       ${mailStatus(mail, ctx.mail())}`,
        ...(v.lastError ? [`  last error:   ${v.lastError}`] : []),
        `  from:         ${v.from}`,
        `  to:           ${v.to.join(', ')}`,
        `  subject:      ${v.subject ?? `(${v.problem})`}`,
        '',
        ...(v.text ?? '').replace(/\n$/, '').split('\n'),
      ]);
    },
  },
};

export function adminUsage(): string[] {
  return [
    'Usage: docparse admin <command> [--json]',
    '',
    ...Object.values(commands).flatMap((c) => [`  ${c.usage}`, `      ${c.summary}`]),
    '',
    '  keys rotate|list',
    '      rotate or list token signing keys',
    '  keys create-operator [--name NAME] | list-operators | revoke-operator KEY_ID',
    '      operator API keys for the management API (a new key is printed once)',
    '',
    'Against a remote node: --url BASE_URL with --key dp_op_… (or DOCPARSE_OPERATOR_KEY).',
    '--json prints one JSON value per line (errors as {"error": ...}).',
    'Exit codes: 0 done, 1 the operation failed, 2 bad command line.',
  ];
}

export interface AdminOptions {
  /** Mail settings of the node the command runs for (its config); the `mail` commands need them. */
  mail?: MailSettings;
}

/** Runs one admin command; returns the process exit code (0 ok, 1 failed, 2 bad usage). */
export async function runAdmin(argv: string[], store: ControlPlaneStore, out: Out, opts: AdminOptions = {}): Promise<number> {
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
    adminUsage().forEach((l) => out(l));
    return group === undefined ? 2 : 0;
  }
  const key = Object.hasOwn(commands, group) ? group : `${group} ${action ?? ''}`.trim();
  const command = commands[key];
  if (!command) {
    const known = Object.keys(commands).filter((k) => k.startsWith(`${group} `));
    const hint = known.length ? `; ${group} commands: ${known.map((k) => k.slice(group.length + 1)).join(', ')}` : '; run "docparse admin help"';
    return fail(`unknown command "${key}"${hint}`, 2);
  }
  const rest = args.slice(key.split(' ').length);

  let values: Values;
  let positionals: string[];
  try {
    const parsed = parseArgs({
      args: rest,
      options: { ...command.options, ...JSON_OPTION, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
    values = parsed.values as Values;
    positionals = parsed.positionals;
  } catch (err) {
    return fail((err as Error).message, 2, `docparse admin ${command.usage}`);
  }
  if (values.json === true) json = true;
  if (values.help === true) {
    out(`usage: docparse admin ${command.usage}`);
    out(`  ${command.summary}`);
    return 0;
  }
  if (positionals.length !== command.positionals) {
    return fail(`expected ${command.positionals} argument(s), got ${positionals.length}`, 2, `docparse admin ${command.usage}`);
  }

  try {
    const mail = () => {
      // Against a remote node the mail commands go through its API (remote-admin.ts), never here.
      if (!opts.mail) throw new Error('the mail settings of the node are not known here');
      return opts.mail;
    };
    await command.run({ store, mail, out, json, values, positionals });
    return 0;
  } catch (err) {
    if (err instanceof UsageError) return fail(err.message, 2, `docparse admin ${command.usage}`);
    return fail((err as Error).message, 1);
  }
}
