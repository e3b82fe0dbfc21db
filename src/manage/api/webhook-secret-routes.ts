// An app's webhook signing secret (`whsec_…`, Standard Webhooks): owners create or replace it
// (the answer shows it; the old one stops signing at once) and may read it again later. It is
// kept sealed (src/webhooks/secret-store.ts); reading it is audited like replacing it.
import { Type } from '@sinclair/typebox';
import type { RouteDef } from '../../http/route.js';
import { manageRoute, ok, ownedApp, type ManageDeps } from './kit.js';
import { AppIdParams } from './schemas.js';

export const WEBHOOK_SECRET_NOTICE =
  'Store the webhook secret in your receiver now; it verifies the webhook-signature header of every webhook of this app (docs/webhooks.md).';

const SecretSchema = Type.Object({
  appId: Type.String(),
  webhookSecret: Type.Union([Type.String({ description: '`whsec_` and the base64 key, as the standardwebhooks libraries take it.' }), Type.Null()]),
  rotatedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  notice: Type.Optional(Type.String()),
});

export function webhookSecretRoutes(deps: ManageDeps): RouteDef[] {
  return [
    manageRoute<{ appId: string }>(deps, {
      method: 'POST',
      path: '/apps/:appId/rotate-webhook-secret',
      operationId: 'rotateAppWebhookSecret',
      summary: "Create or replace the app's webhook signing secret; the answer holds it (owners only)",
      description: 'Webhooks sent from now on, retries included, are signed with the new secret; the old one stops signing at once.',
      tags: ['apps'],
      params: AppIdParams,
      responses: { 200: { description: 'The new secret.', schema: SecretSchema } },
      errors: ['owner_required', 'app_not_found'],
      handler: async ({ principal, params, audit }) => {
        const app = await ownedApp(deps, principal, params.appId, 'rotate webhook secrets');
        const s = await deps.webhookSecrets.rotate(app.id);
        await audit({ action: 'app.rotate-webhook-secret', tenantId: app.tenantId, objectType: 'app', objectId: app.id });
        return ok({ appId: app.id, webhookSecret: s.secret, rotatedAt: s.rotatedAt, notice: WEBHOOK_SECRET_NOTICE });
      },
    }),
    manageRoute<{ appId: string }>(deps, {
      method: 'GET',
      path: '/apps/:appId/webhook-secret',
      operationId: 'getAppWebhookSecret',
      summary: "The app's webhook signing secret, or null when it has none (owners only)",
      tags: ['apps'],
      params: AppIdParams,
      responses: { 200: { description: 'The secret.', schema: SecretSchema } },
      errors: ['owner_required', 'app_not_found'],
      handler: async ({ principal, params, audit }) => {
        const app = await ownedApp(deps, principal, params.appId, 'read webhook secrets');
        const s = await deps.webhookSecrets.get(app.id);
        if (s) await audit({ action: 'app.read-webhook-secret', tenantId: app.tenantId, objectType: 'app', objectId: app.id });
        return ok({ appId: app.id, webhookSecret: s?.secret ?? null, rotatedAt: s?.rotatedAt ?? null });
      },
    }),
  ];
}
