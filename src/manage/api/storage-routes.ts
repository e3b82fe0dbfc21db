// A tenant's own S3-compatible storage: created only after a live check of the bucket with
// the given credentials (nothing is saved when it fails), the secret sealed under the master
// key and never shown back; listed and read without it — and with the access key id masked
// for members, who only read, and in the audit log; assigned to apps with PATCH /apps.
// The check is a request on the tenant's behalf: it goes through the node's outbound policy
// (no loopback, private, link-local … address; no redirect), answers only a fixed reason
// (never the network error, which would make it a port scanner), and a tenant gets
// CHECKS_PER_MINUTE of them.
import { Type } from '@sinclair/typebox';
import type { RouteDef } from '../../http/route.js';
import { problem, problems } from '../../http/problem.js';
import { S3BlobStore } from '../../storage/s3-blob-store.js';
import { storageSecretContext } from '../../storage/router.js';
import type { StorageConfig } from '../../tenancy/types.js';
import type { ManagePrincipal } from '../principal.js';
import { canManage, canSee, manageErrors, manageRoute, ok, ownedTenant, visibleTenant, type ManageDeps } from './kit.js';
import { Id, list, StorageConfigSchema, TenantIdParams } from './schemas.js';

export const STORAGE_PROVIDERS = ['s3', 'minio', 'r2', 'wasabi', 'gcs-s3', 'other-s3'] as const;

const CreateStorage = Type.Object(
  {
    provider: Type.Optional(
      Type.Union(
        STORAGE_PROVIDERS.map((p) => Type.Literal(p)),
        { default: 's3' },
      ),
    ),
    endpoint: Type.Optional(Type.String({ format: 'uri', pattern: '^https?://', maxLength: 500, description: 'S3-compatible endpoint; omit for AWS.' })),
    region: Type.Optional(Type.String({ minLength: 1, maxLength: 64, default: 'us-east-1' })),
    bucket: Type.String({ minLength: 1, maxLength: 255 }),
    prefix: Type.Optional(Type.String({ maxLength: 500, default: '' })),
    accessKeyId: Type.String({ minLength: 1, maxLength: 500 }),
    secretAccessKey: Type.String({ minLength: 1, maxLength: 500, description: 'Sealed under the master key; never shown back.' }),
    forcePathStyle: Type.Optional(Type.Boolean({ default: false })),
    verify: Type.Optional(Type.Boolean({ default: true, description: 'Operators only may set false (save without the bucket check).' })),
  },
  { additionalProperties: false },
);

type CreateBody = {
  provider?: string;
  endpoint?: string;
  region?: string;
  bucket: string;
  prefix?: string;
  accessKeyId: string;
  secretAccessKey: string;
  forcePathStyle?: boolean;
  verify?: boolean;
};

const MASK = '••••';

/**
 * An access key id as the dashboard shows it, as members (who only read) get it from the API,
 * and as the audit log keeps it: its last four characters, enough to tell keys apart, not to
 * use one. Masking a masked id changes nothing.
 */
export function maskedAccessKeyId(id: string): string {
  return id.startsWith(MASK) ? id : `${MASK}${id.slice(-4)}`;
}

/** A storage config as `reader` sees it: never the sealed secret; the access key id whole only for the tenant's owners and operators. */
export function publicStorageConfig(cfg: StorageConfig, reader: ManagePrincipal): Omit<StorageConfig, 'secretAccessKeySealed'> {
  const { secretAccessKeySealed: _omit, ...rest } = cfg;
  return canManage(reader, cfg.tenantId) ? rest : { ...rest, accessKeyId: maskedAccessKeyId(rest.accessKeyId) };
}

const BUCKET_CHECK_MS = 15_000;
/** Live checks one tenant may ask for per fixed minute (each one is a request the node sends for them). */
export const CHECKS_PER_MINUTE = 10;
const CHECK_WINDOW_SECONDS = 60;

/**
 * @param deps.outbound The node's outbound policy (DOCPARSE_OUTBOUND_ALLOW); without one,
 * public addresses only.
 */
export function storageRoutes(deps: ManageDeps): RouteDef[] {
  const { outbound } = deps;

  /** Takes one of the tenant's checks this minute, or 429 rate_limited until the window ends. */
  async function takeCheck(tenantId: string): Promise<void> {
    const r = await deps.counters.reserveInWindow([{ key: `storage-check:${tenantId}`, limit: CHECKS_PER_MINUTE }], CHECK_WINDOW_SECONDS);
    if (r.taken) return;
    const retryAfter = CHECK_WINDOW_SECONDS - (Math.floor(Date.now() / 1000) % CHECK_WINDOW_SECONDS);
    throw problem(
      'rate_limited',
      `A tenant may check storage ${CHECKS_PER_MINUTE} times a minute; try again in ${retryAfter} s. Nothing was sent or saved.`,
      { limit: CHECKS_PER_MINUTE },
      { 'Retry-After': String(retryAfter) },
    );
  }

  return [
    manageRoute<{ tenantId: string }, Record<string, never>, CreateBody>(deps, {
      method: 'POST',
      path: '/tenants/:tenantId/storage-configs',
      operationId: 'createStorageConfig',
      summary: "Add the tenant's own S3-compatible storage, after checking the bucket with these credentials (owners only)",
      description:
        "The check is a request the node sends on the tenant's behalf: to public addresses only (loopback, private, link-local, unique-local, CGNAT, multicast, metadata and reserved ones are refused unless the operator allows a range), following no redirect. A failed check answers 422 `storage_unreachable` with `reason` `endpoint not reachable`, `access denied` or `bucket not found` — never the network error. A tenant gets 10 checks a minute; the 11th answers 429 `rate_limited` with `Retry-After`, and nothing is sent.",
      tags: ['storage'],
      params: TenantIdParams,
      body: CreateStorage,
      responses: {
        201: { description: 'The storage config (without its secret).', schema: StorageConfigSchema },
      },
      errors: ['owner_required', 'operator_required', 'tenant_not_found', 'storage_unreachable', 'rate_limited'],
      handler: async ({ principal, params, body, audit }) => {
        const tenant = await ownedTenant(deps, principal, params.tenantId, 'add storage');
        if (body.verify === false && !principal.isOperator) throw manageErrors.operatorOnly('save storage without the bucket check');
        const settings = {
          endpoint: body.endpoint?.replace(/\/+$/, '') ?? null,
          region: body.region ?? 'us-east-1',
          bucket: body.bucket,
          prefix: (body.prefix ?? '').replace(/^\/+|\/+$/g, ''),
          accessKeyId: body.accessKeyId,
          forcePathStyle: body.forcePathStyle ?? false,
        };
        const refusedUrl = settings.endpoint ? outbound.urlRefusal(settings.endpoint) : null;
        if (refusedUrl) throw problems.invalidParameter('endpoint', `The endpoint ${refusedUrl}.`);
        if (body.verify !== false) {
          await takeCheck(tenant.id);
          const s3 = new S3BlobStore({ ...settings, secretAccessKey: body.secretAccessKey }, outbound);
          const reason = await s3.check(BUCKET_CHECK_MS).finally(() => s3.close());
          if (reason) {
            // Who probed what stays on record for the operator (at most CHECKS_PER_MINUTE a minute).
            await audit({
              action: 'storage.check-failed',
              tenantId: tenant.id,
              objectType: 'storage-config',
              objectId: null,
              diff: { endpoint: settings.endpoint, bucket: settings.bucket, reason },
            });
            throw problem(
              'storage_unreachable',
              `Bucket ${JSON.stringify(settings.bucket)} could not be reached with these credentials: ${reason}; nothing was saved.`,
              { bucket: settings.bucket, reason },
            );
          }
        }
        const cfg = await deps.store.createStorageConfig({
          tenantId: tenant.id,
          provider: body.provider ?? 's3',
          ...settings,
          secretAccessKeySealed: deps.sealer.seal(body.secretAccessKey, storageSecretContext(tenant.id)),
        });
        await audit({
          action: 'storage.create',
          tenantId: tenant.id,
          objectType: 'storage-config',
          objectId: cfg.id,
          diff: {
            provider: cfg.provider,
            endpoint: cfg.endpoint,
            region: cfg.region,
            bucket: cfg.bucket,
            prefix: cfg.prefix,
            accessKeyId: maskedAccessKeyId(cfg.accessKeyId),
            verified: body.verify !== false,
          },
        });
        return ok(publicStorageConfig(cfg, principal), 201);
      },
    }),
    manageRoute<{ tenantId: string }>(deps, {
      method: 'GET',
      path: '/tenants/:tenantId/storage-configs',
      operationId: 'listStorageConfigs',
      summary: "List a tenant's storage configs",
      tags: ['storage'],
      params: TenantIdParams,
      responses: { 200: { description: 'The storage configs (without secrets).', schema: list(StorageConfigSchema) } },
      errors: ['tenant_not_found'],
      handler: async ({ principal, params }) => {
        const tenant = await visibleTenant(deps, principal, params.tenantId);
        return ok({ items: (await deps.appSettings.listStorageConfigs(tenant.id)).map((cfg) => publicStorageConfig(cfg, principal)) });
      },
    }),
    manageRoute<{ configId: string }>(deps, {
      method: 'GET',
      path: '/storage-configs/:configId',
      operationId: 'getStorageConfig',
      summary: 'Get a storage config (never its secret)',
      tags: ['storage'],
      params: Type.Object({ configId: Id('Storage config id.') }),
      responses: { 200: { description: 'The storage config.', schema: StorageConfigSchema } },
      errors: ['storage_config_not_found'],
      handler: async ({ principal, params }) => {
        const cfg = await deps.store.getStorageConfig(params.configId);
        if (!cfg || !canSee(principal, cfg.tenantId)) throw manageErrors.notFound('storage config', params.configId);
        return ok(publicStorageConfig(cfg, principal));
      },
    }),
  ];
}
