// Operators only: token signing keys (list, rotate; see src/identity/admin-keys.ts) and
// operator API keys (create — the key is in the answer once —, list, revoke).
import { Type } from '@sinclair/typebox';
import type { RouteDef } from '../../http/route.js';
import { listSigningKeys, rotateSigningKey } from '../../identity/admin-keys.js';
import { manageErrors, manageRoute, ok, requireOperator, type ManageDeps } from './kit.js';
import { DisplayName, Id, list, OperatorKeySchema, SigningKeySchema } from './schemas.js';

export function keyRoutes(deps: ManageDeps): RouteDef[] {
  return [
    manageRoute(deps, {
      method: 'GET',
      path: '/signing-keys',
      operationId: 'listSigningKeys',
      summary: 'List token signing keys, newest first (operators only)',
      tags: ['keys'],
      responses: { 200: { description: 'The keys (public facts only).', schema: list(SigningKeySchema) } },
      errors: ['operator_required'],
      handler: async ({ principal }) => {
        requireOperator(principal, 'list signing keys');
        return ok({ items: await listSigningKeys(deps.keyring) });
      },
    }),
    manageRoute(deps, {
      method: 'POST',
      path: '/signing-keys/rotate',
      operationId: 'rotateSigningKey',
      summary: 'Create a signing key that signs from now on and retire the previous ones (operators only)',
      tags: ['keys'],
      responses: {
        200: { description: 'The new key id and the retired ones.', schema: Type.Object({ kid: Type.String(), retired: Type.Array(Type.String()) }) },
      },
      errors: ['operator_required'],
      handler: async ({ principal, audit }) => {
        requireOperator(principal, 'rotate signing keys');
        const rotated = await rotateSigningKey(deps.keyring);
        await audit({ action: 'signing-key.rotate', tenantId: null, objectType: 'signing-key', objectId: rotated.kid, diff: { retired: rotated.retired } });
        return ok(rotated);
      },
    }),
    manageRoute<Record<string, never>, Record<string, never>, { name?: string }>(deps, {
      method: 'POST',
      path: '/operator-keys',
      operationId: 'createOperatorKey',
      summary: 'Create an operator API key; the answer holds the key, shown this once (operators only)',
      tags: ['keys'],
      body: Type.Object({ name: Type.Optional(DisplayName('What the key is for, e.g. ci.')) }, { additionalProperties: false }),
      responses: {
        201: {
          description: 'The key (only here) and its record.',
          schema: Type.Object({ key: Type.String(), operatorKey: OperatorKeySchema, notice: Type.String() }),
        },
      },
      errors: ['operator_required'],
      handler: async ({ principal, body, audit }) => {
        requireOperator(principal, 'create operator keys');
        const { key, record } = await deps.operatorKeys.create(body.name ?? '');
        await audit({ action: 'operator-key.create', tenantId: null, objectType: 'operator-key', objectId: record.id, diff: { name: record.name } });
        return ok({ key, operatorKey: record, notice: OPERATOR_KEY_NOTICE }, 201);
      },
    }),
    manageRoute(deps, {
      method: 'GET',
      path: '/operator-keys',
      operationId: 'listOperatorKeys',
      summary: 'List operator API keys (never the keys themselves; operators only)',
      tags: ['keys'],
      responses: { 200: { description: 'The keys.', schema: list(OperatorKeySchema) } },
      errors: ['operator_required'],
      handler: async ({ principal }) => {
        requireOperator(principal, 'list operator keys');
        return ok({ items: await deps.operatorKeys.list() });
      },
    }),
    manageRoute<{ keyId: string }>(deps, {
      method: 'POST',
      path: '/operator-keys/:keyId/revoke',
      operationId: 'revokeOperatorKey',
      summary: 'Revoke an operator API key: refused from its next request on (operators only)',
      tags: ['keys'],
      params: Type.Object({ keyId: Id('Operator key id.') }),
      responses: { 200: { description: 'The revoked key.', schema: OperatorKeySchema } },
      errors: ['operator_required', 'operator_key_not_found'],
      handler: async ({ principal, params, audit }) => {
        requireOperator(principal, 'revoke operator keys');
        const before = await deps.operatorKeys.get(params.keyId);
        if (!before) throw manageErrors.notFound('operator key', params.keyId);
        const key = (await deps.operatorKeys.revoke(before.id))!;
        if (!before.revokedAt)
          await audit({ action: 'operator-key.revoke', tenantId: null, objectType: 'operator-key', objectId: key.id, diff: { name: key.name } });
        return ok(key);
      },
    }),
  ];
}

export const OPERATOR_KEY_NOTICE = 'Store the operator key now: it will not be shown again.';
