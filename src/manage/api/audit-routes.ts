// The audit log, newest first in pages: operators read every entry (or one tenant's);
// owners read their tenants' entries; members read none. Owners see who did what in their
// tenant, but not who the platform's operators are: an operator's entry names its kind only
// (no id, no e-mail address, no client address). Storage access key ids are masked in every
// diff, also in entries written before they were masked on the way in.
import { Type } from '@sinclair/typebox';
import type { RouteDef } from '../../http/route.js';
import type { AuditEntry } from '../../tenancy/types.js';
import type { ManagePrincipal } from '../principal.js';
import { canManage, manageErrors, manageRoute, ok, visibleTenant, type ManageDeps } from './kit.js';
import { AuditEntrySchema, Id } from './schemas.js';
import { maskedAccessKeyId } from './storage-routes.js';

/** An audit entry as the API shows it: an operator's identity may be withheld. */
export type AuditEntryView = Omit<AuditEntry, 'actor'> & { actor: { kind: string; id: string | null; email: string | null } };

/** The entry as `reader` may see it. */
export function auditEntryFor(reader: ManagePrincipal, e: AuditEntry): AuditEntryView {
  const diff = typeof e.diff.accessKeyId === 'string' ? { ...e.diff, accessKeyId: maskedAccessKeyId(e.diff.accessKeyId) } : e.diff;
  if (reader.isOperator || e.actor.kind !== 'operator') return { ...e, diff };
  return { ...e, actor: { kind: 'operator', id: null, email: null }, clientAddress: null, diff };
}

export function auditRoutes(deps: ManageDeps): RouteDef[] {
  return [
    manageRoute<Record<string, never>, { tenantId?: string; before?: string; limit?: number }>(deps, {
      method: 'GET',
      path: '/audit',
      operationId: 'listAuditEntries',
      summary: 'Who changed what, when and from where (operators: all; owners: their tenants, operators named by kind only)',
      tags: ['audit'],
      query: Type.Object(
        {
          tenantId: Type.Optional(Id('Only this tenant’s entries.')),
          before: Type.Optional(Type.String({ pattern: '^[0-9]{1,18}$', description: 'The `next` of the previous page.' })),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
        },
        { additionalProperties: false },
      ),
      responses: {
        200: {
          description: 'A page of entries.',
          schema: Type.Object({ items: Type.Array(AuditEntrySchema), next: Type.Union([Type.String(), Type.Null()]) }),
        },
      },
      errors: ['owner_required', 'tenant_not_found'],
      handler: async ({ principal, query }) => {
        let tenantIds: string[] | undefined;
        if (query.tenantId !== undefined) {
          await visibleTenant(deps, principal, query.tenantId);
          if (!canManage(principal, query.tenantId)) throw manageErrors.ownerOnly('read the audit log');
          tenantIds = [query.tenantId];
        } else if (!principal.isOperator) {
          tenantIds = [...principal.tenantRoles].filter(([, role]) => role === 'owner').map(([id]) => id);
        }
        const page = await deps.audit.list({ tenantIds, before: query.before, limit: query.limit ?? 100 });
        return ok({ items: page.entries.map((e) => auditEntryFor(principal, e)), next: page.next });
      },
    }),
  ];
}
