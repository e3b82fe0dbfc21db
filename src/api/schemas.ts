// Schemas of the documents API: they validate requests and generate /openapi/v1.json.
import { Type, type TOptional, type TUnsafe } from '@sinclair/typebox';
import { StringEnum } from '../http/validation.js';
import { DOCUMENT_TYPES, FAMILIES, ROUTING_PARAMETERS } from '../formats/registry.js';
import type { FamilyDescriptor, RoutingParameter } from '../formats/kit/family.js';
import { STATUS_NAMES } from '../jobs/types.js';
import { WebhookStatusSchema } from '../webhooks/schema.js';
import { CompletenessSchema } from '../formats/kit/completeness.js';

/** A family's routing parameter as its declaration describes it (values, required or default, plan features). */
function routingProperty(p: RoutingParameter, family: FamilyDescriptor) {
  const entitled = p.values.filter((v) => v.entitlement).map((v) => `${v.value} needs ${v.entitlement}`);
  const description = p.required
    ? `Required for ${family.title}.${entitled.length ? ` ${entitled.join(', ')}.` : ''}`
    : `${family.title} only; default ${p.default}.`;
  return Type.Optional(
    StringEnum(
      p.values.map((v) => v.value),
      { description },
    ),
  );
}

const routingProperties = Object.fromEntries(ROUTING_PARAMETERS.map(({ parameter, family }) => [parameter.name, routingProperty(parameter, family)])) as Record<
  RoutingParameter['name'],
  TOptional<TUnsafe<string>>
>;
const chunkFamilies = FAMILIES.filter((f) => f.chunks).map((f) => f.title);

const DocumentId = Type.String({
  minLength: 1,
  maxLength: 200,
  pattern: '^[A-Za-z0-9][A-Za-z0-9._:\\-]*$',
  description:
    'Caller-chosen id (letters, digits, ".", "_", ":", "-"; ≤ 200 chars). Re-uploading the same id inside the retention window returns the existing job for the same bytes and options, and overwrites it otherwise.',
});

export const UploadQuery = Type.Object(
  {
    fileName: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'Original file name; its extension helps detection.' })),
    documentId: Type.Optional(DocumentId),
    documentType: Type.Optional(
      StringEnum(DOCUMENT_TYPES, {
        description: 'Format name; required for ZIP-based uploads (ShpZip, MapInfo, FileGdb). Also accepts PDF, DWG, SHP_ZIP spellings.',
      }),
    ),
    ...routingProperties,
    customMetadataJson: Type.Optional(
      Type.String({ maxLength: 65536, description: 'A JSON object (≤ 64 KiB of UTF-8, nested ≤ 32 levels) carried to the artifact as customMetadata.' }),
    ),
    chunkHints: Type.Optional(Type.Boolean({ description: `Produce retrieval chunks (${chunkFamilies.join(', ')}).` })),
    callbackUrl: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2048,
        description:
          'https URL the service POSTs a signed webhook to when the job completes, fails or is cancelled (docs/webhooks.md). The app needs a webhook secret.',
      }),
    ),
  },
  { additionalProperties: false },
);

const Timestamp = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);

export const JobErrorSchema = Type.Object({
  code: Type.String(),
  message: Type.String(),
  stage: Type.String({ description: 'upload, detect, extract, worker or materialize' }),
});

export const UploadAccepted = Type.Object({
  documentId: Type.String(),
  status: Type.String({ description: 'Capitalised state name, "Queued" for a new job.' }),
  statusInt: Type.Integer({ minimum: 0, maximum: 9 }),
});

export const JobStatusSchema = Type.Object({
  documentId: Type.String(),
  status: StringEnum(STATUS_NAMES),
  statusInt: Type.Integer({ minimum: 0, maximum: 9 }),
  startedAt: Timestamp,
  completedAt: Timestamp,
  createdAt: Type.String({ format: 'date-time' }),
  expiresAt: Type.String({ format: 'date-time', description: 'After this, status and result answer 404.' }),
  format: Type.String(),
  fileName: Type.Union([Type.String(), Type.Null()]),
  sizeBytes: Type.Integer(),
  attempts: Type.Integer(),
  documentUnits: Type.Union([Type.Integer(), Type.Null()]),
  error: Type.Optional(JobErrorSchema),
  webhook: Type.Optional(WebhookStatusSchema),
});

export const BatchStatusBody = Type.Object(
  {
    documentIds: Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
      minItems: 1,
      maxItems: 100,
      description: 'Up to 100 ids; results come back in the same order.',
    }),
  },
  { additionalProperties: false },
);

export const BatchStatusResponse = Type.Object({
  results: Type.Array(
    Type.Union([
      JobStatusSchema,
      Type.Object({ documentId: Type.String(), error: Type.Object({ code: Type.Literal('document_not_found'), message: Type.String() }) }),
    ]),
  ),
});

export const DocumentIdParams = Type.Object({ documentId: Type.String({ minLength: 1, maxLength: 200 }) });

/** The artifact envelope shared by every family; `content` is described per family. */
export const ArtifactSchema = Type.Object(
  {
    schema_version: Type.Literal('1.0'),
    document_format: Type.String(),
    documentId: Type.String(),
    fileName: Type.Union([Type.String(), Type.Null()]),
    documentUnits: Type.Integer({ minimum: 0 }),
    metadata: Type.Record(Type.String(), Type.Unknown()),
    content: Type.Unknown({ description: 'Shape per family; see the *Content schemas.' }),
    customMetadata: Type.Record(Type.String(), Type.Unknown()),
    warnings: Type.Array(Type.String()),
    completeness: CompletenessSchema,
    chunks: Type.Optional(Type.Array(Type.Unknown())),
  },
  { additionalProperties: true },
);
