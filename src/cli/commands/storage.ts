// `docparse admin storage create` and `app set-storage`: a tenant's own S3-compatible
// storage. The bucket is checked with the given credentials unless --no-verify; a bucket
// that cannot be reached is saved anyway, with a warning. These commands say their
// refusals without "error: " on stdout and bad options on stderr, as they always have.
import { PROVIDER_ALIASES, STORAGE_PROVIDERS } from '../../storage/presets.js';
import type { AdminCommand } from '../command-table.js';
import type { Out } from '../command-output.js';

/** The presets' providers, and other-s3 (custom's earlier name). */
const PROVIDERS: string[] = [...STORAGE_PROVIDERS, ...Object.keys(PROVIDER_ALIASES)];
const SET_STORAGE_USAGE = 'usage: docparse admin app set-storage <app-id> <storage-config-id|none>';
const STORAGE_USAGE =
  'usage: docparse admin storage create --tenant T --bucket B --access-key-id K --secret-access-key S [--provider s3|r2|b2|wasabi|spaces|gcs-s3|minio|custom] [--endpoint URL] [--account-id ID] [--region R] [--prefix P] [--path-style] [--no-verify]\n       docparse admin app set-storage <app-id> <storage-config-id|none>';

/** What `docparse admin storage` answers to an action it does not have. */
export function storageUsage(out: Out): number {
  out(STORAGE_USAGE);
  return 2;
}

export const storageCreate: AdminCommand = {
  name: 'storage create',
  usage:
    'storage create --tenant T --bucket B --access-key-id K --secret-access-key S [--provider s3|r2|b2|wasabi|spaces|gcs-s3|minio|custom] [--endpoint URL] [--account-id ID] [--region R] [--prefix P] [--path-style] [--no-verify]',
  summary: "a tenant's own S3-compatible storage (the secret key is sealed with the master key; the bucket is checked unless --no-verify)",
  options: {
    tenant: { type: 'string' },
    provider: { type: 'string', default: 's3' },
    endpoint: { type: 'string' },
    'account-id': { type: 'string' },
    region: { type: 'string' },
    bucket: { type: 'string' },
    prefix: { type: 'string', default: '' },
    'access-key-id': { type: 'string' },
    'secret-access-key': { type: 'string' },
    'path-style': { type: 'boolean' },
    'no-verify': { type: 'boolean', default: false },
  },
  positionals: 0,
  refusals: 'stderr',
  async run({ values, json, api, out }) {
    const missing = ['tenant', 'bucket', 'access-key-id', 'secret-access-key'].filter((k) => !values[k]);
    if (missing.length) {
      out(`storage create: missing ${missing.map((m) => `--${m}`).join(', ')}`);
      return 2;
    }
    const provider = values.provider as string;
    if (!PROVIDERS.includes(provider)) {
      out(`storage create: --provider must be one of ${PROVIDERS.join(', ')}`);
      return 2;
    }
    const tenantId = values.tenant as string;
    if (!(await api.tenant(tenantId))) {
      out(`tenant ${tenantId} not found`);
      return 1;
    }
    const { config, unreachable } = await api.createStorageConfig(
      {
        tenantId,
        provider,
        endpoint: (values.endpoint as string | undefined) ?? null,
        region: values.region as string | undefined,
        accountId: values['account-id'] as string | undefined,
        bucket: values.bucket as string,
        prefix: values.prefix as string,
        accessKeyId: values['access-key-id'] as string,
        secretAccessKey: values['secret-access-key'] as string,
        // Unsaid: the preset's addressing.
        forcePathStyle: values['path-style'] === true ? true : undefined,
      },
      values['no-verify'] !== true,
    );
    if (unreachable !== null) out(`warning: bucket ${config.bucket} is not reachable with these credentials (${unreachable})`);
    out(json ? JSON.stringify(config) : `storage config ${config.id} (${config.provider} ${config.endpoint ?? 'aws'} bucket ${config.bucket})`);
  },
};

export const appSetStorage: AdminCommand = {
  name: 'app set-storage',
  usage: 'app set-storage APP_ID STORAGE_CONFIG_ID|none',
  summary: "store an app's documents in one of its tenant's storage configs, or in the node storage again (none)",
  options: null,
  refusals: 'stderr',
  async run({ positionals, json, api, out }) {
    const [appId, configId] = positionals;
    if (!appId || !configId) {
      out(SET_STORAGE_USAGE);
      return 2;
    }
    const app = await api.app(appId);
    if (!app) {
      out(`app ${appId} not found`);
      return 1;
    }
    if (configId !== 'none') {
      const cfg = await api.storageConfig(configId);
      if (!cfg || cfg.tenantId !== app.tenantId) {
        out(`storage config ${configId} not found for the app's tenant`);
        return 1;
      }
    }
    const updated = await api.updateApp(appId, { storageConfigId: configId === 'none' ? null : configId });
    out(
      json
        ? JSON.stringify({ appId: updated.id, storageConfigId: updated.storageConfigId })
        : `app ${updated.id} now stores documents in ${updated.storageConfigId ?? 'the node storage'}`,
    );
  },
};
