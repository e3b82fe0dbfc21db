// A tenant's own S3-compatible storage: choosing a provider preset (src/storage/presets.ts)
// fills the endpoint template, region, path style and checksum mode; saving runs the API's live check of the bucket with the credentials first
// (nothing is saved when it fails, and the reason is shown). Credentials are never shown
// back: not in the list, not in a form that failed.
import { ProblemError } from '../../http/problem.js';
import type { RouteDef } from '../../http/route.js';
import type { StorageConfig, Tenant } from '../../tenancy/types.js';
import { FormErrors, checkbox, field, select, type FormFields } from './forms.js';
import { html } from './html.js';
import { csrfField, formatDate, notice, redirect } from './layout.js';
import { getPage, postForm, type Dashboard, type Page } from './page-kit.js';
import { TenantParams, tenantPath } from './params.js';
import { maskedAccessKeyId } from '../../manage/api/storage-routes.js';
import { presetFor, STORAGE_PRESETS, type StoragePreset } from '../../storage/presets.js';
import { canManageTenant } from './apps.js';

/** The preset a form names (an earlier provider name too), else the first. */
const presetOf = (provider: string) => presetFor(provider) ?? STORAGE_PRESETS[0];

/** What the form's script needs of a preset to fill the fields (src/dashboard/assets/client-script.ts). */
function presetData(p: StoragePreset): Record<string, string> {
  return {
    endpoint: p.endpointTemplate ?? '',
    region: p.region.default,
    'region-fixed': String(p.region.fixed),
    'path-style': String(p.forcePathStyle),
    checksums: p.checksums,
    'account-id': String(p.needsAccountId),
    hint: p.hint,
  };
}

const FIELDS = ['provider', 'accountId', 'endpoint', 'region', 'bucket', 'prefix', 'accessKeyId', 'secretAccessKey', 'forcePathStyle', 'checksums'] as const;

type PublicStorage = Omit<StorageConfig, 'secretAccessKeySealed'>;

interface StorageForm {
  provider: string;
  accountId: string;
  endpoint: string;
  region: string;
  bucket: string;
  prefix: string;
  forcePathStyle: boolean;
  checksums: string;
}

/** A new form: the first preset's settings. */
const EMPTY: StorageForm = {
  provider: STORAGE_PRESETS[0].id,
  accountId: '',
  endpoint: STORAGE_PRESETS[0].endpointTemplate ?? '',
  region: STORAGE_PRESETS[0].region.default,
  bucket: '',
  prefix: '',
  forcePathStyle: STORAGE_PRESETS[0].forcePathStyle,
  checksums: STORAGE_PRESETS[0].checksums,
};

/** The access key id as everyone sees it here (owners get it whole from the API): its last four characters. */
function maskedKey(id: string) {
  const masked = maskedAccessKeyId(id);
  return html`<span aria-label="ending in ${masked.slice(-4)}">${masked}</span>`;
}

/** The API's body: the endpoint may still be the preset's template; the API fills {region} and {accountId}. */
function storageBody(form: FormFields) {
  const endpoint = form.optional('endpoint');
  const region = form.optional('region');
  const accountId = form.optional('accountId');
  const checksums = form.optional('checksums');
  return {
    provider: form.get('provider'),
    ...(endpoint ? { endpoint } : {}),
    ...(region ? { region } : {}),
    ...(accountId ? { accountId } : {}),
    bucket: form.get('bucket'),
    prefix: form.get('prefix'),
    accessKeyId: form.get('accessKeyId'),
    secretAccessKey: form.get('secretAccessKey'),
    forcePathStyle: form.get('forcePathStyle') === 'true',
    ...(checksums ? { checksums } : {}),
  };
}

async function storageView(page: Page, tenant: Tenant, v: StorageForm, errors?: FormErrors, status?: number) {
  const { items } = await page.api.call<{ items: PublicStorage[] }>('listStorageConfigs', { params: { tenantId: tenant.id } });
  const owner = canManageTenant(page, tenant.id);
  const preset = presetOf(v.provider);
  return page.view({
    title: 'Storage',
    tenant,
    section: 'storage',
    status,
    body: html`${page.ctx.query.done === 'created' ? notice('ok', 'Storage checked and saved. Choose it for an app on the app’s page.') : ''}
<p>Documents and results are kept in the service’s own storage unless an app is given one of these.</p>
${
  items.length
    ? html`<div class="table-wrap" tabindex="0" role="region" aria-label="Storage of ${tenant.name}"><table><caption>Storage of ${tenant.name}</caption><thead><tr><th scope="col">Provider</th><th scope="col">Bucket</th><th scope="col">Endpoint</th><th scope="col">Region</th><th scope="col">Access key</th><th scope="col">Added</th></tr></thead>
<tbody>${items.map((s) => html`<tr><td>${presetFor(s.provider)?.label ?? s.provider}</td><td>${s.bucket}${s.prefix ? html`/<wbr>${s.prefix}` : ''}</td><td>${s.endpoint ?? 'AWS'}</td><td>${s.region}</td><td>${maskedKey(s.accessKeyId)}</td><td>${formatDate(s.createdAt)}</td></tr>`)}</tbody></table></div>`
    : html`<p>No storage of your own yet.</p>`
}
${
  owner
    ? html`<h2 id="add-storage">Add storage</h2>${errors?.summary()}
<form method="post" action="${page.url(tenantPath(tenant.id, '/storage'))}" class="stack card" aria-labelledby="add-storage">${csrfField(page.user)}
${select({ name: 'provider', label: 'Provider', value: preset.id, errors, attrs: { 'data-presets': 'preset-hint' }, options: STORAGE_PRESETS.map((p) => ({ value: p.id, label: p.label, data: presetData(p) })) })}
<p class="hint" id="preset-hint" aria-live="polite">${preset.hint}</p>
<div id="account-id-field"${preset.needsAccountId || v.accountId ? '' : html` hidden`}>${field({ name: 'accountId', label: 'Account id', value: v.accountId, errors, autocomplete: 'off', hint: 'Fills {accountId} in the endpoint.' })}</div>
${field({ name: 'endpoint', label: 'Endpoint', value: v.endpoint, errors, attrs: { inputmode: 'url', spellcheck: 'false', placeholder: 'https://s3.example.com' }, hint: 'May use {region} and {accountId}; filled from the fields below when saved.' })}
${field({ name: 'region', label: 'Region', value: v.region, errors, hint: `e.g. ${preset.region.examples.join(', ')}` })}
${field({ name: 'bucket', label: 'Bucket', value: v.bucket, required: true, errors })}
${field({ name: 'prefix', label: 'Key prefix', value: v.prefix, errors, hint: 'Optional folder inside the bucket.' })}
${field({ name: 'accessKeyId', label: 'Access key id', required: true, errors, autocomplete: 'off' })}
${field({ name: 'secretAccessKey', label: 'Secret access key', type: 'password', required: true, errors, autocomplete: 'new-password', hint: 'Kept sealed; never shown again, here or anywhere.' })}
${checkbox({ name: 'forcePathStyle', label: 'Path-style addressing (bucket in the path)', checked: v.forcePathStyle, errors })}
${select({
  name: 'checksums',
  label: 'Request checksums',
  value: v.checksums,
  errors,
  hint: 'Many S3-compatible services reject the checksums AWS SDKs send by default.',
  options: [
    { value: 'when_required', label: 'Only when the S3 API requires one' },
    { value: 'when_supported', label: 'Whenever supported (Amazon S3)' },
  ],
})}
<p class="hint">Saving first checks the bucket with these credentials: a probe object is written, read back and deleted; nothing is saved when the check fails.</p>
<div class="actions"><button type="submit">Check and save</button></div></form>`
    : html`<p>Only the organisation's owners add storage.</p>`
}`,
  });
}

export function storagePages(d: Dashboard): RouteDef[] {
  return [
    getPage(d, '/t/:tenantId/storage', { params: TenantParams, summary: "An organisation's storage" }, async (page) =>
      storageView(page, await page.tenant(), EMPTY),
    ),
    postForm(d, '/t/:tenantId/storage', { params: TenantParams, summary: 'Check and save storage' }, async (page, form) => {
      const tenant = await page.tenant();
      try {
        await page.api.call('createStorageConfig', { params: { tenantId: tenant.id }, body: storageBody(form) });
        return redirect(page.url(tenantPath(tenant.id, '/storage?done=created')));
      } catch (err) {
        if (!(err instanceof ProblemError) || err.status >= 500) throw err;
        const errors = FormErrors.fromProblem(err, FIELDS);
        // The live check names no field: say it beside the bucket, where the fix usually is.
        if (err.code === 'storage_unreachable') {
          errors.general.length = 0;
          errors.fields.set('bucket', err.detail ?? err.title);
        }
        const v: StorageForm = {
          provider: form.typed('provider'),
          accountId: form.typed('accountId'),
          endpoint: form.typed('endpoint'),
          region: form.typed('region'),
          bucket: form.typed('bucket'),
          prefix: form.typed('prefix'),
          forcePathStyle: form.typed('forcePathStyle') === 'true',
          checksums: form.typed('checksums'),
        };
        return storageView(page, tenant, v, errors, err.status);
      }
    }),
  ];
}
