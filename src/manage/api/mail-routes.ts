// The mail outbox on the management API: e-mails newest first, and one e-mail rendered as it
// is (or would be) sent. Operators read every e-mail; a tenant's owners read their tenant's
// (with ?tenantId= on the list), without the SMTP relay's words (they name its host and
// address: mailView); anyone else gets 404 for an e-mail, as for every tenant object.
// E-mails are rendered with the node's mail settings (ManageDeps.mail, from its config).
import { Type } from '@sinclair/typebox';
import type { RouteDef } from '../../http/route.js';
import { OutboxStore } from '../../mail/outbox-store.js';
import { mailView, type MailReader } from '../../mail/view.js';
import { SqlControlPlaneStore } from '../../tenancy/sql-store.js';
import type { ManagePrincipal } from '../principal.js';
import { canManage, manageErrors, manageRoute, ok, visibleTenant, type ManageDeps } from './kit.js';

const readerOf = (p: ManagePrincipal): MailReader => (p.isOperator ? 'operator' : 'owner');

const Id = (description: string) => Type.String({ minLength: 1, maxLength: 200, description });
const Nullable = <T extends ReturnType<typeof Type.String>>(s: T) => Type.Union([s, Type.Null()]);

const MailSummarySchema = Type.Object({
  id: Type.String(),
  status: Type.Union([Type.Literal('sent'), Type.Literal('withdrawn'), Type.Literal('pending'), Type.Literal('kept')], {
    description: 'withdrawn: taken back unsent (its invitation was revoked); kept: no DOCPARSE_SMTP_URL, the e-mail stays in the outbox.',
  }),
  template: Type.String(),
  tenantId: Nullable(Type.String()),
  from: Type.String(),
  to: Type.Array(Type.String()),
  subject: Nullable(Type.String()),
  problem: Type.Optional(Type.String({ description: 'Why the e-mail cannot be rendered.' })),
  createdAt: Type.String({ format: 'date-time' }),
  attempts: Type.Integer(),
  nextAttemptAt: Nullable(Type.String({ format: 'date-time' })),
  lastError: Nullable(
    Type.String({ description: "Why the last attempt failed, in the SMTP server's words for operators; for a tenant's owners only that it is retried." }),
  ),
  sentAt: Nullable(Type.String({ format: 'date-time' })),
  messageId: Nullable(Type.String()),
  withdrawnAt: Nullable(Type.String({ format: 'date-time' })),
});
const MailSchema = Type.Intersect([MailSummarySchema, Type.Object({ text: Nullable(Type.String()), html: Nullable(Type.String()) })]);

export function mailRoutes(deps: ManageDeps): RouteDef[] {
  const mail = () => deps.mail;
  const outbox = () => {
    if (!(deps.store instanceof SqlControlPlaneStore)) throw new Error('the mail outbox needs the SQL control plane');
    return new OutboxStore(deps.store.db);
  };
  return [
    manageRoute<Record<string, never>, { tenantId?: string; pending?: 'true' | 'false'; limit?: number }>(deps, {
      method: 'GET',
      path: '/mail',
      operationId: 'listMail',
      summary: 'E-mails in the outbox, newest first (operators: all; owners: their tenant’s, with tenantId)',
      tags: ['mail'],
      query: Type.Object(
        {
          tenantId: Type.Optional(Id('Only this tenant’s e-mails (required for owners).')),
          pending: Type.Optional(
            Type.Union([Type.Literal('true'), Type.Literal('false')], { description: 'true: only e-mails still to be sent (neither sent nor withdrawn).' }),
          ),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 50 })),
        },
        { additionalProperties: false },
      ),
      responses: {
        200: { description: 'The e-mails (without their text and HTML).', schema: Type.Object({ items: Type.Array(MailSummarySchema) }) },
      },
      errors: ['operator_required', 'owner_required', 'tenant_not_found'],
      handler: async ({ principal, query }) => {
        // Operators may ask for any tenant id (none of its e-mails: an empty list).
        if (!principal.isOperator) {
          if (query.tenantId === undefined) throw manageErrors.operatorOnly('read every tenant’s e-mails');
          await visibleTenant(deps, principal, query.tenantId);
          if (!canManage(principal, query.tenantId)) throw manageErrors.ownerOnly('read e-mails');
        }
        const list = await outbox().list({ pendingOnly: query.pending === 'true', tenantId: query.tenantId, limit: query.limit ?? 50 });
        return ok({
          items: list.map((m) => {
            const { text: _t, html: _h, ...rest } = mailView(m, mail(), readerOf(principal));
            return rest;
          }),
        });
      },
    }),
    manageRoute<{ mailId: string }>(deps, {
      method: 'GET',
      path: '/mail/:mailId',
      operationId: 'getMail',
      summary: 'One e-mail of the outbox, rendered: recipients, status, subject, text and HTML',
      tags: ['mail'],
      params: Type.Object({ mailId: Id('E-mail id.') }),
      responses: { 200: { description: 'The e-mail.', schema: MailSchema } },
      errors: ['e-mail_not_found'],
      handler: async ({ principal, params }) => {
        const m = await outbox().get(params.mailId);
        if (!m || !(principal.isOperator || (m.tenantId !== null && canManage(principal, m.tenantId)))) throw manageErrors.notFound('e-mail', params.mailId);
        return ok(mailView(m, mail(), readerOf(principal)));
      },
    }),
  ];
}
