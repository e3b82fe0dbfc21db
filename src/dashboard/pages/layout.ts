// The page shell: landmarks (banner, navigation, main), a skip link, the main navigation and,
// inside a tenant, the tenant's own navigation; the security headers every page carries.
import type { Reply } from '../../http/route.js';
import type { Tenant } from '../../tenancy/types.js';
import type { SignedIn } from '../types.js';
import type { AssetUrls } from './assets.js';
import { html, type Html } from './html.js';

/** Scripts and styles only from this origin's own files; no inline code, no framing. */
export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export const PAGE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
  'X-Frame-Options': 'DENY',
  'Cache-Control': 'no-store',
});

export type TenantSection = 'overview' | 'apps' | 'members' | 'storage' | 'usage' | 'audit';
export type TopSection = 'home' | 'plans' | 'operator' | 'onboarding';

export interface Shell {
  base: string;
  assets: AssetUrls;
  user: SignedIn;
}

export interface PageView {
  title: string;
  body: Html;
  status?: number;
  /** Inside a tenant: its navigation. */
  tenant?: Tenant;
  section?: TenantSection | TopSection;
  /** Pages with a chart load chart.js. */
  chart?: boolean;
}

const TENANT_LINKS: { section: TenantSection; label: string; path: string }[] = [
  { section: 'overview', label: 'Overview', path: '' },
  { section: 'apps', label: 'Apps', path: '/apps' },
  { section: 'members', label: 'Members', path: '/members' },
  { section: 'storage', label: 'Storage', path: '/storage' },
  { section: 'usage', label: 'Usage and billing', path: '/usage' },
  { section: 'audit', label: 'Audit log', path: '/audit' },
];

const current = (on: boolean) => (on ? html` aria-current="page"` : '');

export function tenantStateBadge(state: Tenant['state']): Html {
  const cls = state === 'Active' ? 'active' : state === 'Pending Activation' ? 'pending' : 'off';
  return html`<span class="state ${cls}">${state}</span>`;
}

export function renderPage(shell: Shell, view: PageView): Reply {
  const { base, assets, user } = shell;
  const top: { section: TopSection; label: string; href: string }[] = [
    { section: 'home', label: 'Organisations', href: `${base}/` },
    { section: 'onboarding', label: 'New organisation', href: `${base}/onboarding` },
    { section: 'plans', label: 'Plans', href: `${base}/plans` },
  ];
  if (user.principal.isOperator) top.push({ section: 'operator', label: 'All tenants (operator)', href: `${base}/operator/tenants` });
  const tenantNav = view.tenant
    ? html`<nav class="side" aria-label="${view.tenant.name}"><h2>${view.tenant.name}</h2><ul>${TENANT_LINKS.map(
        (l) => html`<li><a href="${base}/t/${encodeURIComponent(view.tenant!.id)}${l.path}"${current(view.section === l.section)}>${l.label}</a></li>`,
      )}</ul></nav>`
    : '';
  const page = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${view.title} · docparse dashboard</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${assets.css}">
${view.chart ? html`<script src="${assets.chart}" defer></script>` : ''}
<script src="${assets.script}" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to the content</a>
<header class="top">
<a class="brand" href="${base}/">docparse</a>
<nav aria-label="Main"><ul>${top.map((l) => html`<li><a href="${l.href}"${current(view.section === l.section)}>${l.label}</a></li>`)}</ul></nav>
<div class="who"><span>${user.name ?? user.email}${user.principal.isOperator ? ' (operator)' : ''}</span>
<form method="post" action="${base}/auth/logout">${csrfField(user)}<button type="submit">Sign out</button></form>
<form method="post" action="${base}/auth/logout-everywhere">${csrfField(user)}<button type="submit">Sign out everywhere</button></form></div>
</header>
<div class="shell${view.tenant ? '' : ' single'}">
${tenantNav}
<main id="main" tabindex="-1">
<h1>${view.title}</h1>
${view.body}
</main>
</div>
</body>
</html>
`;
  return { status: view.status ?? 200, text: page.value, contentType: 'text/html; charset=utf-8', headers: { ...PAGE_HEADERS } };
}

export const redirect = (location: string): Reply => ({ status: 303, headers: { ...PAGE_HEADERS, Location: location }, empty: true });

/** A hidden CSRF field for every form that changes something. */
export const csrfField = (user: SignedIn) => html`<input type="hidden" name="_csrf" value="${user.csrfToken}">`;

/** A one-button form (activate, disable, rotate…). */
export function actionButton(
  user: SignedIn,
  action: string,
  label: string,
  opts: { danger?: boolean; secondary?: boolean; fields?: Record<string, string>; describedBy?: string } = {},
): Html {
  const cls = opts.danger ? 'danger' : opts.secondary ? 'secondary' : '';
  return html`<form method="post" action="${action}" class="inline">${csrfField(user)}${Object.entries(opts.fields ?? {}).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`)}<button type="submit"${cls ? html` class="${cls}"` : ''}${opts.describedBy ? html` aria-describedby="${opts.describedBy}"` : ''}>${label}</button></form>`;
}

export function notice(kind: 'ok' | 'warn' | 'bad' | 'info', body: Html | string): Html {
  return html`<div class="notice ${kind === 'info' ? '' : kind}" role="${kind === 'bad' ? 'alert' : 'status'}">${body}</div>`;
}

export const formatDate = (iso: string | null) => (iso ? iso.replace('T', ' ').slice(0, 16) + ' UTC' : '—');
export const formatNumber = (n: number) => n.toLocaleString('en-US');
