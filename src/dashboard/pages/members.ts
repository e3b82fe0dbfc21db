// Members: who belongs to the organisation and in which role, open invitations, invite by
// e-mail (as owner or member), change a member's role at once (the API refuses to invite
// someone who is a member already), remove a member, revoke an invitation.
import { ProblemError } from '../../http/problem.js';
import type { RouteDef } from '../../http/route.js';
import type { Tenant, TenantInvitation, TenantMember } from '../../tenancy/types.js';
import { FormErrors, field, select } from './forms.js';
import { html } from './html.js';
import { actionButton, csrfField, formatDate, notice, redirect } from './layout.js';
import { getPage, postForm, type Dashboard, type Page } from './page-kit.js';
import { TenantParams, tenantPath } from './params.js';
import { canManageTenant } from './apps.js';

const DONE: Record<string, string> = {
  invited: 'Invitation sent. It becomes a membership when they sign in with that address.',
  role: 'Role changed.',
  removed: 'Member removed.',
  revoked: 'Invitation revoked.',
};

/** Makes an owner a member, or a member an owner, at once. */
const roleButton = (page: Page, base: string, m: TenantMember) => {
  const role = m.role === 'owner' ? 'member' : 'owner';
  return actionButton(page.user, page.url(`${base}/role`), `Make ${m.email} ${role === 'owner' ? 'an owner' : 'a member'}`, {
    secondary: true,
    fields: { email: m.email, role },
  });
};

async function membersView(page: Page, tenant: Tenant, invite: { email: string; role: string }, errors?: FormErrors, status?: number) {
  const { members, invitations } = await page.api.call<{ members: TenantMember[]; invitations: TenantInvitation[] }>('listMembers', {
    params: { tenantId: tenant.id },
  });
  const owner = canManageTenant(page, tenant.id);
  const base = tenantPath(tenant.id, '/members');
  const done = DONE[page.ctx.query.done ?? ''];
  return page.view({
    title: 'Members',
    tenant,
    section: 'members',
    status,
    body: html`${done ? notice('ok', done) : ''}
<div class="table-wrap" tabindex="0" role="region" aria-label="Members of ${tenant.name}"><table><caption>Members of ${tenant.name}</caption>
<thead><tr><th scope="col">E-mail</th><th scope="col">Role</th><th scope="col">Since</th>${owner ? html`<th scope="col">Actions</th>` : ''}</tr></thead>
<tbody>${members.map(
      (m) =>
        html`<tr><td>${m.email}</td><td>${m.role}</td><td>${formatDate(m.addedAt)}</td>${owner ? html`<td>${roleButton(page, base, m)}${actionButton(page.user, page.url(`${base}/remove`), `Remove ${m.email}`, { secondary: true, fields: { email: m.email } })}</td>` : ''}</tr>`,
    )}</tbody></table></div>
<h2>Open invitations</h2>
${
  invitations.length
    ? html`<div class="table-wrap" tabindex="0" role="region" aria-label="Open invitations"><table><caption class="visually-hidden">Open invitations</caption><thead><tr><th scope="col">E-mail</th><th scope="col">Role</th><th scope="col">Invited</th><th scope="col">E-mail sent</th>${owner ? html`<th scope="col">Actions</th>` : ''}</tr></thead>
<tbody>${invitations.map(
        (i) =>
          html`<tr><td>${i.email}</td><td>${i.role}</td><td>${formatDate(i.createdAt)}</td><td>${i.mailedAt ? formatDate(i.mailedAt) : 'not yet'}</td>${owner ? html`<td>${actionButton(page.user, page.url(`${base}/revoke`), `Revoke invitation of ${i.email}`, { secondary: true, fields: { invitationId: i.id } })}</td>` : ''}</tr>`,
      )}</tbody></table></div>`
    : html`<p>None.</p>`
}
${
  owner
    ? html`<h2 id="invite">Invite someone</h2>${errors?.summary()}<form method="post" action="${page.url(`${base}/invite`)}" class="stack card" aria-labelledby="invite">${csrfField(page.user)}
${field({ name: 'email', label: 'E-mail address', type: 'email', value: invite.email, required: true, errors, autocomplete: 'off' })}
${select({
  name: 'role',
  label: 'Role',
  value: invite.role,
  errors,
  options: [
    { value: 'member', label: 'Member: sees apps, usage and billing' },
    { value: 'owner', label: 'Owner: also manages apps, storage and members' },
  ],
  hint: 'To change the role of someone who is a member already, use Make owner or Make member in the list above.',
})}
<div class="actions"><button type="submit">Send invitation</button></div></form>`
    : html`<p>Only the organisation's owners invite and remove members.</p>`
}`,
  });
}

export function memberPages(d: Dashboard): RouteDef[] {
  const back = (tenantId: string, done: string) => `${d.base}${tenantPath(tenantId, `/members?done=${done}`)}`;
  return [
    getPage(d, '/t/:tenantId/members', { params: TenantParams, summary: "An organisation's members" }, async (page) =>
      membersView(page, await page.tenant(), { email: '', role: 'member' }),
    ),
    postForm(d, '/t/:tenantId/members/invite', { params: TenantParams, summary: 'Invite someone' }, async (page, form) => {
      const tenant = await page.tenant();
      try {
        await page.api.call('inviteMember', { params: { tenantId: tenant.id }, body: { email: form.get('email'), role: form.get('role') } });
        return redirect(back(tenant.id, 'invited'));
      } catch (err) {
        if (!(err instanceof ProblemError) || err.status >= 500) throw err;
        return membersView(page, tenant, { email: form.typed('email'), role: form.typed('role') }, FormErrors.fromProblem(err, ['email', 'role']), err.status);
      }
    }),
    postForm(d, '/t/:tenantId/members/role', { params: TenantParams, summary: "Change a member's role" }, async (page, form) => {
      const tenant = await page.tenant();
      await page.api.call('changeMemberRole', { params: { tenantId: tenant.id, email: form.get('email') }, body: { role: form.get('role') } });
      return redirect(back(tenant.id, 'role'));
    }),
    postForm(d, '/t/:tenantId/members/remove', { params: TenantParams, summary: 'Remove a member' }, async (page, form) => {
      const tenant = await page.tenant();
      await page.api.call('removeMember', { params: { tenantId: tenant.id, email: form.get('email') } });
      return redirect(back(tenant.id, 'removed'));
    }),
    postForm(d, '/t/:tenantId/members/revoke', { params: TenantParams, summary: 'Revoke an invitation' }, async (page, form) => {
      const tenant = await page.tenant();
      await page.api.call('revokeInvitation', { params: { tenantId: tenant.id, invitationId: form.get('invitationId') } });
      return redirect(back(tenant.id, 'revoked'));
    }),
  ];
}
