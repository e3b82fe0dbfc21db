// Apps: create (the client secret is in the answer once; only its scrypt hash is kept),
// list, get, change settings, enable/disable, rotate the secret, delete. Owners change
// apps; only operators stamp the database code. Every change applies to the app's next
// token request on every node (the token endpoint reads the app each time).
import { Type } from '@sinclair/typebox';
import type { RouteDef } from '../../http/route.js';
import { generateClientId, generateClientSecret, hashSecret } from '../../identity/secrets.js';
import { normalizeAllowedDomains } from '../../tenancy/domains.js';
import type { App, Plan } from '../../tenancy/types.js';
import { canSee, changed, manageErrors, manageRoute, ok, ownedApp, ownedTenant, publicApp, visibleApp, type ManageDeps } from './kit.js';
import { AppIdParams, AppSchema, AppWithSecretSchema, DisplayName, Id, list, TenantIdParams } from './schemas.js';

export const SECRET_NOTICE = 'Store the client secret now: it will not be shown again.';

// The limit of three is checked with the store's own message ("an app allows at most 3 domains, got 4").
const Domains = Type.Array(Type.String({ maxLength: 300 }), {
  maxItems: 16,
  description: 'At most three host[:port] entries, e.g. app.example.com or localhost:8080.',
});
const NullableId = (d: string) => Type.Union([Id(d), Type.Null()]);

const CreateApp = Type.Object(
  {
    name: DisplayName("The app's name."),
    licenseRegion: Type.String({ minLength: 1, maxLength: 64, description: 'One of the regions GET /manage/v1/regions lists.' }),
    dbCode: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Operators only; an app gets tokens once it has one.' })),
    allowedDomains: Type.Optional(Domains),
    planId: Type.Optional(NullableId('A usable plan.')),
    storageConfigId: Type.Optional(NullableId("One of the tenant's storage configs.")),
  },
  { additionalProperties: false },
);

const UpdateApp = Type.Object(
  {
    name: Type.Optional(DisplayName("The app's name.")),
    licenseRegion: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    dbCode: Type.Optional(
      Type.Union([Type.String({ minLength: 1, maxLength: 64 }), Type.Null()], { description: 'Operators only; null clears it (no tokens then).' }),
    ),
    allowedDomains: Type.Optional(Domains),
    planId: Type.Optional(NullableId('A usable plan; null removes the plan.')),
    storageConfigId: Type.Optional(NullableId("One of the tenant's storage configs; null: the node's storage.")),
  },
  { additionalProperties: false, minProperties: 1 },
);

type CreateBody = { name: string; licenseRegion: string; dbCode?: string; allowedDomains?: string[]; planId?: string | null; storageConfigId?: string | null };
type UpdateBody = Partial<Omit<CreateBody, 'dbCode'>> & { dbCode?: string | null };

const AUDITED_FIELDS: (keyof App)[] = ['name', 'licenseRegion', 'dbCode', 'allowedDomains', 'planId', 'storageConfigId', 'enabled'];

export function appRoutes(deps: ManageDeps): RouteDef[] {
  const region = (value: string) => {
    if (!deps.regions.includes(value)) throw manageErrors.invalid('licenseRegion', `${JSON.stringify(value)} is not a configured region.`, deps.regions);
    return value;
  };
  const domains = (value: string[]) => {
    try {
      return normalizeAllowedDomains(value);
    } catch (err) {
      throw manageErrors.invalid('allowedDomains', (err as Error).message);
    }
  };
  const usablePlan = async (planId: string): Promise<Plan> => {
    const plan = await deps.store.getPlan(planId);
    if (!plan || plan.status !== 'usable')
      throw manageErrors.invalid('planId', `No usable plan ${JSON.stringify(planId)} (apps on a retired plan get no tokens).`);
    return plan;
  };
  /**
   * A storage config of the tenant, in the app's license region when the deployment has
   * several (an `eu` app's documents never go to a bucket in `us-east-1`); `parameter` names
   * the field the caller changed.
   */
  const tenantStorage = async (tenantId: string, configId: string, licenseRegion: string | null, parameter = 'storageConfigId') => {
    const cfg = await deps.store.getStorageConfig(configId);
    if (!cfg || cfg.tenantId !== tenantId) throw manageErrors.invalid('storageConfigId', `No storage config ${JSON.stringify(configId)} in this tenant.`);
    const table = deps.regionTable;
    if (table && licenseRegion !== null && !table.sameRegion(cfg.region, licenseRegion)) {
      const where = (code: string) => table.regionOf(code) ?? 'no region of this deployment';
      throw manageErrors.invalid(
        parameter,
        `Storage config ${JSON.stringify(configId)} keeps its bucket in ${cfg.region} (${where(cfg.region)}), outside the app's license region ${licenseRegion} (${where(licenseRegion)}): an app's documents stay in its region.`,
      );
    }
  };
  const withSecret = (app: App, clientSecret: string) => ({ app: publicApp(app), clientId: app.clientId, clientSecret, notice: SECRET_NOTICE });

  return [
    manageRoute<{ tenantId: string }, Record<string, never>, CreateBody>(deps, {
      method: 'POST',
      path: '/tenants/:tenantId/apps',
      operationId: 'createApp',
      summary: 'Create an app; the answer holds its client secret, shown this once (owners only)',
      tags: ['apps'],
      params: TenantIdParams,
      body: CreateApp,
      responses: {
        201: { description: 'The app and its credentials.', schema: AppWithSecretSchema },
      },
      errors: ['owner_required', 'operator_required', 'tenant_not_found'],
      handler: async ({ principal, params, body, audit }) => {
        const tenant = await ownedTenant(deps, principal, params.tenantId, 'create apps');
        if (body.dbCode !== undefined && !principal.isOperator) throw manageErrors.operatorOnly('stamp database codes');
        const licenseRegion = region(body.licenseRegion);
        const allowedDomains = domains(body.allowedDomains ?? []);
        if (body.planId) await usablePlan(body.planId);
        if (body.storageConfigId) await tenantStorage(tenant.id, body.storageConfigId, licenseRegion);
        const clientSecret = generateClientSecret();
        let app = await deps.store.createApp({
          tenantId: tenant.id,
          name: body.name,
          licenseRegion,
          dbCode: body.dbCode ?? null,
          clientId: generateClientId(),
          secretHash: await hashSecret(clientSecret),
          allowedDomains,
          planId: body.planId ?? null,
          enabled: true,
        });
        if (body.storageConfigId) app = await deps.store.setAppStorageConfig(app.id, body.storageConfigId);
        await audit({
          action: 'app.create',
          tenantId: tenant.id,
          objectType: 'app',
          objectId: app.id,
          diff: {
            name: app.name,
            clientId: app.clientId,
            licenseRegion: app.licenseRegion,
            dbCode: app.dbCode,
            allowedDomains: app.allowedDomains,
            planId: app.planId,
            storageConfigId: app.storageConfigId,
          },
        });
        return ok(withSecret(app, clientSecret), 201);
      },
    }),
    manageRoute<Record<string, never>, { tenantId?: string }>(deps, {
      method: 'GET',
      path: '/apps',
      operationId: 'listApps',
      summary: 'List apps (operators: all; others: their tenants’), optionally of one tenant',
      tags: ['apps'],
      query: Type.Object({ tenantId: Type.Optional(Id('Only this tenant’s apps.')) }, { additionalProperties: false }),
      responses: { 200: { description: 'The apps.', schema: list(AppSchema) } },
      handler: async ({ principal, query }) => {
        if (query.tenantId !== undefined && !canSee(principal, query.tenantId)) return ok({ items: [] });
        const apps = await deps.store.listApps(query.tenantId);
        return ok({ items: apps.filter((a) => canSee(principal, a.tenantId)).map(publicApp) });
      },
    }),
    manageRoute<{ appId: string }>(deps, {
      method: 'GET',
      path: '/apps/:appId',
      operationId: 'getApp',
      summary: 'Get an app (never its secret)',
      tags: ['apps'],
      params: AppIdParams,
      responses: { 200: { description: 'The app.', schema: AppSchema } },
      errors: ['app_not_found'],
      handler: async ({ principal, params }) => ok(publicApp(await visibleApp(deps, principal, params.appId))),
    }),
    manageRoute<{ appId: string }, Record<string, never>, UpdateBody>(deps, {
      method: 'PATCH',
      path: '/apps/:appId',
      operationId: 'updateApp',
      summary: 'Change an app: name, license region, allowed domains, plan, storage config; database code (operators only)',
      tags: ['apps'],
      params: AppIdParams,
      body: UpdateApp,
      responses: {
        200: { description: 'The app as it is now.', schema: AppSchema },
      },
      errors: ['owner_required', 'operator_required', 'app_not_found'],
      handler: async ({ principal, params, body, audit }) => {
        const before = await ownedApp(deps, principal, params.appId, 'change apps');
        if (body.dbCode !== undefined && !principal.isOperator) throw manageErrors.operatorOnly('stamp database codes');
        // Everything is checked before anything is written.
        const licenseRegion = body.licenseRegion !== undefined ? region(body.licenseRegion) : undefined;
        const allowedDomains = body.allowedDomains !== undefined ? domains(body.allowedDomains) : undefined;
        if (body.planId) await usablePlan(body.planId);
        const regionAfter = licenseRegion ?? before.licenseRegion;
        if (body.storageConfigId) await tenantStorage(before.tenantId, body.storageConfigId, regionAfter);
        // A new license region must suit the storage config the app keeps.
        else if (licenseRegion !== undefined && body.storageConfigId === undefined && before.storageConfigId)
          await tenantStorage(before.tenantId, before.storageConfigId, regionAfter, 'licenseRegion');
        let app = before;
        if (body.name !== undefined) app = await deps.appSettings.setName(app.id, body.name);
        if (licenseRegion !== undefined) app = await deps.appSettings.setLicenseRegion(app.id, licenseRegion);
        if (body.dbCode !== undefined) app = await deps.appSettings.setDbCode(app.id, body.dbCode);
        if (allowedDomains !== undefined) app = await deps.store.setAppDomains(app.id, allowedDomains);
        if (body.planId !== undefined) app = await deps.store.assignPlan(app.id, body.planId);
        if (body.storageConfigId !== undefined) app = await deps.store.setAppStorageConfig(app.id, body.storageConfigId);
        const diff = changed(before, app, AUDITED_FIELDS);
        if (Object.keys(diff).length) await audit({ action: 'app.update', tenantId: app.tenantId, objectType: 'app', objectId: app.id, diff });
        return ok(publicApp(app));
      },
    }),
    ...(['enable', 'disable'] as const).map((verb) =>
      manageRoute<{ appId: string }>(deps, {
        method: 'POST',
        path: `/apps/:appId/${verb}`,
        operationId: `${verb}App`,
        summary: verb === 'enable' ? 'Enable an app (owners only)' : 'Disable an app: its next token request is refused (owners only)',
        tags: ['apps'],
        params: AppIdParams,
        responses: {
          200: { description: 'The app.', schema: AppSchema },
        },
        errors: ['owner_required', 'app_not_found'],
        handler: async ({ principal, params, audit }) => {
          const before = await ownedApp(deps, principal, params.appId, `${verb} apps`);
          const app = await deps.store.setAppEnabled(before.id, verb === 'enable');
          if (before.enabled !== app.enabled) {
            await audit({
              action: `app.${verb}`,
              tenantId: app.tenantId,
              objectType: 'app',
              objectId: app.id,
              diff: { enabled: { from: before.enabled, to: app.enabled } },
            });
          }
          return ok(publicApp(app));
        },
      }),
    ),
    manageRoute<{ appId: string }>(deps, {
      method: 'POST',
      path: '/apps/:appId/rotate-secret',
      operationId: 'rotateAppSecret',
      summary: 'Replace the client secret (the old one stops working now); the answer holds the new one, shown this once (owners only)',
      tags: ['apps'],
      params: AppIdParams,
      responses: {
        200: { description: 'The app and its new credentials.', schema: AppWithSecretSchema },
      },
      errors: ['owner_required', 'app_not_found'],
      handler: async ({ principal, params, audit }) => {
        const before = await ownedApp(deps, principal, params.appId, 'rotate app secrets');
        const clientSecret = generateClientSecret();
        const app = await deps.store.setAppSecretHash(before.id, await hashSecret(clientSecret));
        await audit({ action: 'app.rotate-secret', tenantId: app.tenantId, objectType: 'app', objectId: app.id });
        return ok(withSecret(app, clientSecret));
      },
    }),
    manageRoute<{ appId: string }>(deps, {
      method: 'DELETE',
      path: '/apps/:appId',
      operationId: 'deleteApp',
      summary: 'Delete an app: its credentials stop working at once; its usage stays in the ledger (owners only)',
      tags: ['apps'],
      params: AppIdParams,
      responses: {
        200: { description: 'The app as it was.', schema: AppSchema },
      },
      errors: ['owner_required', 'app_not_found'],
      handler: async ({ principal, params, audit }) => {
        const before = await ownedApp(deps, principal, params.appId, 'delete apps');
        const gone = await deps.appSettings.deleteApp(before.id);
        if (!gone) throw manageErrors.notFound('app', before.id);
        await audit({
          action: 'app.delete',
          tenantId: gone.tenantId,
          objectType: 'app',
          objectId: gone.id,
          diff: { name: gone.name, clientId: gone.clientId },
        });
        return ok(publicApp(gone));
      },
    }),
  ];
}
