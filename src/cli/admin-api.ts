// What `docparse admin` commands ask of the management API (/manage/v1), one method per
// operation they use. Whichever node answers — a remote one (--url), the node holding the
// data dir (its loopback listener), or the listener the CLI runs itself for one command —
// validation, authorization, the audit log and every refusal are the API's: the CLI has no
// second implementation of any operation, only this client and the printing.
import type { MailView } from '../mail/view.js';
import type { UsageReport } from '../manage/api/usage-routes.js';
import { usageLinesCsv } from '../manage/api/billing-csv.js';
import type { Statement, TenantUsage } from '../tenancy/billing-store.js';
import { NotFoundError, type App, type NewPlan, type OperatorKey, type Plan, type PlanChanges, type StorageConfig, type Tenant } from '../tenancy/types.js';
import { ManageApiError, type ManageClient } from './manage-client.js';

/** Apps as the API shows them: never the secret hash. */
export type PublicApp = Omit<App, 'secretHash'>;
export type PublicStorageConfig = Omit<StorageConfig, 'secretAccessKeySealed'>;
export type MailSummary = Omit<MailView, 'text' | 'html'>;

export interface NewAppInput {
  tenantId: string;
  name: string;
  licenseRegion: string;
  dbCode: string;
  allowedDomains: string[];
  planId: string | null;
}

/** An app with the client secret made for it (shown once). */
export interface AppWithSecret {
  app: PublicApp;
  clientSecret: string;
}

/** One app's month against its plan's quota. */
export interface AppUsage {
  unitsUsed: number;
  quota: number | null;
  planId: string | null;
  planName: string | null;
  documents: number;
  byFormat: Record<string, number>;
}

/** A storage config as the operator gives it: the secret key in clear (the node seals it). */
export interface NewStorageInput {
  tenantId: string;
  provider: string;
  endpoint: string | null;
  /** Unsaid (undefined): the preset's. */
  region?: string;
  accountId?: string;
  bucket: string;
  prefix: string;
  accessKeyId: string;
  secretAccessKey: string;
  forcePathStyle?: boolean;
}

const enc = encodeURIComponent;
/** The most e-mails the API lists in one answer. */
const MAIL_PAGE_LIMIT = 1000;

/** null for a 404, the answer otherwise. */
const orNull = <T>(answer: Promise<T>): Promise<T | null> =>
  answer.catch((err: { status?: number }) => (err.status === 404 || err instanceof NotFoundError ? null : Promise.reject(err)));

export class AdminApi {
  constructor(private readonly client: ManageClient) {}

  // ---------------------------------------------------------------- tenants

  createTenant(name: string, contactEmail: string | null): Promise<Tenant> {
    return this.client.call<Tenant>('POST', '/tenants', { name, ...(contactEmail ? { contactEmail } : {}) });
  }

  tenant(id: string): Promise<Tenant | null> {
    return orNull(this.client.call<Tenant>('GET', `/tenants/${enc(id)}`));
  }

  async listTenants(): Promise<Tenant[]> {
    return (await this.client.call<{ items: Tenant[] }>('GET', '/tenants')).items;
  }

  /** Activates a pending tenant, or reactivates a deactivated one. */
  async activateTenant(id: string): Promise<Tenant> {
    const current = await this.tenant(id);
    if (!current) throw new NotFoundError('tenant', id);
    const action = current.state === 'Deactivated' ? 'reactivate' : 'activate';
    return this.client.call<Tenant>('POST', `/tenants/${enc(id)}/${action}`, undefined, ['tenant', id]);
  }

  deactivateTenant(id: string): Promise<Tenant> {
    return this.client.call<Tenant>('POST', `/tenants/${enc(id)}/deactivate`, undefined, ['tenant', id]);
  }

  // ---------------------------------------------------------------- plans

  createPlan(plan: NewPlan): Promise<Plan> {
    return this.client.call<Plan>('POST', '/plans', plan);
  }

  plan(id: string): Promise<Plan | null> {
    return orNull(this.client.call<Plan>('GET', `/plans/${enc(id)}`));
  }

  async listPlans(): Promise<Plan[]> {
    return (await this.client.call<{ items: Plan[] }>('GET', '/plans')).items;
  }

  /** Changes the given fields of a plan's name and terms. */
  updatePlan(id: string, changes: PlanChanges): Promise<Plan> {
    return this.client.call<Plan>('PATCH', `/plans/${enc(id)}`, changes, ['plan', id]);
  }

  async retirePlan(id: string): Promise<Plan> {
    return (await this.client.call<{ plan: Plan }>('POST', `/plans/${enc(id)}/retire`, undefined, ['plan', id])).plan;
  }

  // ---------------------------------------------------------------- apps

  app(id: string): Promise<PublicApp | null> {
    return orNull(this.client.call<PublicApp>('GET', `/apps/${enc(id)}`));
  }

  async listApps(tenantId?: string): Promise<PublicApp[]> {
    return (await this.client.call<{ items: PublicApp[] }>('GET', `/apps${tenantId === undefined ? '' : `?tenantId=${enc(tenantId)}`}`)).items;
  }

  createApp({ tenantId, name, licenseRegion, dbCode, allowedDomains, planId }: NewAppInput): Promise<AppWithSecret> {
    const body = { name, licenseRegion, dbCode, allowedDomains, ...(planId !== null ? { planId } : {}) };
    return this.client.call<AppWithSecret>('POST', `/tenants/${enc(tenantId)}/apps`, body, ['tenant', tenantId]);
  }

  setAppEnabled(id: string, enabled: boolean): Promise<PublicApp> {
    return this.client.call<PublicApp>('POST', `/apps/${enc(id)}/${enabled ? 'enable' : 'disable'}`, undefined, ['app', id]);
  }

  /** Changes the given settings of an app (allowed domains, plan, storage). */
  updateApp(id: string, change: { allowedDomains?: string[]; planId?: string | null; storageConfigId?: string | null }): Promise<PublicApp> {
    return this.client.call<PublicApp>('PATCH', `/apps/${enc(id)}`, change, ['app', id]);
  }

  rotateSecret(id: string): Promise<AppWithSecret> {
    return this.client.call<AppWithSecret>('POST', `/apps/${enc(id)}/rotate-secret`, undefined, ['app', id]);
  }

  // ---------------------------------------------------------------- storage

  storageConfig(id: string): Promise<PublicStorageConfig | null> {
    return orNull(this.client.call<PublicStorageConfig>('GET', `/storage-configs/${enc(id)}`));
  }

  /**
   * Saves a storage config; with `verify`, the node checks the bucket first, and when it cannot
   * be reached the config is saved anyway (operators may set up the bucket later), saying why.
   */
  async createStorageConfig(input: NewStorageInput, verify: boolean): Promise<{ config: PublicStorageConfig; unreachable: string | null }> {
    const { tenantId, endpoint, ...rest } = input;
    const body = { ...rest, ...(endpoint !== null ? { endpoint } : {}) };
    const path = `/tenants/${enc(tenantId)}/storage-configs`;
    if (!verify) return { config: await this.client.call<PublicStorageConfig>('POST', path, { ...body, verify: false }), unreachable: null };
    try {
      return { config: await this.client.call<PublicStorageConfig>('POST', path, { ...body, verify: true }), unreachable: null };
    } catch (err) {
      if (!(err instanceof ManageApiError && err.code === 'storage_unreachable')) throw err;
      const unreachable = err.message.replace(/; nothing was saved\.$/, '');
      return { config: await this.client.call<PublicStorageConfig>('POST', path, { ...body, verify: false }), unreachable };
    }
  }

  // ---------------------------------------------------------------- usage and billing

  tenantUsage(tenantId: string, month: string, granularity: 'month' | 'day'): Promise<TenantUsage> {
    return this.client.call<TenantUsage>('GET', `/tenants/${enc(tenantId)}/usage/by-family?month=${month}&granularity=${granularity}`, undefined, [
      'tenant',
      tenantId,
    ]);
  }

  /** Every charge of the tenant's month as CSV. */
  tenantUsageLinesCsv(tenantId: string, month: string): Promise<string> {
    return this.client.text(`/tenants/${enc(tenantId)}/usage.csv?month=${month}`, ['tenant', tenantId]);
  }

  async appUsage(app: PublicApp, month: string): Promise<AppUsage> {
    const u = await this.client.call<UsageReport>('GET', `/apps/${enc(app.id)}/usage?month=${month}`, undefined, ['app', app.id]);
    const plan = u.planId ? await this.plan(u.planId) : null;
    return { unitsUsed: u.unitsUsed, quota: u.quota, planId: u.planId, planName: plan?.name ?? null, documents: u.documents, byFormat: u.byFormat };
  }

  /** Every charge of the app's month as CSV: the tenant's usage lines, this app's only. */
  async appUsageLinesCsv(app: PublicApp, month: string): Promise<string> {
    // app_id is the fifth field; the four before it never hold a comma.
    const lines = (await this.client.text(`/tenants/${enc(app.tenantId)}/usage.csv?month=${month}`, ['app', app.id])).replace(/\r\n$/, '').split('\r\n');
    const mine = lines.slice(1).filter((l) => l.split(',')[4] === app.id);
    return mine.length ? [lines[0], ...mine].join('\r\n') + '\r\n' : usageLinesCsv([]);
  }

  statement(tenantId: string, month: string): Promise<Statement> {
    return this.client.call<Statement>('GET', `/tenants/${enc(tenantId)}/statements/${month}`, undefined, ['tenant', tenantId]);
  }

  statementCsv(tenantId: string, month: string): Promise<string> {
    return this.client.text(`/tenants/${enc(tenantId)}/statements/${month}?format=csv`, ['tenant', tenantId]);
  }

  // ---------------------------------------------------------------- mail

  async mailList({ pendingOnly, tenantId, limit }: { pendingOnly: boolean; tenantId: string | undefined; limit: number }): Promise<MailSummary[]> {
    const q = new URLSearchParams({ limit: String(Math.min(limit, MAIL_PAGE_LIMIT)) });
    if (pendingOnly) q.set('pending', 'true');
    if (tenantId !== undefined) q.set('tenantId', tenantId);
    return (await this.client.call<{ items: MailSummary[] }>('GET', `/mail?${q}`)).items;
  }

  mailShow(id: string): Promise<MailView | null> {
    return orNull(this.client.call<MailView>('GET', `/mail/${enc(id)}`, undefined, ['e-mail', id]));
  }

  // ---------------------------------------------------------------- keys

  rotateSigningKey(): Promise<unknown> {
    return this.client.call('POST', '/signing-keys/rotate');
  }

  async listSigningKeys(): Promise<unknown[]> {
    return (await this.client.call<{ items: unknown[] }>('GET', '/signing-keys')).items;
  }

  createOperatorKey(name: string): Promise<{ key: string; operatorKey: OperatorKey }> {
    return this.client.call<{ key: string; operatorKey: OperatorKey }>('POST', '/operator-keys', { name });
  }

  async listOperatorKeys(): Promise<OperatorKey[]> {
    return (await this.client.call<{ items: OperatorKey[] }>('GET', '/operator-keys')).items;
  }

  /** null when there is no such key. */
  revokeOperatorKey(id: string): Promise<OperatorKey | null> {
    return orNull(this.client.call<OperatorKey>('POST', `/operator-keys/${enc(id)}/revoke`));
  }

  // ---------------------------------------------------------------- the person at this machine

  /** A new one-time dashboard sign-in link (only the loopback listener gives one). */
  async signInLink(): Promise<string> {
    return (await this.client.call<{ url: string }>('POST', '/local/sign-in-link')).url;
  }
}
