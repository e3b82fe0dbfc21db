// What every management route shares: the principal is established before anything else
// (no body is read for a caller without credentials), the JSON body is parsed and validated
// against the schema the OpenAPI document publishes, and each change goes to the audit log.
// Visibility: another tenant's objects are 404 exactly like objects that do not exist.
import type { RegionTable } from '../../http/region-table.js';
import type { TSchema } from '@sinclair/typebox';
import { problem, problems } from '../../http/problem.js';
import type { ProblemCode } from '../../errors/catalogue.js';
import type { Reply, RequestContext, ResponseDoc, RouteDef } from '../../http/route.js';
import { parseJsonBody } from '../../http/parsed-body.js';
import { validateBody } from '../../http/validation.js';
import type { Sealer } from '../../crypto/sealed.js';
import type { KeyRing } from '../../identity/keyring.js';
import type { AppSettingsStore } from '../../tenancy/app-settings-store.js';
import type { AuditStore } from '../../tenancy/audit-store.js';
import type { MembersStore } from '../../tenancy/members-store.js';
import type { OperatorKeysStore } from '../../tenancy/operator-keys-store.js';
import type { App, ControlPlaneStore, Tenant, TenantInvitation } from '../../tenancy/types.js';
import type { ManageAuthenticator, ManagePrincipal } from '../principal.js';
import type { BillingStore } from '../../tenancy/billing-store.js';
import type { MailSettings } from '../../mail/settings.js';
import type { RateCounters } from '../../jobs/types.js';
import type { OutboundPolicy } from '../../outbound/outbound-policy.js';
import type { ChangeFeed } from '../../tenancy/change-feed.js';
import { canonicalEmail, EmailAddressError } from '../../mail/address.js';

export const MANAGE_PREFIX = '/manage/v1';
const MAX_BODY_BYTES = 64 * 1024;

/** What follows a change outside this API (the mailer subscribes: activation e-mail, invitations). */
export interface ManageEvents {
  tenantActivated?(tenant: Tenant): void | Promise<void>;
  invitationCreated?(invitation: TenantInvitation): void | Promise<void>;
}

export interface ManageDeps {
  store: ControlPlaneStore;
  members: MembersStore;
  operatorKeys: OperatorKeysStore;
  audit: AuditStore;
  appSettings: AppSettingsStore;
  sealer: Sealer;
  keyring: KeyRing;
  authenticate: ManageAuthenticator;
  /** License regions an app may be given (config.regions). */
  regions: readonly string[];
  /** The deployment's regions (DOCPARSE_REGION_URLS): an app may use only a storage config of its own. Absent: one region. */
  regionTable?: RegionTable | null;
  /** Usage and statements from the ledger (billing-routes.ts). */
  billing: BillingStore;
  /** The node's mail settings (the outbox routes render e-mails with them). */
  mail: MailSettings;
  /** Fixed-window counters shared by the nodes (limits on what one tenant or user may ask for). */
  counters: RateCounters;
  /** What requests on a tenant's behalf (the storage check) may reach: DOCPARSE_OUTBOUND_ALLOW. */
  outbound: OutboundPolicy;
  events?: ManageEvents;
  /** Where changes to apps, plans and tenants are announced to every node's caches (none: the caches' TTL). */
  changes?: ChangeFeed;
}

/** What the nodes cache (plan-limits.ts): a change to one of these is announced. */
const CACHED_OBJECTS = new Set(['app', 'plan', 'tenant']);

export interface ManageCall<P, Q, B> {
  ctx: RequestContext;
  principal: ManagePrincipal;
  params: P;
  query: Q;
  body: B;
  /** Writes one audit entry for a change made by this request. */
  audit(e: { action: string; tenantId: string | null; objectType: string; objectId: string | null; diff?: Record<string, unknown> }): Promise<void>;
}

export interface ManageRouteDef<P, Q, B> {
  method: RouteDef['method'];
  /** After /manage/v1. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  params?: RouteDef['params'];
  query?: RouteDef['query'];
  body?: TSchema;
  responses: Record<number, ResponseDoc>;
  /** The catalogue codes the handler answers with (see RouteDef.errors). */
  errors?: readonly ProblemCode[];
  handler(call: ManageCall<P, Q, B>): Promise<Reply>;
}

/** What reading the JSON body can refuse (readJson); the credentials' codes follow from auth 'manage'. */
const BODY_ERRORS: readonly ProblemCode[] = ['document_too_large', 'unsupported_media_type'];

async function readJson(ctx: RequestContext): Promise<unknown> {
  const type = (ctx.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/json' && !type.endsWith('+json')) throw problems.unsupportedMediaType('application/json');
  return parseJsonBody(ctx.bodyStream ? await ctx.bodyStream.readAll(MAX_BODY_BYTES) : Buffer.alloc(0));
}

export function manageRoute<P = Record<string, string>, Q = Record<string, unknown>, B = undefined>(deps: ManageDeps, def: ManageRouteDef<P, Q, B>): RouteDef {
  return {
    method: def.method,
    path: MANAGE_PREFIX + def.path,
    operationId: def.operationId,
    summary: def.summary,
    ...(def.description ? { description: def.description } : {}),
    tags: def.tags,
    auth: 'manage',
    api: 'manage',
    params: def.params,
    query: def.query,
    ...(def.body ? { body: { kind: 'raw', description: 'JSON', contentTypes: ['application/json'], schema: def.body } as const } : {}),
    responses: def.responses,
    errors: [...(def.errors ?? []), ...(def.body ? BODY_ERRORS : [])],
    handler: async (ctx) => {
      const principal = await deps.authenticate(ctx, deps.counters);
      const body = def.body ? validateBody<B>(def.body, await readJson(ctx)) : (undefined as B);
      const call: ManageCall<P, Q, B> = {
        ctx,
        principal,
        params: ctx.params as P,
        query: ctx.query as Q,
        body,
        audit: async (e) => {
          // Every change is audited, so this is where the other nodes hear of it (after its commit).
          if (CACHED_OBJECTS.has(e.objectType)) await deps.changes?.publish({ objectType: e.objectType, objectId: e.objectId });
          await deps.audit.append({
            actor: { kind: principal.kind, id: principal.id, email: principal.email ?? null },
            tenantId: e.tenantId,
            action: e.action,
            objectType: e.objectType,
            objectId: e.objectId,
            diff: e.diff ?? {},
            clientAddress: ctx.remoteAddress || null,
            requestId: ctx.requestId,
          });
        },
      };
      return def.handler(call);
    },
  };
}

// ------------------------------------------------------------------ answers and refusals

export const ok = (json: unknown, status = 200): Reply => ({ status, json });

/** What a 404 names (in its detail) → its code in the catalogue. */
const NOT_FOUND_CODES = {
  tenant: 'tenant_not_found',
  app: 'app_not_found',
  member: 'member_not_found',
  invitation: 'invitation_not_found',
  plan: 'plan_not_found',
  'storage config': 'storage_config_not_found',
  'operator key': 'operator_key_not_found',
  'e-mail': 'e-mail_not_found',
} as const satisfies Record<string, ProblemCode>;

export const manageErrors = {
  notFound: (what: keyof typeof NOT_FOUND_CODES, id: string) =>
    problem(NOT_FOUND_CODES[what], `No ${what} ${JSON.stringify(id)} exists, or it is not yours.`, { id }),
  operatorOnly: (what: string) => problem('operator_required', `Only platform operators may ${what}.`),
  ownerOnly: (what: string) => problem('owner_required', `Only the tenant's owners (or an operator) may ${what}.`),
  invalid: (parameter: string, detail: string, allowed?: readonly string[]) => problems.invalidParameter(parameter, detail, allowed),
};

/** An address from the request in its canonical form (src/mail/address.ts); 400 naming the parameter when it has none. */
export function emailParameter(parameter: string, value: string): string {
  try {
    return canonicalEmail(value);
  } catch (err) {
    if (err instanceof EmailAddressError) throw manageErrors.invalid(parameter, `${err.message}.`);
    throw err;
  }
}

// ------------------------------------------------------------------ visibility

/** Whether the principal may see the tenant's objects at all. */
export const canSee = (p: ManagePrincipal, tenantId: string) => p.isOperator || p.tenantRoles.has(tenantId);
/** Whether the principal may change the tenant's apps, storage and members. */
export const canManage = (p: ManagePrincipal, tenantId: string) => p.isOperator || p.tenantRoles.get(tenantId) === 'owner';

/** The tenant, if the principal may see it; 404 otherwise (whether or not it exists). */
export async function visibleTenant(deps: ManageDeps, p: ManagePrincipal, tenantId: string): Promise<Tenant> {
  const tenant = canSee(p, tenantId) ? await deps.store.getTenant(tenantId) : null;
  if (!tenant) throw manageErrors.notFound('tenant', tenantId);
  return tenant;
}

/** The tenant, for a change by its owners (403 for a member, 404 for anyone else). */
export async function ownedTenant(deps: ManageDeps, p: ManagePrincipal, tenantId: string, what: string): Promise<Tenant> {
  const tenant = await visibleTenant(deps, p, tenantId);
  if (!canManage(p, tenantId)) throw manageErrors.ownerOnly(what);
  return tenant;
}

export async function visibleApp(deps: ManageDeps, p: ManagePrincipal, appId: string): Promise<App> {
  const app = await deps.store.getApp(appId);
  if (!app || !canSee(p, app.tenantId)) throw manageErrors.notFound('app', appId);
  return app;
}

export async function ownedApp(deps: ManageDeps, p: ManagePrincipal, appId: string, what: string): Promise<App> {
  const app = await visibleApp(deps, p, appId);
  if (!canManage(p, app.tenantId)) throw manageErrors.ownerOnly(what);
  return app;
}

export function requireOperator(p: ManagePrincipal, what: string): void {
  if (!p.isOperator) throw manageErrors.operatorOnly(what);
}

/** An app as the API shows it: never the secret hash. */
export function publicApp(app: App): Omit<App, 'secretHash'> {
  const { secretHash: _omit, ...rest } = app;
  return rest;
}

/** Fields whose values differ between two versions of a record (for the audit diff). */
export function changed<T extends object>(before: T, after: T, fields: (keyof T)[]): Record<string, unknown> {
  const diff: Record<string, unknown> = {};
  for (const f of fields) {
    if (JSON.stringify(before[f]) !== JSON.stringify(after[f])) diff[String(f)] = { from: before[f], to: after[f] };
  }
  return diff;
}
