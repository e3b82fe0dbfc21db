// `docparse admin mail list|show`: the outbox (without DOCPARSE_SMTP_URL e-mails are kept
// there, not sent), rendered as the node renders them.
import { NotFoundError } from '../../tenancy/types.js';
import type { AdminCommand } from '../command-table.js';
import { emit, mailStatus, table } from '../command-output.js';
import { parseCount, str } from '../command-values.js';

export const mailCommands: AdminCommand[] = [
  {
    name: 'mail list',
    usage: 'mail list [--pending] [--tenant TENANT_ID] [--limit N]',
    summary: 'e-mails in the outbox, newest first (without DOCPARSE_SMTP_URL they are kept there, not sent)',
    options: { pending: { type: 'boolean' }, tenant: { type: 'string' }, limit: { type: 'string' } },
    positionals: 0,
    async run(ctx) {
      const limit = parseCount(str(ctx.values, 'limit') ?? '50', '--limit', 1);
      const views = await ctx.api.mailList({ pendingOnly: ctx.values.pending === true, tenantId: str(ctx.values, 'tenant'), limit });
      emit(
        ctx,
        views,
        views.length === 0
          ? ['No e-mails.']
          : table([
              ['ID', 'CREATED', 'STATUS', 'TO', 'SUBJECT'],
              ...views.map((m) => [m.id, m.createdAt, mailStatus(m), m.to.join(', '), m.subject ?? `(${m.problem})`]),
            ]),
      );
    },
  },
  {
    name: 'mail show',
    usage: 'mail show MAIL_ID',
    summary: 'one e-mail of the outbox: recipients, status, subject, the text (and, with --json, the HTML)',
    options: {},
    positionals: 1,
    async run(ctx) {
      const v = await ctx.api.mailShow(ctx.positionals[0]);
      if (!v) throw new NotFoundError('e-mail', ctx.positionals[0]);
      emit(ctx, v, [
        `E-mail ${v.id} (${v.template})`,
        `  status:       ${mailStatus(v)}`,
        ...(v.lastError ? [`  last error:   ${v.lastError}`] : []),
        `  from:         ${v.from}`,
        `  to:           ${v.to.join(', ')}`,
        `  subject:      ${v.subject ?? `(${v.problem})`}`,
        '',
        ...(v.text ?? '').replace(/\n$/, '').split('\n'),
      ]);
    },
  },
];
