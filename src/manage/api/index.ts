// The management API (/manage/v1) on the main HTTP port: every route, the regions list and
// the API's own OpenAPI document at /openapi/manage-v1.json (not in /openapi/v1.json).
import { Type } from '@sinclair/typebox';
import type { RouteDef } from '../../http/route.js';
import { appRoutes } from './app-routes.js';
import { auditRoutes } from './audit-routes.js';
import { keyRoutes } from './key-routes.js';
import { manageRoute, ok, type ManageDeps } from './kit.js';
import { mailRoutes } from './mail-routes.js';
import { memberRoutes } from './member-routes.js';
import { planRoutes } from './plan-routes.js';
import { storageRoutes } from './storage-routes.js';
import { tenantRoutes } from './tenant-routes.js';
import { usageRoutes } from './usage-routes.js';
import { billingRoutes } from './billing-routes.js';
import { webhookSecretRoutes } from './webhook-secret-routes.js';

export const MANAGE_OPENAPI_PATH = '/openapi/manage-v1.json';

export function manageApiRoutes(deps: ManageDeps, openapi: () => Record<string, unknown>): RouteDef[] {
  return [
    ...tenantRoutes(deps),
    ...memberRoutes(deps),
    ...appRoutes(deps),
    ...planRoutes(deps),
    ...storageRoutes(deps),
    ...keyRoutes(deps),
    ...usageRoutes(deps),
    ...auditRoutes(deps),
    ...billingRoutes(deps, deps.billing),
    ...mailRoutes(deps),
    ...webhookSecretRoutes(deps),
    manageRoute(deps, {
      method: 'GET',
      path: '/regions',
      operationId: 'listRegions',
      summary: 'License regions an app may be given',
      tags: ['apps'],
      responses: { 200: { description: 'The configured regions.', schema: Type.Object({ items: Type.Array(Type.String()) }) } },
      handler: async () => ok({ items: deps.regions }),
    }),
    {
      method: 'GET',
      path: MANAGE_OPENAPI_PATH,
      operationId: 'getManageOpenApi',
      summary: 'This OpenAPI document',
      tags: ['meta'],
      auth: 'public',
      api: 'manage',
      responses: { 200: { description: 'OpenAPI 3.1 document of the management API.', schema: Type.Object({}, { additionalProperties: true }) } },
      handler: async () => ({ status: 200, json: openapi() }),
    },
  ];
}

export type { ManageDeps, ManageEvents } from './kit.js';
