// A tenant's own S3-compatible storage: provider presets fill the usual endpoint form and
// path style; saving runs the API's live check of the bucket with the credentials first
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
import { canManageTenant } from './apps.js';

interface Preset {
  id: string;
  label: string;
  /** The endpoint's usual form; {region} is filled from the region field when it is the whole answer. */
  endpoint: string;
  pathStyle: boolean;
  hint: string;
  /** Filled in when the endpoint is left empty. */
  fixedEndpoint?: (region: string) => string;
}

export const STORAGE_PRESETS: Preset[] = [
  { id: 's3', label: 'Amazon S3', endpoint: '', pathStyle: false, hint: 'Leave the endpoint empty; give the bucket’s region (e.g. eu-west-1).' },
  {
    id: 'r2',
    label: 'Cloudflare R2',
    endpoint: 'https://ACCOUNT_ID.r2.cloudflarestorage.com',
    pathStyle: false,
    hint: 'Endpoint https://ACCOUNT_ID.r2.cloudflarestorage.com; region auto.',
  },
  {
    id: 'wasabi',
    label: 'Wasabi',
    endpoint: 'https://s3.REGION.wasabisys.com',
    pathStyle: false,
    hint: 'Endpoint https://s3.REGION.wasabisys.com (filled from the region when left empty).',
    fixedEndpoint: (r) => `https://s3.${r}.wasabisys.com`,
  },
  {
    id: 'gcs-s3',
    label: 'Google Cloud Storage (S3 interoperability)',
    endpoint: 'https://storage.googleapis.com',
    pathStyle: true,
    hint: 'Endpoint https://storage.googleapis.com with an HMAC key; region auto.',
    fixedEndpoint: () => 'https://storage.googleapis.com',
  },
  { id: 'minio', label: 'MinIO', endpoint: 'https://minio.example.com:9000', pathStyle: true, hint: 'Your MinIO server’s address; path-style addressing.' },
  {
    id: 'other-s3',
    label: 'Another S3-compatible service',
    endpoint: 'https://s3.example.com',
    pathStyle: true,
    hint: 'The service’s S3 endpoint; most need path-style addressing.',
  },
];

const FIELDS = ['provider', 'endpoint', 'region', 'bucket', 'prefix', 'accessKeyId', 'secretAccessKey', 'forcePathStyle'] as const;

type PublicStorage = Omit<StorageConfig, 'secretAccessKeySealed'>;

interface StorageForm {
  provider: string;
  endpoint: string;
  region: string;
  bucket: string;
  prefix: string;
  forcePathStyle: boolean;
}

const EMPTY: StorageForm = { provider: 's3', endpoint: '', region: 'us-east-1', bucket: '', prefix: '', forcePathStyle: false };

/** The access key id as everyone sees it here (owners get it whole from the API): its last four characters. */
function maskedKey(id: string) {
  const masked = maskedAccessKeyId(id);
  return html`<span aria-label="ending in ${masked.slice(-4)}">${masked}</span>`;
}

function storageBody(form: FormFields) {
  const preset = STORAGE_PRESETS.find((p) => p.id === form.get('provider'));
  const region = form.optional('region');
  const endpoint = form.optional('endpoint') ?? (preset?.fixedEndpoint && region ? preset.fixedEndpoint(region) : undefined);
  return {
    provider: form.get('provider'),
    ...(endpoint ? { endpoint } : {}),
    ...(region ? { region } : {}),
    bucket: form.get('bucket'),
    prefix: form.get('prefix'),
    accessKeyId: form.get('accessKeyId'),
    secretAccessKey: form.get('secretAccessKey'),
    forcePathStyle: form.get('forcePathStyle') === 'true',
  };
}

async function storageView(page: Page, tenant: Tenant, v: StorageForm, errors?: FormErrors, status?: number) {
  const { items } = await page.api.call<{ items: PublicStorage[] }>('listStorageConfigs', { params: { tenantId: tenant.id } });
  const owner = canManageTenant(page, tenant.id);
  const preset = STORAGE_PRESETS.find((p) => p.id === v.provider) ?? STORAGE_PRESETS[0];
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
<tbody>${items.map((s) => html`<tr><td>${STORAGE_PRESETS.find((p) => p.id === s.provider)?.label ?? s.provider}</td><td>${s.bucket}${s.prefix ? html`/<wbr>${s.prefix}` : ''}</td><td>${s.endpoint ?? 'AWS'}</td><td>${s.region}</td><td>${maskedKey(s.accessKeyId)}</td><td>${formatDate(s.createdAt)}</td></tr>`)}</tbody></table></div>`
    : html`<p>No storage of your own yet.</p>`
}
${
  owner
    ? html`<h2 id="add-storage">Add storage</h2>${errors?.summary()}
<form method="post" action="${page.url(tenantPath(tenant.id, '/storage'))}" class="stack card" aria-labelledby="add-storage">${csrfField(page.user)}
${select({ name: 'provider', label: 'Provider', value: v.provider, errors, attrs: { 'data-presets': 'preset-hint' }, options: STORAGE_PRESETS.map((p) => ({ value: p.id, label: p.label, data: { endpoint: p.endpoint, 'path-style': String(p.pathStyle), hint: p.hint } })) })}
<p class="hint" id="preset-hint" aria-live="polite">${preset.hint}</p>
${field({ name: 'endpoint', label: 'Endpoint', type: 'url', value: v.endpoint, errors, attrs: { placeholder: preset.endpoint }, hint: 'Leave empty for Amazon S3.' })}
${field({ name: 'region', label: 'Region', value: v.region, errors })}
${field({ name: 'bucket', label: 'Bucket', value: v.bucket, required: true, errors })}
${field({ name: 'prefix', label: 'Key prefix', value: v.prefix, errors, hint: 'Optional folder inside the bucket.' })}
${field({ name: 'accessKeyId', label: 'Access key id', required: true, errors, autocomplete: 'off' })}
${field({ name: 'secretAccessKey', label: 'Secret access key', type: 'password', required: true, errors, autocomplete: 'new-password', hint: 'Kept sealed; never shown again, here or anywhere.' })}
${checkbox({ name: 'forcePathStyle', label: 'Path-style addressing (bucket in the path)', checked: v.forcePathStyle, errors })}
<p class="hint">Saving first checks the bucket with these credentials; nothing is saved when the check fails.</p>
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
          endpoint: form.typed('endpoint'),
          region: form.typed('region'),
          bucket: form.typed('bucket'),
          prefix: form.typed('prefix'),
          forcePathStyle: form.typed('forcePathStyle') === 'true',
        };
        return storageView(page, tenant, v, errors, err.status);
      }
    }),
  ];
}
