// The documents API: direct upload, status, batch status, result.
import { randomUUID } from 'node:crypto';
import type { Static } from '@sinclair/typebox';
import type { RouteDef, Reply } from '../http/route.js';
import { problem, problems } from '../http/problem.js';
import { BlobTooLargeError, jobKeys } from '../storage/blob-store.js';
import { JobState, STATUS_NAMES, type JobRecord } from '../jobs/types.js';
import { Intake, peek, tooLarge, type IntakeDeps } from './intake.js';
import { UploadByteRate } from './byte-rate.js';
import { parseCustomMetadata } from './custom-metadata.js';
import { isPendingSessionId } from './uploads.js';
import { Type } from '@sinclair/typebox';
import { ArtifactSchema, BatchStatusBody, BatchStatusResponse, DocumentIdParams, JobStatusSchema, UploadAccepted, UploadQuery } from './schemas.js';

export type DocumentsDeps = IntakeDeps;

export function statusOf(job: JobRecord) {
  return {
    documentId: job.documentId,
    status: STATUS_NAMES[job.statusInt],
    statusInt: job.statusInt,
    startedAt: job.startedAt,
    completedAt: job.completedAt,
    createdAt: job.createdAt,
    expiresAt: job.expiresAt,
    format: job.format,
    fileName: job.fileName,
    sizeBytes: job.sizeBytes,
    attempts: job.attempts,
    documentUnits: job.documentUnits,
    ...(job.statusInt === JobState.Failed && job.error ? { error: job.error } : {}),
  };
}

export function documentRoutes(d: DocumentsDeps, intake = new Intake(d)): RouteDef[] {
  /** The tenant's job for a document id; the records of upload sessions are no documents. */
  const jobOf = (tenantId: string, documentId: string) => (isPendingSessionId(documentId) ? Promise.resolve(null) : d.jobs.get(tenantId, documentId));

  const upload: RouteDef<Static<typeof UploadQuery>> = {
    method: 'POST',
    path: '/api/v1/documents/upload',
    operationId: 'uploadDocument',
    summary: 'Upload a document (raw body) for asynchronous parsing',
    tags: ['documents'],
    auth: 'bearer',
    query: UploadQuery,
    body: { kind: 'raw', description: 'The file bytes, streamed. Content-Type is that of the file.' },
    responses: {
      202: { description: 'Accepted; poll the status endpoint.', schema: UploadAccepted },
    },
    errors: [
      'feature_not_in_plan',
      'app_disabled',
      'document_too_large',
      'unsupported_format',
      'quota_exceeded',
      'rate_limited',
      'engine_unavailable',
      'storage_unavailable',
      'webhook_secret_missing',
    ],
    handler: async (ctx): Promise<Reply> => {
      const p = ctx.principal!;
      const q = ctx.query;
      const limits = await intake.limitsFor(p);
      const callbackUrl = await intake.callbackUrl(p, q.callbackUrl);
      const customMetadata = parseCustomMetadata(q.customMetadataJson);
      const body = ctx.bodyStream;
      if (!body) throw problems.invalidParameter('body', 'The request body is empty: send the file bytes as the body.');
      const maxBytes = Math.min(limits.maxFileSizeBytes, d.directUploadMaxBytes);
      if (body.declaredLength !== null && body.declaredLength > maxBytes) throw tooLarge(maxBytes, limits, d.directUploadMaxBytes);
      const inFlight = await intake.admit(p, limits, body.declaredLength);
      // admit counted a declared length; a chunked body is counted as it arrives.
      const source = body.declaredLength === null ? new UploadByteRate(d.counters, p.appId, limits.maxBytesPerSecond).meter(body) : body;

      // Detect and validate on the first bytes, before anything is stored.
      const { head, all } = await peek(source);
      const { format, options } = intake.classify(head, q, p);

      const documentId = q.documentId ?? randomUUID();
      const generation = randomUUID();
      const uploadKey = jobKeys({ tenantId: p.tenantId, documentId, generation }).upload;
      let written;
      try {
        written = await (await d.blobs.for(limits.storageConfigId)).write(uploadKey, all, { maxBytes });
      } catch (err) {
        if (err instanceof BlobTooLargeError) throw tooLarge(maxBytes, limits, d.directUploadMaxBytes);
        throw err;
      }
      return intake.accept({
        requestId: ctx.requestId,
        principal: p,
        documentId,
        idSuppliedByCaller: q.documentId !== undefined,
        generation,
        uploadKey,
        written,
        format,
        options,
        customMetadata,
        fileName: q.fileName ?? null,
        storageConfigId: limits.storageConfigId,
        callbackUrl,
        inFlight,
      });
    },
  };

  const status: RouteDef = {
    method: 'GET',
    path: '/api/v1/documents/:documentId/status',
    operationId: 'getDocumentStatus',
    summary: "A job's current state",
    tags: ['documents'],
    auth: 'bearer',
    params: DocumentIdParams,
    responses: {
      200: { description: 'The job.', schema: JobStatusSchema },
    },
    errors: ['document_not_found'],
    handler: async (ctx) => {
      const job = await jobOf(ctx.principal!.tenantId, ctx.params.documentId);
      if (!job) throw problems.documentNotFound(ctx.params.documentId);
      const webhook = job.callbackUrl ? await d.webhooks?.describe(job) : undefined;
      return { status: 200, json: webhook ? { ...statusOf(job), webhook } : statusOf(job) };
    },
  };

  const batch: RouteDef<unknown, Static<typeof BatchStatusBody>> = {
    method: 'POST',
    path: '/api/v1/documents/status/batch',
    operationId: 'getDocumentStatusBatch',
    summary: 'Status of up to 100 documents, in request order',
    tags: ['documents'],
    auth: 'bearer',
    body: { kind: 'json', schema: BatchStatusBody, maxBytes: 64 * 1024 },
    responses: {
      200: { description: 'One entry per requested id, in order.', schema: BatchStatusResponse },
    },
    handler: async (ctx) => {
      const ids = ctx.body.documentIds;
      const jobs = (await d.jobs.getMany(ctx.principal!.tenantId, ids)).map((job, i) => (isPendingSessionId(ids[i]) ? null : job));
      return {
        status: 200,
        json: {
          results: ids.map((id, i) => {
            const job = jobs[i];
            return job ? statusOf(job) : { documentId: id, error: { code: 'document_not_found', message: 'unknown or expired document id' } };
          }),
        },
      };
    },
  };

  const result: RouteDef = {
    method: 'GET',
    path: '/api/v1/documents/:documentId/result',
    operationId: 'getDocumentResult',
    summary: 'The parsed JSON artifact',
    tags: ['documents'],
    auth: 'bearer',
    params: DocumentIdParams,
    responses: {
      200: { description: 'The artifact (streamed).', schema: ArtifactSchema },
      202: {
        description: 'Still processing; poll the status endpoint.',
        schema: JobStatusSchema,
        headers: { 'Retry-After': { description: 'Seconds before polling again.', schema: { type: 'integer' } as never } },
      },
    },
    errors: ['document_not_found', 'extraction_failed', 'storage_unavailable'],
    handler: async (ctx) => {
      const job = await jobOf(ctx.principal!.tenantId, ctx.params.documentId);
      if (!job) throw problems.documentNotFound(ctx.params.documentId);
      if (job.statusInt === JobState.Completed && job.artifactKey) {
        const blob = await (await d.blobs.for(job.storageConfigId)).read(job.artifactKey);
        if (!blob) throw problems.documentNotFound(ctx.params.documentId);
        return { status: 200, stream: blob.stream, length: blob.size, contentType: 'application/json' };
      }
      if (job.statusInt === JobState.Failed) {
        throw problems.jobFailed(job.documentId, job.error ?? { code: 'extraction_failed', message: 'extraction failed', stage: 'extract' });
      }
      return { status: 202, headers: { 'Retry-After': '2' }, json: statusOf(job) };
    },
  };

  const part: RouteDef = {
    method: 'GET',
    path: '/api/v1/documents/:documentId/parts/:name',
    operationId: 'getDocumentPart',
    summary: 'An extra part of a completed result (e.g. GIS features past the inline cap)',
    description: 'Parts are named in the artifact (e.g. `content.datasets[].featuresPart`); GeoJSON text sequences are served as application/geo+json-seq.',
    tags: ['documents'],
    auth: 'bearer',
    params: Type.Object({ documentId: DocumentIdParams.properties.documentId, name: Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$' }) }),
    responses: {
      200: { description: 'The part (streamed).', contentType: 'application/octet-stream' },
      202: { description: 'Still processing.', schema: JobStatusSchema },
    },
    errors: ['document_not_found', 'part_not_found', 'storage_unavailable'],
    handler: async (ctx) => {
      const job = await jobOf(ctx.principal!.tenantId, ctx.params.documentId);
      if (!job) throw problems.documentNotFound(ctx.params.documentId);
      if (job.statusInt !== JobState.Completed) {
        if (job.statusInt === JobState.Failed) throw problems.documentNotFound(ctx.params.documentId);
        return { status: 202, headers: { 'Retry-After': '2' }, json: statusOf(job) };
      }
      const blob = await (await d.blobs.for(job.storageConfigId)).read(jobKeys(job).part(ctx.params.name));
      if (!blob) throw problem('part_not_found', `This result has no part named ${JSON.stringify(ctx.params.name)}.`);
      const contentType = ctx.params.name.endsWith('.geojsonseq') ? 'application/geo+json-seq' : 'application/octet-stream';
      return { status: 200, stream: blob.stream, length: blob.size, contentType };
    },
  };

  return [upload, status, batch, result, part];
}
