// The control-plane operations `docparse admin` commands use, carried out through the
// management API of a remote node (`--url`). The commands run over it unchanged, so a command
// prints exactly what it prints against a local database. Operations the API deliberately
// does not offer (setting a secret hash: the node makes secrets itself) are refused.
import type { App, ControlPlaneStore, NewApp, NewPlan, NewTenant, Plan, StorageConfig, Tenant, TenantState } from '../tenancy/types.js';
import type { ManageClient } from './manage-client.js';

export type PublicApp = Omit<App, 'secretHash'>;
/** Apps as the API shows them: the hash is never sent; the commands never print it. */
export const asApp = (a: PublicApp): App => ({ ...a, secretHash: '' });
const id = (s: string) => encodeURIComponent(s);

const notThroughApi = (what: string) => () => {
  throw new Error(`${what} is not available through the management API`);
};

export function remoteStore(client: ManageClient): ControlPlaneStore {
  const getTenant = async (tenantId: string): Promise<Tenant | null> =>
    client.call<Tenant>('GET', `/tenants/${id(tenantId)}`).catch((e: { status?: number }) => (e.status === 404 ? null : Promise.reject(e)));
  const store: Partial<ControlPlaneStore> = {
    createTenant: (t: NewTenant) => client.call<Tenant>('POST', '/tenants', { name: t.name, ...(t.contactEmail ? { contactEmail: t.contactEmail } : {}) }),
    getTenant,
    listTenants: async () => (await client.call<{ items: Tenant[] }>('GET', '/tenants')).items,
    setTenantState: async (tenantId: string, state: TenantState) => {
      const current = await getTenant(tenantId);
      if (!current) return client.call<Tenant>('GET', `/tenants/${id(tenantId)}`, undefined, ['tenant', tenantId]);
      const action = state === 'Deactivated' ? 'deactivate' : current.state === 'Deactivated' ? 'reactivate' : 'activate';
      return client.call<Tenant>('POST', `/tenants/${id(tenantId)}/${action}`, undefined, ['tenant', tenantId]);
    },
    createPlan: (p: NewPlan) => client.call<Plan>('POST', '/plans', p),
    getPlan: (planId: string) =>
      client.call<Plan>('GET', `/plans/${id(planId)}`).catch((e: { status?: number }) => (e.status === 404 ? null : Promise.reject(e))),
    listPlans: async () => (await client.call<{ items: Plan[] }>('GET', '/plans')).items,
    retirePlan: async (planId: string) => (await client.call<{ plan: Plan }>('POST', `/plans/${id(planId)}/retire`, undefined, ['plan', planId])).plan,
    getApp: async (appId: string) =>
      client.call<PublicApp>('GET', `/apps/${id(appId)}`).then(asApp, (e: { status?: number }) => (e.status === 404 ? null : Promise.reject(e))),
    listApps: async (tenantId?: string) =>
      (await client.call<{ items: PublicApp[] }>('GET', `/apps${tenantId === undefined ? '' : `?tenantId=${id(tenantId)}`}`)).items.map(asApp),
    setAppEnabled: async (appId: string, enabled: boolean) =>
      asApp(await client.call<PublicApp>('POST', `/apps/${id(appId)}/${enabled ? 'enable' : 'disable'}`, undefined, ['app', appId])),
    setAppDomains: async (appId: string, domains: string[]) =>
      asApp(await client.call<PublicApp>('PATCH', `/apps/${id(appId)}`, { allowedDomains: domains }, ['app', appId])),
    assignPlan: async (appId: string, planId: string | null) => asApp(await client.call<PublicApp>('PATCH', `/apps/${id(appId)}`, { planId }, ['app', appId])),
    getStorageConfig: (configId: string) =>
      client.call<StorageConfig>('GET', `/storage-configs/${id(configId)}`).catch((e: { status?: number }) => (e.status === 404 ? null : Promise.reject(e))),
    setAppStorageConfig: async (appId: string, storageConfigId: string | null) =>
      asApp(await client.call<PublicApp>('PATCH', `/apps/${id(appId)}`, { storageConfigId })),
    createApp: notThroughApi('creating an app with a secret made elsewhere') as (a: NewApp) => Promise<App>,
    setAppSecretHash: notThroughApi('setting a secret hash'),
  };
  return new Proxy(store as ControlPlaneStore, {
    // Not thenable (so it can be awaited safely); anything else the API lacks says so when called.
    get: (target, name) =>
      typeof name === 'symbol' || name === 'then' ? undefined : name in target ? target[name as keyof ControlPlaneStore] : notThroughApi(name),
  });
}
