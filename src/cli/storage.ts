// `docparse admin storage create|show` and `docparse admin app set-storage`: a tenant's own
// S3-compatible storage. The secret key is sealed with the master key before it is stored,
// and the bucket is checked with the given credentials unless --no-verify.
import { parseArgs } from 'node:util';
import type { Sealer } from '../crypto/sealed.js';
import type { ControlPlaneStore } from '../tenancy/types.js';
import { s3StoreFor, storageSecretContext } from '../storage/router.js';

const PROVIDERS = ['s3', 'minio', 'r2', 'wasabi', 'gcs-s3', 'other-s3'];

export async function runStorageAdmin(argv: string[], store: ControlPlaneStore, sealer: Sealer, out: (line: string) => void): Promise<number> {
  const [group, verb, ...rest] = argv;
  if (group === 'storage' && verb === 'create') {
    const { values } = parseArgs({
      args: rest,
      options: {
        tenant: { type: 'string' }, provider: { type: 'string', default: 's3' }, endpoint: { type: 'string' },
        region: { type: 'string', default: 'us-east-1' }, bucket: { type: 'string' }, prefix: { type: 'string', default: '' },
        'access-key-id': { type: 'string' }, 'secret-access-key': { type: 'string' }, 'path-style': { type: 'boolean', default: false },
        'no-verify': { type: 'boolean', default: false }, json: { type: 'boolean', default: false },
      },
      strict: true,
    });
    const missing = ['tenant', 'bucket', 'access-key-id', 'secret-access-key'].filter((k) => !values[k as keyof typeof values]);
    if (missing.length) {
      out(`storage create: missing ${missing.map((m) => `--${m}`).join(', ')}`);
      return 2;
    }
    if (!PROVIDERS.includes(values.provider!)) {
      out(`storage create: --provider must be one of ${PROVIDERS.join(', ')}`);
      return 2;
    }
    if (!(await store.getTenant(values.tenant!))) {
      out(`tenant ${values.tenant} not found`);
      return 1;
    }
    const cfg = await store.createStorageConfig({
      tenantId: values.tenant!,
      provider: values.provider!,
      endpoint: values.endpoint ?? null,
      region: values.region!,
      bucket: values.bucket!,
      prefix: values.prefix!,
      accessKeyId: values['access-key-id']!,
      secretAccessKeySealed: sealer.seal(values['secret-access-key']!, storageSecretContext(values.tenant!)),
      forcePathStyle: values['path-style']!,
    });
    if (!values['no-verify']) {
      const s3 = s3StoreFor(cfg, sealer);
      try {
        await s3.ping();
      } catch (err) {
        out(`warning: bucket ${cfg.bucket} is not reachable with these credentials (${(err as Error).name}: ${(err as Error).message})`);
      } finally {
        s3.close();
      }
    }
    const shown = { ...cfg, secretAccessKeySealed: undefined };
    out(values.json ? JSON.stringify(shown) : `storage config ${cfg.id} (${cfg.provider} ${cfg.endpoint ?? 'aws'} bucket ${cfg.bucket})`);
    return 0;
  }
  if (group === 'app' && verb === 'set-storage') {
    const [appId, configId] = rest.filter((a) => !a.startsWith('--'));
    if (!appId || !configId) {
      out('usage: docparse admin app set-storage <app-id> <storage-config-id|none>');
      return 2;
    }
    const app = await store.getApp(appId);
    if (!app) {
      out(`app ${appId} not found`);
      return 1;
    }
    if (configId !== 'none') {
      const cfg = await store.getStorageConfig(configId);
      if (!cfg || cfg.tenantId !== app.tenantId) {
        out(`storage config ${configId} not found for the app's tenant`);
        return 1;
      }
    }
    const updated = await store.setAppStorageConfig(appId, configId === 'none' ? null : configId);
    out(rest.includes('--json') ? JSON.stringify({ appId: updated.id, storageConfigId: updated.storageConfigId }) : `app ${updated.id} now stores documents in ${updated.storageConfigId ?? 'the node storage'}`);
    return 0;
  }
  out('usage: docparse admin storage create --tenant T --bucket B --access-key-id K --secret-access-key S [--endpoint URL] [--region R] [--prefix P] [--provider s3|minio|r2|…] [--path-style] [--no-verify]\n       docparse admin app set-storage <app-id> <storage-config-id|none>');
  return 2;
}
