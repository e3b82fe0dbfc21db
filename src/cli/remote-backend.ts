// The admin commands' backend for `docparse admin --url BASE_URL --key dp_op_…`: a remote
// node's management API (/manage/v1) with an operator key. The node makes client secrets
// and seals storage credentials itself; figures come from its usage and billing endpoints.
import type { MailView } from '../mail/view.js';
import type { UsageReport } from '../manage/api/usage-routes.js';
import type { Statement, TenantUsage } from '../tenancy/billing-store.js';
import type { OperatorKey, Plan } from '../tenancy/types.js';
import { NotFoundError } from '../tenancy/types.js';
import type { AdminBackend, AppWithSecret, MailSummary, PublicStorageConfig } from './admin-backend.js';
import { usageLinesCsv } from '../manage/api/billing-csv.js';
import { ManageApiError, type ManageClient } from './manage-client.js';
import { asApp, remoteStore, type PublicApp } from './remote-store.js';

const enc = encodeURIComponent;
/** The most e-mails the API lists in one answer. */
const MAIL_PAGE_LIMIT = 1000;

export function remoteBackend(client: ManageClient): AdminBackend {
  const withSecret = async (answer: Promise<{ app: PublicApp; clientSecret: string }>): Promise<AppWithSecret> => {
    const { app, clientSecret } = await answer;
    return { app: asApp(app), clientSecret };
  };
  const tenantUsageCsv = (tenantId: string, month: string, notFound: [string, string]) =>
    client.text(`/tenants/${enc(tenantId)}/usage.csv?month=${month}`, notFound);

  return {
    store: remoteStore(client),
    createApp: ({ tenantId, name, licenseRegion, dbCode, allowedDomains, planId }) =>
      withSecret(
        client.call('POST', `/tenants/${enc(tenantId)}/apps`, { name, licenseRegion, dbCode, allowedDomains, ...(planId !== null ? { planId } : {}) }, [
          'tenant',
          tenantId,
        ]),
      ),
    rotateSecret: (appId) => withSecret(client.call('POST', `/apps/${enc(appId)}/rotate-secret`, undefined, ['app', appId])),
    tenantUsage: (tenantId, month, granularity) =>
      client.call<TenantUsage>('GET', `/tenants/${enc(tenantId)}/usage/by-family?month=${month}&granularity=${granularity}`, undefined, ['tenant', tenantId]),
    tenantUsageLinesCsv: (tenantId, month) => tenantUsageCsv(tenantId, month, ['tenant', tenantId]),
    async appUsage(app, month) {
      const u = await client.call<UsageReport>('GET', `/apps/${enc(app.id)}/usage?month=${month}`, undefined, ['app', app.id]);
      const plan = u.planId ? await client.call<Plan>('GET', `/plans/${enc(u.planId)}`, undefined, ['plan', u.planId]) : null;
      return { unitsUsed: u.unitsUsed, quota: u.quota, planId: u.planId, planName: plan?.name ?? null, documents: u.documents, byFormat: u.byFormat };
    },
    async appUsageLinesCsv(app, month) {
      // The tenant's usage lines, this app's only (app_id is the fifth field; the four before it never hold a comma).
      const lines = (await tenantUsageCsv(app.tenantId, month, ['app', app.id])).replace(/\r\n$/, '').split('\r\n');
      const mine = lines.slice(1).filter((l) => l.split(',')[4] === app.id);
      return mine.length ? [lines[0], ...mine].join('\r\n') + '\r\n' : usageLinesCsv([]);
    },
    statement: (tenantId, month) => client.call<Statement>('GET', `/tenants/${enc(tenantId)}/statements/${month}`, undefined, ['tenant', tenantId]),
    statementCsv: (tenantId, month) => client.text(`/tenants/${enc(tenantId)}/statements/${month}?format=csv`, ['tenant', tenantId]),
    async mailList({ pendingOnly, tenantId, limit }) {
      const q = new URLSearchParams({ limit: String(Math.min(limit, MAIL_PAGE_LIMIT)) });
      if (pendingOnly) q.set('pending', 'true');
      if (tenantId !== undefined) q.set('tenantId', tenantId);
      return (await client.call<{ items: MailSummary[] }>('GET', `/mail?${q}`)).items;
    },
    mailShow: (id) =>
      client.call<MailView>('GET', `/mail/${enc(id)}`, undefined, ['e-mail', id]).catch((err) => (err instanceof NotFoundError ? null : Promise.reject(err))),
    async createStorageConfig(input, verify) {
      const { tenantId, secretAccessKey, forcePathStyle, endpoint, ...rest } = input;
      const body = { ...rest, ...(endpoint !== null ? { endpoint } : {}), secretAccessKey, forcePathStyle };
      const path = `/tenants/${enc(tenantId)}/storage-configs`;
      if (!verify) return { config: await client.call<PublicStorageConfig>('POST', path, { ...body, verify: false }), unreachable: null };
      try {
        return { config: await client.call<PublicStorageConfig>('POST', path, { ...body, verify: true }), unreachable: null };
      } catch (err) {
        if (!(err instanceof ManageApiError && err.code === 'storage_unreachable')) throw err;
        // Saved anyway, as on a local database: operators may set up the bucket later.
        const unreachable = err.message.replace(/; nothing was saved\.$/, '');
        return { config: await client.call<PublicStorageConfig>('POST', path, { ...body, verify: false }), unreachable };
      }
    },
    rotateSigningKey: () => client.call('POST', '/signing-keys/rotate'),
    listSigningKeys: async () => (await client.call<{ items: unknown[] }>('GET', '/signing-keys')).items,
    createOperatorKey: (name) => client.call<{ key: string; operatorKey: OperatorKey }>('POST', '/operator-keys', { name }),
    listOperatorKeys: async () => (await client.call<{ items: OperatorKey[] }>('GET', '/operator-keys')).items,
    revokeOperatorKey: (id) =>
      client
        .call<OperatorKey>('POST', `/operator-keys/${enc(id)}/revoke`)
        .catch((err: { status?: number }) => (err.status === 404 ? null : Promise.reject(err))),
  };
}
