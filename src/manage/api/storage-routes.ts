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
import { S3BlobStore, type CheckFailure } from '../../storage/s3-blob-store.js';
import { storageSecretContext } from '../../storage/router.js';
import {
  CHECKSUM_MODES,
  PresetRuleError,
  PROVIDER_ALIASES,
  resolveStorageSettings,
  signingRegion,
  STORAGE_PRESETS,
  STORAGE_PROVIDERS,
} from '../../storage/presets.js';
import type { ChecksumMode, StorageConfig } from '../../tenancy/types.js';
import type { ManagePrincipal } from '../principal.js';
import { canManage, canSee, manageErrors, manageRoute, ok, ownedTenant, visibleTenant, type ManageDeps } from './kit.js';
import { Id, list, StorageConfigSchema, StoragePresetSchema, TenantIdParams } from './schemas.js';

/** Provider names a new config may give: the presets' and the earlier ones (other-s3 is custom). */
const ACCEPTED_PROVIDERS = [...STORAGE_PROVIDERS, ...Object.keys(PROVIDER_ALIASES)];

const CreateStorage = Type.Object(
  {
    provider: Type.Optional(
      Type.Union(
        ACCEPTED_PROVIDERS.map((p) => Type.Literal(p)),
        { default: 's3', description: 'A preset (GET /manage/v1/storage-presets); `other-s3`, its earlier name, is saved as `custom`.' },
      ),
    ),
    endpoint: Type.Optional(
      Type.String({
        pattern: '^https?://',
        maxLength: 500,
        description: "S3 endpoint; may use {region} and {accountId}. Omitted: the preset's endpoint template (needed for minio and custom).",
      }),
    ),
    accountId: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: 'Fills {accountId} in the endpoint (Cloudflare R2). Not stored apart from the endpoint.' }),
    ),
    region: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: "Checked against the preset's region rule; omitted: the preset's default." }),
    ),
    bucket: Type.String({ minLength: 1, maxLength: 255 }),
    prefix: Type.Optional(Type.String({ maxLength: 500, default: '' })),
    accessKeyId: Type.String({ minLength: 1, maxLength: 500 }),
    secretAccessKey: Type.String({ minLength: 1, maxLength: 500, description: 'Sealed under the master key; never shown back.' }),
    forcePathStyle: Type.Optional(Type.Boolean({ description: "Omitted: the preset's addressing." })),
    checksums: Type.Optional(
      Type.Union(
        CHECKSUM_MODES.map((m) => Type.Literal(m)),
        {
          description:
            "`when_required`: checksums only where the S3 API requires one (for services that reject the AWS SDK's default CRCs); omitted: the preset's.",
        },
      ),
    ),
    verify: Type.Optional(Type.Boolean({ default: true, description: 'Operators only may set false (save without the bucket check).' })),
  },
  { additionalProperties: false },
);

type CreateBody = {
  provider?: string;
  endpoint?: string;
  accountId?: string;
  checksums?: ChecksumMode;
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

const STEP_TEXT: Record<CheckFailure['step'], string> = {
  bucket: 'could not be reached with these credentials',
  write: 'could not be written to with these credentials',
  read: 'could not be read from with these credentials',
  delete: 'could not be deleted from with these credentials',
};

/** What a failed live check says: the bucket, the step, the fixed reason. */
export function checkFailureText(bucket: string, f: CheckFailure): string {
  const step = f.reason === 'permission denied' || f.step === 'bucket' ? STEP_TEXT[f.step] : STEP_TEXT.bucket;
  return `Bucket ${JSON.stringify(bucket)} ${step}: ${f.reason}`;
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
    manageRoute(deps, {
      method: 'GET',
      path: '/storage-presets',
      operationId: 'listStoragePresets',
      summary: 'The S3-compatible services a storage config may be on, with what each needs',
      description:
        "Each preset gives the endpoint template ({region}, {accountId}), the region rule (a fixed region, or a pattern with examples), the addressing and the checksum mode a new storage config gets when it does not say. `custom` is any other service: its endpoint is the tenant's.",
      tags: ['storage'],
      responses: { 200: { description: 'The presets, in the order the dashboard offers them.', schema: list(StoragePresetSchema) } },
      handler: async () => ok({ items: STORAGE_PRESETS }),
    }),
    manageRoute<{ tenantId: string }, Record<string, never>, CreateBody>(deps, {
      method: 'POST',
      path: '/tenants/:tenantId/storage-configs',
      operationId: 'createStorageConfig',
      summary: "Add the tenant's own S3-compatible storage, after checking the bucket with these credentials (owners only)",
      description:
        "The check is a request the node sends on the tenant's behalf: to public addresses only (loopback, private, link-local, unique-local, CGNAT, multicast, metadata and reserved ones are refused unless the operator allows a range), following no redirect. The check looks the bucket up, then writes, reads back and deletes a probe object under `<prefix>/.docparse-probe/`. A failed check answers 422 `storage_unreachable` with `step` (`bucket`, `write`, `read`, `delete`) and `reason`, one of the fixed terms `endpoint not reachable` (also an address the policy refuses, a closed port, a timeout), `DNS lookup failed`, `TLS handshake failed`, `access denied` (credentials refused), `bucket not found`, `permission denied` (valid credentials not allowed that step) — never the network error. The provider's preset fills the endpoint, region, addressing and checksum mode not given; a region or endpoint its rules refuse answers 400 `invalid_parameter`. A tenant gets 10 checks a minute; the 11th answers 429 `rate_limited` with `Retry-After`, and nothing is sent.",
      tags: ['storage'],
      params: TenantIdParams,
      body: CreateStorage,
      responses: {
        201: { description: 'The storage config (without its secret).', schema: StorageConfigSchema },
      },
      errors: ['owner_required', 'operator_required', 'tenant_not_found', 'invalid_parameter', 'storage_unreachable', 'rate_limited'],
      handler: async ({ principal, params, body, audit }) => {
        const tenant = await ownedTenant(deps, principal, params.tenantId, 'add storage');
        if (body.verify === false && !principal.isOperator) throw manageErrors.operatorOnly('save storage without the bucket check');
        let resolved;
        try {
          resolved = resolveStorageSettings(body);
        } catch (err) {
          if (err instanceof PresetRuleError) throw problems.invalidParameter(err.parameter, `The ${err.message}; nothing was saved.`);
          throw err;
        }
        const settings = {
          endpoint: resolved.endpoint,
          region: resolved.region,
          bucket: body.bucket,
          prefix: (body.prefix ?? '').replace(/^\/+|\/+$/g, ''),
          accessKeyId: body.accessKeyId,
          forcePathStyle: resolved.forcePathStyle,
          checksums: resolved.checksums,
        };
        const refusedUrl = outbound.urlRefusal(settings.endpoint);
        if (refusedUrl) throw problems.invalidParameter('endpoint', `The endpoint ${refusedUrl}.`);
        if (body.verify !== false) {
          await takeCheck(tenant.id);
          const s3 = new S3BlobStore(
            { ...settings, region: signingRegion(resolved.provider, settings.region), secretAccessKey: body.secretAccessKey },
            outbound,
          );
          const failure = await s3.check(BUCKET_CHECK_MS).finally(() => s3.close());
          if (failure) {
            const { reason, step } = failure;
            // Who probed what stays on record for the operator (at most CHECKS_PER_MINUTE a minute).
            await audit({
              action: 'storage.check-failed',
              tenantId: tenant.id,
              objectType: 'storage-config',
              objectId: null,
              diff: { endpoint: settings.endpoint, bucket: settings.bucket, reason, step },
            });
            throw problem('storage_unreachable', `${checkFailureText(settings.bucket, failure)}; nothing was saved.`, {
              bucket: settings.bucket,
              reason,
              step,
            });
          }
        }
        const cfg = await deps.store.createStorageConfig({
          tenantId: tenant.id,
          provider: resolved.provider,
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
            forcePathStyle: cfg.forcePathStyle,
            checksums: cfg.checksums,
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
