// For operators: every tenant, with the state transitions the API allows (activate a pending
// one, which e-mails its owners; deactivate; reactivate).
import type { RouteDef } from '../../http/route.js';
import type { Tenant } from '../../tenancy/types.js';
import { html } from './html.js';
import { actionButton, formatDate, notice, redirect, tenantStateBadge } from './layout.js';
import { getPage, postForm, type Dashboard } from './page-kit.js';
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
  activate: 'Tenant activated. Its owners are being e-mailed.',
  deactivate: 'Tenant deactivated: its apps get no new access tokens.',
  reactivate: 'Tenant reactivated.',
};

export function operatorPages(d: Dashboard): RouteDef[] {
  const routes: RouteDef[] = [
    getPage<{ done?: string }>(d, '/operator/tenants', { summary: 'Every tenant (operators)' }, async (page) => {
      if (!page.user.principal.isOperator) throw problem('operator_required', 'Only platform operators see every tenant.');
      const { items } = await page.api.call<{ items: Tenant[] }>('listTenants');
      const pending = items.filter((t) => t.state === 'Pending Activation');
      const sorted = [...pending, ...items.filter((t) => t.state !== 'Pending Activation')];
      const done = DONE[page.ctx.query.done ?? ''];
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
    }),
  ];
  for (const verb of ['activate', 'deactivate', 'reactivate'] as const) {
    routes.push(
      postForm(
        d,
        `/operator/tenants/:tenantId/${verb}`,
        { params: TenantParams, summary: `${verb} a tenant`, back: () => `${d.base}/operator/tenants` },
        async (page) => {
          await page.api.call(`${verb}Tenant`, { params: { tenantId: page.ctx.params.tenantId } });
          return redirect(page.url(`/operator/tenants?done=${verb}`));
        },
      ),
    );
  }
  return routes;
}
