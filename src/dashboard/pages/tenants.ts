// The organisations a user belongs to, onboarding (create one: it starts Pending Activation)
// and a tenant's overview.
import type { RouteDef } from '../../http/route.js';
import type { App, Tenant, TenantInvitation, TenantMember } from '../../tenancy/types.js';
import type { TenantUsage } from '../../tenancy/billing-store.js';
import { FormErrors, field } from './forms.js';
import { html, type Html } from './html.js';
import { csrfField, formatDate, formatNumber, notice, redirect, tenantStateBadge } from './layout.js';
import { getPage, postForm, type Dashboard, type Page } from './page-kit.js';
import { TenantParams, tenantPath } from './params.js';
import { ProblemError } from '../../http/problem.js';

/** Who the activation e-mail goes to, in words: its owners, else its contact address, else nobody. */
function activationMailTo(t: Tenant, owners: number): string {
  if (owners > 0) return 'its owners get an e-mail';
  if (t.contactEmail) return `an e-mail goes to its contact address, ${t.contactEmail}`;
  return 'nobody is e-mailed, since it has no owner yet (invite one on the Members page)';
}

/** What a tenant's state means for its people, in plain words. */
export function stateExplained(t: Tenant, owners: number): Html {
  if (t.state === 'Pending Activation') {
    return html`<p><strong>Pending activation.</strong> An operator of this service reviews every new organisation and activates it.</p>
<p>What happens next: when it is activated, ${activationMailTo(t, owners)}. Until then you can create apps, invite members and add storage, but the apps cannot get access tokens, so they cannot parse documents yet.</p>`;
  }
  if (t.state === 'Deactivated') return html`<p><strong>Deactivated.</strong> Its apps get no new access tokens. An operator can reactivate it.</p>`;
  return html`<p><strong>Active</strong> since ${formatDate(t.activatedAt)}. Its enabled apps with a database code can get access tokens.</p>`;
}

function roleOf(page: Page, tenantId: string): string {
  return page.user.principal.tenantRoles.get(tenantId) ?? (page.user.principal.isOperator ? 'operator' : '—');
}

function onboardingForm(page: Page, name: string, errors?: FormErrors): Html {
  const intro = page.user.principal.isOperator
    ? html`<p>Create an organisation (a tenant). As a platform operator you manage it without being one of its members: invite its first owner on its Members page. It starts <strong>pending activation</strong>.</p>`
    : html`<p>Create an organisation (a tenant) for your team. You become its owner. It starts <strong>pending activation</strong>: an operator activates it, and you get an e-mail then.</p>`;
  return html`${errors?.summary()}
${intro}
<form method="post" action="${page.url('/onboarding')}" class="stack card">
${csrfField(page.user)}
${field({ name: 'name', label: 'Organisation name', value: name, required: true, errors, autocomplete: 'organization', attrs: { maxlength: '200' } })}
<div class="actions"><button type="submit">Create organisation</button></div>
</form>`;
}

export function tenantPages(d: Dashboard): RouteDef[] {
  return [
    getPage(d, '/', { summary: 'Your organisations' }, async (page) => {
      const { items } = await page.api.call<{ items: Tenant[] }>('listTenants');
      if (items.length === 0 && !page.user.principal.isOperator) return redirect(page.url('/onboarding'));
      const rows = items.map(
        (t) =>
          html`<tr><td><a href="${page.url(tenantPath(t.id))}">${t.name}</a></td><td>${tenantStateBadge(t.state)}</td><td>${roleOf(page, t.id)}</td><td>${formatDate(t.createdAt)}</td></tr>`,
      );
      return {
        title: 'Your organisations',
        section: 'home',
        body: html`${
          items.length === 0
            ? html`<p>You are not a member of any organisation yet.</p>`
            : html`<div class="table-wrap" tabindex="0" role="region" aria-label="Organisations you can see"><table><caption>Organisations you can see</caption>
<thead><tr><th scope="col">Name</th><th scope="col">State</th><th scope="col">Your role</th><th scope="col">Created</th></tr></thead><tbody>${rows}</tbody></table></div>`
        }
<p><a class="button" href="${page.url('/onboarding')}">Create an organisation</a></p>`,
      };
    }),
    getPage(d, '/onboarding', { summary: 'Create an organisation' }, async (page) => ({
      title: 'Create an organisation',
      section: 'onboarding',
      body: onboardingForm(page, ''),
    })),
    postForm(d, '/onboarding', { summary: 'Create an organisation', back: () => `${d.base}/onboarding` }, async (page, form) => {
      try {
        const tenant = await page.api.call<Tenant>('createTenant', { body: { name: form.get('name') } });
        return redirect(page.url(tenantPath(tenant.id, '?done=created')));
      } catch (err) {
        if (!(err instanceof ProblemError) || err.status >= 500) throw err;
        return {
          title: 'Create an organisation',
          section: 'onboarding',
          status: err.status,
          body: onboardingForm(page, form.typed('name'), FormErrors.fromProblem(err, ['name'])),
        };
      }
    }),
    getPage<{ done?: string }>(d, '/t/:tenantId', { params: TenantParams, summary: "An organisation's overview" }, async (page) => {
      const tenant = await page.tenant();
      const month = new Date().toISOString().slice(0, 7);
      const [apps, members, usage] = await Promise.all([
        page.api.call<{ items: App[] }>('listApps', { query: { tenantId: tenant.id } }),
        page.api.call<{ members: TenantMember[]; invitations: TenantInvitation[] }>('listMembers', { params: { tenantId: tenant.id } }),
        page.api.call<TenantUsage>('getTenantUsageByFamily', { params: { tenantId: tenant.id }, query: { month } }),
      ]);
      const kind = tenant.state === 'Active' ? 'ok' : tenant.state === 'Pending Activation' ? 'warn' : 'bad';
      const owners = members.members.filter((m) => m.role === 'owner').length;
      const created =
        page.user.principal.tenantRoles.get(tenant.id) === 'owner'
          ? html`<p>Organisation created. You are its owner.</p>`
          : html`<p>Organisation created. It has no members yet: as an operator you manage it without being one. Invite its first owner on the <a href="${page.url(tenantPath(tenant.id, '/members'))}">Members page</a>.</p>`;
      return {
        title: tenant.name,
        tenant,
        section: 'overview',
        body: html`${page.ctx.query.done === 'created' ? notice('ok', created) : ''}
${notice(kind, stateExplained(tenant, owners))}
<div class="tiles">
<div class="tile"><span class="figure">${formatNumber(apps.items.length)}</span> apps (${formatNumber(apps.items.filter((a) => a.enabled).length)} enabled)</div>
<div class="tile"><span class="figure">${formatNumber(members.members.length)}</span> members, ${formatNumber(members.invitations.length)} invited</div>
<div class="tile"><span class="figure">${formatNumber(usage.totals.units)}</span> Document Units in ${month}</div>
</div>
<div class="card"><h2>Details</h2><dl class="facts">
<dt>State</dt><dd>${tenantStateBadge(tenant.state)}</dd>
<dt>Tenant id</dt><dd><code>${tenant.id}</code></dd>
<dt>Your role</dt><dd>${roleOf(page, tenant.id)}</dd>
<dt>Created</dt><dd>${formatDate(tenant.createdAt)}</dd>
<dt>Activated</dt><dd>${formatDate(tenant.activatedAt)}</dd>
</dl></div>
<ul>
<li><a href="${page.url(tenantPath(tenant.id, '/apps'))}">Create and manage apps</a></li>
<li><a href="${page.url(tenantPath(tenant.id, '/members'))}">Invite members</a></li>
<li><a href="${page.url(tenantPath(tenant.id, '/usage'))}">See usage and statements</a></li>
</ul>`,
      };
    }),
  ];
}
