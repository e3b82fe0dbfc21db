// Shapes of the management API's resources, as the OpenAPI document publishes them. Secrets
// never appear: no secret hash, no sealed storage key; a client secret only in the answers
// that create one (shown once).
import { Type, type TSchema } from '@sinclair/typebox';
import { DISPLAY_NAME_KEYWORD } from '../../http/validation.js';

const Id = (description: string) => Type.String({ minLength: 1, maxLength: 200, description });
const Timestamp = Type.String({ format: 'date-time' });
const Nullable = <T extends TSchema>(s: T) => Type.Union([s, Type.Null()]);

/**
 * A name people give something (tenant, app, plan, operator key, storage config): plain text.
 * Refused with 400 naming the field when it holds a control character (C0, C1, DEL), a
 * bidirectional formatting character or nothing visible; stored in NFC without surrounding
 * space (the x-display-name keyword, src/http/validation.ts).
 */
export const DisplayName = (description: string, maxLength = 200) =>
  Type.String({
    minLength: 1,
    maxLength,
    [DISPLAY_NAME_KEYWORD]: true,
    description: `${description} Plain text: no control or bidirectional formatting characters, at least one visible character; kept in Unicode NFC without surrounding spaces.`,
  });

export const TenantSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  state: Type.Union([Type.Literal('Pending Activation'), Type.Literal('Active'), Type.Literal('Deactivated')]),
  contactEmail: Nullable(Type.String()),
  createdAt: Timestamp,
  activatedAt: Nullable(Timestamp),
});

export const RoleSchema = Type.Union([Type.Literal('owner'), Type.Literal('member')], {
  description: 'owner: manages apps, storage and members; member: reads.',
});

export const MemberSchema = Type.Object({
  tenantId: Type.String(),
  email: Type.String(),
  role: RoleSchema,
  userId: Nullable(Type.String()),
  addedAt: Timestamp,
});

export const InvitationSchema = Type.Object({
  id: Type.String(),
  tenantId: Type.String(),
  email: Type.String(),
  role: RoleSchema,
  invitedBy: Type.String(),
  createdAt: Timestamp,
  acceptedAt: Nullable(Timestamp),
  revokedAt: Nullable(Timestamp),
  mailedAt: Nullable(Timestamp),
});

export const AppSchema = Type.Object({
  id: Type.String(),
  tenantId: Type.String(),
  name: Type.String(),
  licenseRegion: Nullable(Type.String()),
  clientId: Type.String(),
  dbCode: Nullable(Type.String()),
  allowedDomains: Type.Array(Type.String(), { maxItems: 3 }),
  enabled: Type.Boolean(),
  planId: Nullable(Type.String()),
  storageConfigId: Nullable(Type.String()),
  createdAt: Timestamp,
});

export const AppWithSecretSchema = Type.Object({
  app: AppSchema,
  clientId: Type.String(),
  clientSecret: Type.String({ description: 'Shown only in this answer; only its hash is stored.' }),
  notice: Type.String(),
});

export const PlanSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  status: Type.Union([Type.Literal('usable'), Type.Literal('retired')]),
  maxDocumentUnitsPerMonth: Type.Integer(),
  advancedPdfExtraction: Type.Boolean(),
  ocrPdfExtraction: Type.Boolean(),
  maxFileSizeBytes: Type.Integer(),
  maxConcurrentJobs: Type.Integer({ description: 'Unfinished jobs an app may have at once.' }),
  maxBytesPerSecond: Type.Integer(),
  createdAt: Timestamp,
});

export const StorageConfigSchema = Type.Object({
  id: Type.String(),
  tenantId: Type.String(),
  provider: Type.String(),
  endpoint: Nullable(Type.String()),
  region: Type.String(),
  bucket: Type.String(),
  prefix: Type.String(),
  accessKeyId: Type.String({ description: "Whole for the tenant's owners and operators; masked (••••WXYZ, its last four characters) for members." }),
  forcePathStyle: Type.Boolean(),
  checksums: Type.Union([Type.Literal('when_required'), Type.Literal('when_supported')], {
    description: "`when_required`: request checksums only where the S3 API requires one (services that reject the AWS SDK's default CRCs).",
  }),
  createdAt: Timestamp,
});

export const StoragePresetSchema = Type.Object({
  id: Type.String({ description: 'The `provider` of a storage config.' }),
  label: Type.String(),
  endpointTemplate: Nullable(Type.String({ description: 'With {region} and/or {accountId}; null: the tenant gives the endpoint (minio, custom).' })),
  needsAccountId: Type.Boolean({ description: 'The template needs `accountId` (Cloudflare R2).' }),
  region: Type.Object({
    default: Type.String(),
    fixed: Type.Boolean({ description: 'The service takes this region only.' }),
    pattern: Nullable(Type.String({ description: 'A region must match it whole; null: any.' })),
    examples: Type.Array(Type.String()),
    signingRegion: Nullable(Type.String({ description: 'Requests are signed with this region instead (DigitalOcean Spaces).' })),
  }),
  forcePathStyle: Type.Boolean(),
  checksums: Type.Union([Type.Literal('when_required'), Type.Literal('when_supported')]),
  hint: Type.String(),
});

export const SigningKeySchema = Type.Object({
  kid: Type.String(),
  createdAt: Timestamp,
  retiredAt: Nullable(Timestamp),
  signing: Type.Boolean(),
  verifying: Type.Boolean(),
  verifiesUntil: Nullable(Timestamp),
});

export const OperatorKeySchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  createdAt: Timestamp,
  revokedAt: Nullable(Timestamp),
  lastUsedAt: Nullable(Timestamp),
});

export const UsageSchema = Type.Object({
  appId: Type.String(),
  tenantId: Type.String(),
  month: Type.String({ pattern: '^\\d{4}-(0[1-9]|1[0-2])$' }),
  unitsUsed: Type.Integer(),
  quota: Nullable(Type.Integer()),
  planId: Nullable(Type.String()),
  documents: Type.Integer(),
  byFormat: Type.Record(Type.String(), Type.Integer()),
});

export const AuditEntrySchema = Type.Object({
  id: Type.String(),
  at: Timestamp,
  actor: Type.Object(
    { kind: Type.String(), id: Nullable(Type.String()), email: Nullable(Type.String()) },
    { description: "Who: `operator` or `user`. A tenant's owners see an operator by kind only (id, e-mail and the entry's clientAddress null)." },
  ),
  tenantId: Nullable(Type.String()),
  action: Type.String(),
  objectType: Type.String(),
  objectId: Nullable(Type.String()),
  diff: Type.Record(Type.String(), Type.Unknown(), { description: 'Fields that changed; never a secret, storage access key ids masked (••••WXYZ).' }),
  clientAddress: Nullable(Type.String()),
  requestId: Nullable(Type.String()),
});

export const list = <T extends TSchema>(item: T) => Type.Object({ items: Type.Array(item) });

export const TenantIdParams = Type.Object({ tenantId: Id('Tenant id.') });
export const AppIdParams = Type.Object({ appId: Id('App id.') });
export const PlanIdParams = Type.Object({ planId: Id('Plan id.') });
export const MONTH_PATTERN = '^\\d{4}-(0[1-9]|1[0-2])$';
export { Id };
