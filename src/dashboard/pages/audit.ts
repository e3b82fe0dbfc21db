// The audit log of one organisation, newest first, a page at a time (owners and operators;
// the API refuses members, and the page says so). Owners see an operator's change as made by
// "an operator": the API names operators to operators only.
import { Type } from '@sinclair/typebox';
import type { RouteDef } from '../../http/route.js';
import type { AuditEntryView } from '../../manage/api/audit-routes.js';
import { html } from './html.js';
import { formatDate } from './layout.js';
import { getPage, type Dashboard } from './page-kit.js';
import { TenantParams, tenantPath } from './params.js';

const PAGE_SIZE = 50;

/** The diff in a line: field: from → to, or field: value. */
function describeDiff(diff: Record<string, unknown>): string {
  return Object.entries(diff)
    .map(([k, v]) => {
      if (v && typeof v === 'object' && 'from' in v && 'to' in v)
        return `${k}: ${JSON.stringify((v as { from: unknown }).from)} → ${JSON.stringify((v as { to: unknown }).to)}`;
      return `${k}: ${JSON.stringify(v)}`;
    })
    .join('; ');
}

/** Who made the change, as far as the reader may know. */
const who = (e: AuditEntryView) => e.actor.email ?? e.actor.id ?? (e.actor.kind === 'operator' ? 'an operator' : 'someone');

export function auditPages(d: Dashboard): RouteDef[] {
  return [
    getPage<{ before?: string }>(
      d,
      '/t/:tenantId/audit',
      { params: TenantParams, query: { before: Type.Optional(Type.String({ pattern: '^[0-9]{1,18}$' })) }, summary: "An organisation's audit log" },
      async (page) => {
        const tenant = await page.tenant();
        const { items, next } = await page.api.call<{ items: AuditEntryView[]; next: string | null }>('listAuditEntries', {
          query: { tenantId: tenant.id, limit: PAGE_SIZE, before: page.ctx.query.before },
        });
        return {
          title: 'Audit log',
          tenant,
          section: 'audit',
          body: html`<p>Who changed what in ${tenant.name}, when and from where, newest first.</p>
${
  items.length
    ? html`<div class="table-wrap" tabindex="0" role="region" aria-label="Audit log of ${tenant.name}"><table id="audit-table"><caption class="visually-hidden">Audit log of ${tenant.name}</caption>
<thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">Action</th><th scope="col">Object</th><th scope="col">Change</th><th scope="col">From</th></tr></thead>
<tbody>${items.map(
        (e) =>
          html`<tr><td>${formatDate(e.at)}</td><td>${who(e)}</td><td><code>${e.action}</code></td><td>${e.objectType}${e.objectId ? html` <code>${e.objectId}</code>` : ''}</td><td>${describeDiff(e.diff)}</td><td>${e.clientAddress ?? '—'}</td></tr>`,
      )}</tbody></table></div>`
    : html`<p>No entries${page.ctx.query.before ? ' before these' : ''}.</p>`
}
<p class="actions">${page.ctx.query.before ? html`<a href="${page.url(tenantPath(tenant.id, '/audit'))}">Newest entries</a>` : ''}${next ? html`<a href="${page.url(tenantPath(tenant.id, `/audit?before=${next}`))}">Older entries</a>` : ''}</p>`,
        };
      },
    ),
  ];
}
