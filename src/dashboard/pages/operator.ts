// For operators: every tenant, with the state transitions the API allows (activate a pending
// one, which e-mails its owners when it has any; deactivate; reactivate). After an activation
// the page says what became of its e-mail, as the outbox has it.
import { Type } from '@sinclair/typebox';
import type { RouteDef } from '../../http/route.js';
import type { MailView } from '../../mail/view.js';
import type { Tenant } from '../../tenancy/types.js';
import { html, type Html } from './html.js';
import { actionButton, formatDate, notice, redirect, tenantStateBadge } from './layout.js';
import { getPage, postForm, type Dashboard, type Page } from './page-kit.js';
import { TenantParams, tenantPath } from './params.js';
import { problem } from '../../http/problem.js';

const ACTIONS: Record<Tenant['state'], { verb: 'activate' | 'deactivate' | 'reactivate'; label: string; danger?: boolean }[]> = {
  'Pending Activation': [
    { verb: 'activate', label: 'Activate' },
    { verb: 'deactivate', label: 'Deactivate', danger: true },
  ],
  Active: [{ verb: 'deactivate', label: 'Deactivate', danger: true }],
  Deactivated: [{ verb: 'reactivate', label: 'Reactivate' }],
};

const DONE: Record<string, string> = {
  activate: 'Tenant activated.',
  deactivate: 'Tenant deactivated: its apps get no new access tokens.',
  reactivate: 'Tenant reactivated.',
};

/** What became of a just-activated tenant's activation e-mail: the newest in its outbox (queued with the activation, if there was anyone to write to). */
async function activationOutcome(page: Page, tenant: Tenant): Promise<Html> {
  const { items } = await page.api.call<{ items: Omit<MailView, 'text' | 'html'>[] }>('listMail', { query: { tenantId: tenant.id, limit: 50 } });
  const mail = items.find((m) => m.template === 'tenant-active');
  if (!mail) {
    return html`<p>${tenant.name} is active. Nobody was e-mailed: it has no owner and no contact address yet. Invite its first owner on its <a href="${page.url(tenantPath(tenant.id, '/members'))}">Members page</a>.</p>`;
  }
  const to = mail.to.join(', ');
  if (mail.status === 'kept') {
    return html`<p>${tenant.name} is active. Its activation e-mail to ${to} is kept in the outbox, unsent: no SMTP server is configured (DOCPARSE_SMTP_URL).</p>`;
  }
  return html`<p>${tenant.name} is active. Its activation e-mail to ${to} ${mail.status === 'sent' ? 'has been sent' : 'is on its way'}.</p>`;
}

export function operatorPages(d: Dashboard): RouteDef[] {
  const routes: RouteDef[] = [
    getPage<{ done?: string; tenant?: string }>(
      d,
      '/operator/tenants',
      { summary: 'Every tenant (operators)', query: { tenant: Type.Optional(Type.String({ maxLength: 200 })) } },
      async (page) => {
        if (!page.user.principal.isOperator) throw problem('operator_required', 'Only platform operators see every tenant.');
        const { items } = await page.api.call<{ items: Tenant[] }>('listTenants');
        const pending = items.filter((t) => t.state === 'Pending Activation');
        const sorted = [...pending, ...items.filter((t) => t.state !== 'Pending Activation')];
        const activated = page.ctx.query.done === 'activate' ? items.find((t) => t.id === page.ctx.query.tenant && t.state === 'Active') : undefined;
        const done = activated ? await activationOutcome(page, activated) : DONE[page.ctx.query.done ?? ''];
        return {
          title: 'All tenants',
          section: 'operator',
          body: html`${done ? notice('ok', done) : ''}
<p>${pending.length ? `${pending.length} waiting for activation, listed first.` : 'No tenant is waiting for activation.'}</p>
<div class="table-wrap" tabindex="0" role="region" aria-label="Tenants (${items.length})"><table><caption>Tenants (${items.length})</caption><thead><tr><th scope="col">Name</th><th scope="col">State</th><th scope="col">Contact</th><th scope="col">Created</th><th scope="col">Actions</th></tr></thead>
<tbody>${sorted.map(
            (t) =>
              html`<tr><td><a href="${page.url(tenantPath(t.id))}">${t.name}</a></td><td>${tenantStateBadge(t.state)}</td><td>${t.contactEmail ?? '—'}</td><td>${formatDate(t.createdAt)}</td><td><div class="actions">${ACTIONS[
                t.state
              ].map((a) =>
                actionButton(page.user, page.url(`/operator/tenants/${encodeURIComponent(t.id)}/${a.verb}`), `${a.label} ${t.name}`, {
                  danger: a.danger,
                  secondary: !a.danger && a.verb !== 'activate',
                }),
              )}</div></td></tr>`,
          )}</tbody></table></div>`,
        };
      },
    ),
  ];
  for (const verb of ['activate', 'deactivate', 'reactivate'] as const) {
    routes.push(
      postForm(
        d,
        `/operator/tenants/:tenantId/${verb}`,
        { params: TenantParams, summary: `${verb} a tenant`, back: () => `${d.base}/operator/tenants` },
        async (page) => {
          const tenantId = page.ctx.params.tenantId;
          await page.api.call(`${verb}Tenant`, { params: { tenantId } });
          return redirect(page.url(`/operator/tenants?done=${verb}&tenant=${encodeURIComponent(tenantId)}`));
        },
      ),
    );
  }
  return routes;
}
