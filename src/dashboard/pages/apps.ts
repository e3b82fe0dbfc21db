// Apps: the list and the create form; one app's settings (name, region, allowed domains, plan,
// storage; the database code for operators), enable/disable, secret rotation. A client secret
// appears once, in the answer to the POST that made it (never stored, never shown again).
import { problem, ProblemError } from '../../http/problem.js';
import type { RouteDef } from '../../http/route.js';
import { NO_PLAN_LIMITS, type AppLimits } from '../../tenancy/plan-limits.js';
import type { App, Plan, StorageConfig, Tenant } from '../../tenancy/types.js';
import { FormErrors, field, select, type FormFields } from './forms.js';
import { shownText } from '../display-text.js';
import { html, type Html } from './html.js';
import { actionButton, csrfField, formatDate, formatNumber, notice, redirect } from './layout.js';
import { getPage, postForm, type Dashboard, type Page } from './page-kit.js';
import { AppParams, TenantParams, tenantPath } from './params.js';

interface Choices {
  regions: string[];
  plans: Plan[];
  storage: Omit<StorageConfig, 'secretAccessKeySealed'>[];
  /** On an app's page: its own region and plan, offered even when no longer among the choices (so saving keeps them). */
  own?: { region: string | null; plan: Plan | null };
}

const MiB = 1024 * 1024;

const APP_FIELDS = ['name', 'licenseRegion', 'allowedDomains', 'planId', 'storageConfigId', 'dbCode'] as const;

export const canManageTenant = (page: Page, tenantId: string) => page.user.principal.isOperator || page.user.principal.tenantRoles.get(tenantId) === 'owner';

async function choices(page: Page, tenantId: string): Promise<Choices> {
  const [regions, plans, storage] = await Promise.all([
    page.api.call<{ items: string[] }>('listRegions'),
    page.api.call<{ items: Plan[] }>('listPlans', { query: page.user.principal.isOperator ? { status: 'usable' } : {} }),
    page.api.call<{ items: Choices['storage'] }>('listStorageConfigs', { params: { tenantId } }),
  ]);
  return { regions: regions.items, plans: plans.items, storage: storage.items };
}

/** The choices on an app's page: also its own region and plan (a retired plan is not among the usable ones). */
async function appChoices(page: Page, tenantId: string, app: App): Promise<Choices> {
  const c = await choices(page, tenantId);
  const plan = app.planId ? (c.plans.find((p) => p.id === app.planId) ?? (await page.api.call<Plan>('getPlan', { params: { planId: app.planId } }))) : null;
  return { ...c, own: { region: app.licenseRegion, plan } };
}

/** The app of the URL, only within the URL's tenant. */
async function appOf(page: Page, tenantId: string, appId: string): Promise<App> {
  const app = await page.api.call<App>('getApp', { params: { appId } });
  if (app.tenantId !== tenantId) throw problem('app_not_found', `No app ${JSON.stringify(appId)} in this organisation.`);
  return app;
}

type Limits = Omit<AppLimits, 'planId' | 'storageConfigId'>;

/** The quota and PDF features, for a choice of plan. */
const shortLimits = (l: Limits) =>
  `${formatNumber(l.maxDocumentUnitsPerMonth)} units a month${l.ocrPdfExtraction ? ', OCR' : ''}${l.advancedPdfExtraction ? ', advanced PDF' : ''}`;

const planLabel = (p: Plan) => `${p.name} — ${shortLimits(p)}${p.status === 'retired' ? ' (retired: no tokens until another plan is chosen)' : ''}`;
const NO_PLAN_LABEL = `No plan — ${shortLimits(NO_PLAN_LIMITS)}, the limits of every app without a plan`;

/** Every limit an app works within, in words. */
function limitsText(l: Limits): string {
  const pdf = [l.ocrPdfExtraction ? 'OCR' : '', l.advancedPdfExtraction ? 'advanced extraction' : ''].filter(Boolean).join(' and ');
  return [
    `${formatNumber(l.maxDocumentUnitsPerMonth)} Document Units a month`,
    `files up to ${formatNumber(Math.round(l.maxFileSizeBytes / MiB))} MiB`,
    `${formatNumber(l.maxConcurrentJobs)} unfinished jobs at a time`,
    `uploads at up to ${formatNumber(Math.round(l.maxBytesPerSecond / MiB))} MiB/s`,
    pdf ? `PDF ${pdf}` : 'no OCR or advanced PDF extraction',
  ].join(', ');
}

interface AppFormValues {
  name: string;
  licenseRegion: string;
  allowedDomains: string;
  planId: string;
  storageConfigId: string;
  dbCode: string;
}

/** The regions offered, with the app's own first when it is not one of them (any more). */
function regionOptions(c: Choices): { value: string; label: string }[] {
  const options = c.regions.map((r) => ({ value: r, label: r }));
  const own = c.own?.region;
  if (own === null) return [{ value: '', label: 'None yet' }, ...options];
  if (own !== undefined && !c.regions.includes(own)) return [{ value: own, label: `${own} (no longer offered)` }, ...options];
  return options;
}

/** No plan, the usable plans, and the app's own plan when it is retired. */
function planOptions(c: Choices): { value: string; label: string }[] {
  const own = c.own?.plan;
  const plans = own && !c.plans.some((p) => p.id === own.id) ? [own, ...c.plans] : c.plans;
  return [{ value: '', label: NO_PLAN_LABEL }, ...plans.map((p) => ({ value: p.id, label: planLabel(p) }))];
}

function appFields(page: Page, c: Choices, v: AppFormValues, errors: FormErrors | undefined, withStorage: boolean): Html {
  return html`${field({ name: 'name', label: 'Name', value: v.name, required: true, errors, attrs: { maxlength: '200' } })}
${select({ name: 'licenseRegion', label: 'License region', value: v.licenseRegion, options: regionOptions(c), errors, hint: 'Where the app is licensed to process documents.' })}
${field({ name: 'allowedDomains', label: 'Allowed domains', value: v.allowedDomains, textarea: true, errors, hint: 'Up to three host[:port] entries, one a line (e.g. app.example.com). Browsers on other origins are refused. Leave empty for server-to-server use only.' })}
${select({
  name: 'planId',
  label: 'Plan',
  value: v.planId,
  options: planOptions(c),
  errors,
  hint: 'One of the plans in use. The plan sets the monthly quota and the PDF features.',
})}
${withStorage ? select({ name: 'storageConfigId', label: 'Storage', value: v.storageConfigId, options: [{ value: '', label: "The service's own storage" }, ...c.storage.map((s) => ({ value: s.id, label: `${s.provider}: ${s.bucket}${s.prefix ? '/' + s.prefix : ''}` }))], errors }) : ''}
${page.user.principal.isOperator ? field({ name: 'dbCode', label: 'Database code (operators)', value: v.dbCode, errors, hint: 'An app gets access tokens once it has one.', attrs: { maxlength: '64' } }) : ''}`;
}

/** The API body from the form (the database code only from operators). */
function appBody(page: Page, form: FormFields, forCreate: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = {
    name: form.get('name'),
    licenseRegion: form.get('licenseRegion'),
    allowedDomains: form.lines('allowedDomains'),
    planId: form.optional('planId') ?? null,
  };
  if (!forCreate) body.storageConfigId = form.optional('storageConfigId') ?? null;
  if (page.user.principal.isOperator && (form.optional('dbCode') !== undefined || !forCreate))
    body.dbCode = form.optional('dbCode') ?? (forCreate ? undefined : null);
  return body;
}

/** The settings the form changes: only those go to the API, so a setting the form cannot show as it is (a retired plan, a region no longer offered) is never overwritten. */
function changedSettings(app: App, body: Record<string, unknown>): Record<string, unknown> {
  // An old name with control characters is shown escaped: sent back as shown, it is unchanged.
  const current: Record<string, unknown> = { ...app, name: shownText(app.name), licenseRegion: app.licenseRegion ?? '' };
  return Object.fromEntries(Object.entries(body).filter(([k, v]) => v !== undefined && JSON.stringify(v) !== JSON.stringify(current[k])));
}

/** What was typed, to show the form again. */
function valuesOf(form: FormFields): AppFormValues {
  return {
    name: form.typed('name'),
    licenseRegion: form.typed('licenseRegion'),
    allowedDomains: form.typed('allowedDomains'),
    planId: form.typed('planId'),
    storageConfigId: form.typed('storageConfigId'),
    dbCode: form.typed('dbCode'),
  };
}

/** The page that shows a new secret: the only time anyone sees it. */
function secretView(
  page: Page,
  tenant: Tenant,
  app: App,
  secret: { clientId: string; clientSecret: string; notice: string },
  heading: string,
): Parameters<Page['view']>[0] {
  return {
    title: heading,
    tenant,
    section: 'apps',
    body: html`${notice('warn', html`<p><strong>${secret.notice}</strong> Copy it into your application's configuration or a secret store. If it is lost, rotate the secret to get a new one.</p>`)}
<div class="card"><dl class="facts">
<dt>App</dt><dd>${app.name}</dd>
<dt>Client id</dt><dd><code id="client-id">${secret.clientId}</code></dd>
<dt>Client secret</dt><dd><div class="secret"><code id="client-secret">${secret.clientSecret}</code><button type="button" data-copy="client-secret" data-copy-status="copy-status" hidden>Copy secret</button></div><p id="copy-status" role="status" class="hint"></p></dd>
</dl></div>
<p><a href="${page.url(tenantPath(tenant.id, `/apps/${encodeURIComponent(app.id)}`))}">I have stored it: go to the app</a></p>`,
  };
}

/** The app's webhook signing secret, shown on request (owners only; each showing is audited). */
function webhookSecretView(
  page: Page,
  tenant: Tenant,
  app: App,
  s: { webhookSecret: string | null; rotatedAt: string | null },
  heading: string,
): Parameters<Page['view']>[0] {
  const back = page.url(tenantPath(tenant.id, `/apps/${encodeURIComponent(app.id)}`));
  return {
    title: heading,
    tenant,
    section: 'apps',
    body: s.webhookSecret
      ? html`${notice('warn', html`<p><strong>Keep it secret.</strong> Your webhook receiver verifies the <code>webhook-signature</code> header of every webhook with it (any Standard Webhooks library takes it as it is).</p>`)}
<div class="card"><dl class="facts">
<dt>App</dt><dd>${app.name}</dd>
<dt>Webhook secret</dt><dd><div class="secret"><code id="webhook-secret">${s.webhookSecret}</code><button type="button" data-copy="webhook-secret" data-copy-status="copy-status" hidden>Copy secret</button></div><p id="copy-status" role="status" class="hint"></p></dd>
<dt>Since</dt><dd>${s.rotatedAt ? formatDate(s.rotatedAt) : '—'}</dd>
</dl></div>
<p><a href="${back}">Back to the app</a></p>`
      : html`<p>This app has no webhook secret yet: create one on the app's page before uploading with a <code>callbackUrl</code>.</p><p><a href="${back}">Back to the app</a></p>`,
  };
}

export function appPages(d: Dashboard): RouteDef[] {
  const listView = async (page: Page, tenant: Tenant, c: Choices, values: AppFormValues, errors?: FormErrors, status?: number) => {
    const { items } = await page.api.call<{ items: App[] }>('listApps', { query: { tenantId: tenant.id } });
    const planName = new Map(c.plans.map((p) => [p.id, p.name]));
    const owner = canManageTenant(page, tenant.id);
    const rows = items.map(
      (a) =>
        html`<tr><td><a href="${page.url(tenantPath(tenant.id, `/apps/${encodeURIComponent(a.id)}`))}">${a.name}</a></td><td><code>${a.clientId}</code></td><td>${a.licenseRegion ?? '—'}</td><td>${a.planId ? (planName.get(a.planId) ?? 'a retired plan') : 'none'}</td><td>${a.enabled ? 'enabled' : 'disabled'}</td></tr>`,
    );
    return page.view({
      title: 'Apps',
      tenant,
      section: 'apps',
      status,
      body: html`${page.ctx.query.done === 'deleted' ? notice('ok', 'App deleted.') : ''}
${items.length ? html`<div class="table-wrap" tabindex="0" role="region" aria-label="Apps of ${tenant.name}"><table><caption>Apps of ${tenant.name}</caption><thead><tr><th scope="col">Name</th><th scope="col">Client id</th><th scope="col">Region</th><th scope="col">Plan</th><th scope="col">Status</th></tr></thead><tbody>${rows}</tbody></table></div>` : html`<p>No apps yet.</p>`}
${
  owner
    ? html`<h2 id="create-app">Create an app</h2>${errors?.summary()}<form method="post" action="${page.url(tenantPath(tenant.id, '/apps'))}" class="stack card" aria-labelledby="create-app">${csrfField(page.user)}${appFields(page, c, values, errors, false)}<div class="actions"><button type="submit">Create app</button></div></form>`
    : html`<p>Only the organisation's owners create and change apps.</p>`
}`,
    });
  };
  const empty = (c: Choices): AppFormValues => ({
    name: '',
    licenseRegion: c.regions[0] ?? '',
    allowedDomains: '',
    planId: '',
    storageConfigId: '',
    dbCode: '',
  });

  return [
    getPage(d, '/t/:tenantId/apps', { params: TenantParams, summary: "An organisation's apps" }, async (page) => {
      const tenant = await page.tenant();
      const c = await choices(page, tenant.id);
      return listView(page, tenant, c, empty(c));
    }),
    postForm(d, '/t/:tenantId/apps', { params: TenantParams, summary: 'Create an app' }, async (page, form) => {
      const tenant = await page.tenant();
      try {
        const created = await page.api.call<{ app: App; clientId: string; clientSecret: string; notice: string }>('createApp', {
          params: { tenantId: tenant.id },
          body: appBody(page, form, true),
        });
        return page.view(secretView(page, tenant, created.app, created, `App “${created.app.name}” created`));
      } catch (err) {
        if (!(err instanceof ProblemError) || err.status >= 500) throw err;
        const c = await choices(page, tenant.id);
        return listView(page, tenant, c, valuesOf(form), FormErrors.fromProblem(err, APP_FIELDS), err.status);
      }
    }),
    getPage(d, '/t/:tenantId/apps/:appId', { params: AppParams, summary: 'One app' }, async (page) => {
      const tenant = await page.tenant();
      const app = await appOf(page, tenant.id, page.ctx.params.appId);
      return appView(page, tenant, app, await appChoices(page, tenant.id, app), null);
    }),
    postForm(d, '/t/:tenantId/apps/:appId', { params: AppParams, summary: "Change an app's settings" }, async (page, form) => {
      const tenant = await page.tenant();
      const app = await appOf(page, tenant.id, page.ctx.params.appId);
      const done = (outcome: string) => redirect(page.url(tenantPath(tenant.id, `/apps/${encodeURIComponent(app.id)}?done=${outcome}`)));
      try {
        const changes = changedSettings(app, appBody(page, form, false));
        if (Object.keys(changes).length === 0) return done('unchanged');
        await page.api.call('updateApp', { params: { appId: app.id }, body: changes });
        return done('saved');
      } catch (err) {
        if (!(err instanceof ProblemError) || err.status >= 500) throw err;
        return appView(page, tenant, app, await appChoices(page, tenant.id, app), {
          values: valuesOf(form),
          errors: FormErrors.fromProblem(err, APP_FIELDS),
          status: err.status,
        });
      }
    }),
    ...(['enable', 'disable'] as const).map((verb) =>
      postForm(d, `/t/:tenantId/apps/:appId/${verb}`, { params: AppParams, summary: `${verb} an app` }, async (page) => {
        const tenant = await page.tenant();
        const app = await appOf(page, tenant.id, page.ctx.params.appId);
        await page.api.call(`${verb}App`, { params: { appId: app.id } });
        return redirect(page.url(tenantPath(tenant.id, `/apps/${encodeURIComponent(app.id)}?done=${verb}d`)));
      }),
    ),
    postForm(d, '/t/:tenantId/apps/:appId/rotate-secret', { params: AppParams, summary: "Replace an app's client secret" }, async (page) => {
      const tenant = await page.tenant();
      const app = await appOf(page, tenant.id, page.ctx.params.appId);
      const rotated = await page.api.call<{ app: App; clientId: string; clientSecret: string; notice: string }>('rotateAppSecret', {
        params: { appId: app.id },
      });
      return page.view(secretView(page, tenant, rotated.app, rotated, `New secret for “${rotated.app.name}”`));
    }),
    postForm(d, '/t/:tenantId/apps/:appId/webhook-secret', { params: AppParams, summary: "Show an app's webhook secret" }, async (page) => {
      const tenant = await page.tenant();
      const app = await appOf(page, tenant.id, page.ctx.params.appId);
      const s = await page.api.call<{ webhookSecret: string | null; rotatedAt: string | null }>('getAppWebhookSecret', { params: { appId: app.id } });
      return page.view(webhookSecretView(page, tenant, app, s, `Webhook secret of “${app.name}”`));
    }),
    postForm(d, '/t/:tenantId/apps/:appId/rotate-webhook-secret', { params: AppParams, summary: "Create or replace an app's webhook secret" }, async (page) => {
      const tenant = await page.tenant();
      const app = await appOf(page, tenant.id, page.ctx.params.appId);
      const s = await page.api.call<{ webhookSecret: string; rotatedAt: string }>('rotateAppWebhookSecret', { params: { appId: app.id } });
      return page.view(webhookSecretView(page, tenant, app, s, `New webhook secret for “${app.name}”`));
    }),
  ];
}

const DONE: Record<string, string> = {
  saved: 'Settings saved.',
  unchanged: 'Nothing to save: the settings are as they were.',
  enabled: 'App enabled: it can get access tokens again.',
  disabled: 'App disabled: its next token request is refused.',
};

function appView(page: Page, tenant: Tenant, app: App, c: Choices, failed: { values: AppFormValues; errors: FormErrors; status: number } | null) {
  const owner = canManageTenant(page, tenant.id);
  const values: AppFormValues = failed?.values ?? {
    name: app.name,
    licenseRegion: app.licenseRegion ?? '',
    allowedDomains: app.allowedDomains.join('\n'),
    planId: app.planId ?? '',
    storageConfigId: app.storageConfigId ?? '',
    dbCode: app.dbCode ?? '',
  };
  const plan = c.own?.plan ?? null;
  const base = tenantPath(tenant.id, `/apps/${encodeURIComponent(app.id)}`);
  const done = DONE[page.ctx.query.done ?? ''];
  return page.view({
    title: app.name,
    tenant,
    section: 'apps',
    status: failed?.status,
    body: html`${done ? notice('ok', done) : ''}
${!app.dbCode ? notice('warn', html`<p>This app has no database code yet: it cannot get access tokens until an operator gives it one.</p>`) : ''}
${tenant.state !== 'Active' ? notice('warn', html`<p>The organisation is ${tenant.state.toLowerCase()}: its apps get no access tokens.</p>`) : ''}
<div class="card"><h2>Credentials and status</h2><dl class="facts">
<dt>Client id</dt><dd><code>${app.clientId}</code></dd>
<dt>Client secret</dt><dd>Shown only when it was made. Rotate it to get a new one.</dd>
<dt>Status</dt><dd>${app.enabled ? 'enabled' : 'disabled'}</dd>
<dt>Plan</dt><dd>${plan ? (plan.status === 'retired' ? `${plan.name}, retired: the app gets no tokens until another plan is chosen` : plan.name) : 'No plan'}</dd>
<dt>Limits</dt><dd id="app-limits">${limitsText(plan ?? NO_PLAN_LIMITS)}${plan ? '' : ' (the limits of every app without a plan)'}</dd>
<dt>Created</dt><dd>${formatDate(app.createdAt)}</dd>
</dl>
${
  owner
    ? html`<div class="actions">
${app.enabled ? actionButton(page.user, page.url(`${base}/disable`), 'Disable app', { secondary: true }) : actionButton(page.user, page.url(`${base}/enable`), 'Enable app')}
${actionButton(page.user, page.url(`${base}/rotate-secret`), 'Rotate secret', { danger: true, describedBy: 'rotate-hint' })}
</div><p class="hint" id="rotate-hint">Rotating replaces the secret at once: the old one stops working.</p>`
    : ''
}
</div>
${
  owner
    ? html`<div class="card"><h2 id="webhooks">Webhooks</h2>
<p>Uploads with a <code>callbackUrl</code> are announced to it when they complete, fail or are cancelled, signed with this app's webhook secret (Standard Webhooks). The app needs one before such uploads are accepted.</p>
<div class="actions">
${actionButton(page.user, page.url(`${base}/webhook-secret`), 'Show webhook secret', { secondary: true })}
${actionButton(page.user, page.url(`${base}/rotate-webhook-secret`), 'Create or rotate webhook secret', { danger: true, describedBy: 'webhook-rotate-hint' })}
</div><p class="hint" id="webhook-rotate-hint">Rotating replaces the webhook secret at once: webhooks from then on, retries included, are signed with the new one.</p></div>`
    : ''
}
${
  owner
    ? html`<h2 id="settings">Settings</h2>${failed?.errors.summary()}<form method="post" action="${page.url(base)}" class="stack card" aria-labelledby="settings">${csrfField(page.user)}${appFields(page, c, values, failed?.errors, true)}<div class="actions"><button type="submit">Save settings</button></div></form>`
    : html`<p>Only the organisation's owners change apps.</p>`
}
<p><a href="${page.url(tenantPath(tenant.id, '/apps'))}">All apps</a></p>`,
  });
}
