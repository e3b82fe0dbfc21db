// The documents API: direct upload, status, batch status, result.
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Static } from '@sinclair/typebox';
import type { RouteDef, RequestContext, Principal, Reply } from '../http/route.js';
import { ProblemError, problems } from '../http/problem.js';
import { ClientAbortedError } from '../http/body.js';
import { BlobTooLargeError, jobPrefix, type BlobStore } from '../storage/blob-store.js';
import { JobState, STATUS_NAMES, type JobOptions, type JobQueue, type JobRecord, type JobStore, type RateCounters } from '../jobs/types.js';
import type { ControlPlaneStore } from '../tenancy/types.js';
import { detectFormat } from '../pipeline/detect.js';
import { isSupported, laneFor, supportedFormats } from '../formats/registry.js';
import { monthOf } from '../pipeline/worker-loop.js';
import type { AppLimits, LimitsCache } from './limits.js';
import {
  ArtifactSchema, BatchStatusBody, BatchStatusResponse, DocumentIdParams, JobStatusSchema, UploadAccepted, UploadQuery,
} from './schemas.js';

export interface DocumentsDeps {
  jobs: JobStore;
  queue: JobQueue;
  blobs: BlobStore;
  counters: RateCounters;
  limits: LimitsCache;
  controlPlane: ControlPlaneStore;
  retentionSeconds: number;
  directUploadMaxBytes: number;
  logger: Logger;
}

const HEAD_BYTES = 8192;
const RATE_WINDOW_SECONDS = 10;

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

const capitalised = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

function parseCustomMetadata(raw: string | undefined): Record<string, unknown> | null {
  if (raw === undefined) return null;
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch (e) {
    throw problems.invalidParameter('customMetadataJson', `customMetadataJson is not valid JSON: ${(e as Error).message}`);
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) {
    throw problems.invalidParameter('customMetadataJson', 'customMetadataJson must be a JSON object, e.g. {"source":"crm"}.');
  }
  return v as Record<string, unknown>;
}

/** Routing options that apply to the detected format; missing required ones are 400. */
function routingOptions(format: string, q: Static<typeof UploadQuery>, principal: Principal): JobOptions {
  const options: JobOptions = {};
  if (q.chunkHints !== undefined) options.chunkHints = q.chunkHints;
  if (q.documentType) options.documentType = q.documentType;
  if (format === 'csv') {
    if (!q.csvRoute) throw problems.invalidParameter('csvRoute', 'CSV uploads need csvRoute.', ['Spatial', 'Tabular']);
    options.csvRoute = q.csvRoute;
  }
  if (format === 'sql') {
    if (!q.sqlDialect) throw problems.invalidParameter('sqlDialect', 'SQL uploads need sqlDialect.', ['PostgreSql', 'MsSql', 'Snowflake', 'MySql', 'BigQuery', 'Sqlite', 'Oracle']);
    options.sqlDialect = q.sqlDialect;
  }
  if (format === 'pdf') {
    if (!q.pdfMode) throw problems.invalidParameter('pdfMode', 'PDF uploads need pdfMode.', ['SingleColumn', 'MultiColumn', 'Ocr', 'Advanced']);
    const ent = principal.entitlements;
    if (q.pdfMode === 'Ocr' && !ent?.ocrPdfExtraction) {
      throw new ProblemError(403, 'feature_not_in_plan', 'Feature not in plan', 'pdfMode=Ocr needs a plan with ocrPdfExtraction.', { feature: 'ocrPdfExtraction' });
    }
    if (q.pdfMode === 'Advanced' && !ent?.advancedPdfExtraction) {
      throw new ProblemError(403, 'feature_not_in_plan', 'Feature not in plan', 'pdfMode=Advanced needs a plan with advancedPdfExtraction.', { feature: 'advancedPdfExtraction' });
    }
    options.pdfMode = q.pdfMode;
  }
  if (format === 'parquet') options.parquetMode = q.parquetMode ?? 'MetadataOnly';
  return options;
}

/** Reads the first bytes of the body for detection and gives back a stream of the whole body. */
async function peek(body: AsyncIterable<Buffer>): Promise<{ head: Buffer; all: AsyncIterable<Buffer> }> {
  const it = body[Symbol.asyncIterator]();
  const first: Buffer[] = [];
  let size = 0;
  let done = false;
  while (size < HEAD_BYTES) {
    const r = await it.next();
    if (r.done) {
      done = true;
      break;
    }
    first.push(r.value);
    size += r.value.length;
  }
  const all = (async function* () {
    yield* first;
    if (done) return;
    for (;;) {
      const r = await it.next();
      if (r.done) return;
      yield r.value;
    }
  })();
  return { head: Buffer.concat(first).subarray(0, HEAD_BYTES), all };
}

function tooLarge(limit: number, limits: AppLimits, directMax: number): ProblemError {
  const byPlan = limit === limits.maxFileSizeBytes;
  return new ProblemError(
    413,
    'document_too_large',
    'Document too large',
    byPlan
      ? `The file exceeds your plan's maximum file size of ${limits.maxFileSizeBytes} bytes.`
      : `Direct uploads are limited to ${directMax} bytes; use POST /api/v1/documents/upload-request for larger files.`,
    { maxBytes: limit },
  );
}

export function documentRoutes(d: DocumentsDeps): RouteDef[] {
  async function checkAdmission(ctx: RequestContext, p: Principal, limits: AppLimits, declared: number | null): Promise<void> {
    const quota = p.entitlements?.maxDocumentUnitsPerMonth ?? limits.maxDocumentUnitsPerMonth;
    const used = await d.controlPlane.unitsUsed(p.appId, monthOf(new Date()));
    if (used >= quota) {
      throw new ProblemError(429, 'quota_exceeded', 'Quota exceeded', `This app has used ${used} of its ${quota} Document Units this month.`, { used, quota });
    }
    const unfinished = await d.jobs.countUnfinished(p.appId);
    if (unfinished >= limits.maxConcurrentJobs) {
      throw new ProblemError(429, 'rate_limited', 'Too many jobs in flight', `This app has ${unfinished} unfinished jobs; its plan allows ${limits.maxConcurrentJobs} at once.`, { limit: limits.maxConcurrentJobs }, { 'Retry-After': '5' });
    }
    if (declared !== null) {
      const windowBytes = await d.counters.addToWindow(`upload-bytes:${p.appId}`, declared, RATE_WINDOW_SECONDS);
      if (windowBytes > limits.maxBytesPerSecond * RATE_WINDOW_SECONDS) {
        throw new ProblemError(429, 'rate_limited', 'Upload rate exceeded', `This app may upload ${limits.maxBytesPerSecond} bytes per second (averaged over ${RATE_WINDOW_SECONDS} s).`, { limit: limits.maxBytesPerSecond }, { 'Retry-After': String(RATE_WINDOW_SECONDS) });
      }
    }
    void ctx;
  }

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
      400: { description: 'invalid_parameter: a routing parameter is missing or invalid.' },
      401: { description: 'missing_token, token_expired or invalid_token.' },
      403: { description: 'domain_not_allowed or feature_not_in_plan.' },
      413: { description: 'document_too_large.' },
      415: { description: 'unsupported_format.' },
      429: { description: 'quota_exceeded or rate_limited.' },
    },
    handler: async (ctx): Promise<Reply> => {
      const p = ctx.principal!;
      const q = ctx.query;
      const limits = await d.limits.forApp(p.appId);
      if (!limits) throw new ProblemError(403, 'app_disabled', 'App disabled', 'This app is disabled or no longer exists.');
      const customMetadata = parseCustomMetadata(q.customMetadataJson);
      const body = ctx.bodyStream;
      if (!body) throw problems.invalidParameter('body', 'The request body is empty: send the file bytes as the body.');
      const maxBytes = Math.min(limits.maxFileSizeBytes, d.directUploadMaxBytes);
      if (body.declaredLength !== null && body.declaredLength > maxBytes) throw tooLarge(maxBytes, limits, d.directUploadMaxBytes);
      await checkAdmission(ctx, p, limits, body.declaredLength);

      const { head, all } = await peek(body);
      if (head.length === 0) throw problems.invalidParameter('body', 'The request body is empty: send the file bytes as the body.');
      const detection = detectFormat(head, q.fileName, q.documentType);
      const options = routingOptions(detection.format, q, p);
      if (!isSupported(detection.format)) {
        throw new ProblemError(415, 'unsupported_format', 'Format not supported yet', `${detection.format} documents are not supported by this version. Supported: ${supportedFormats().join(', ')}.`, { format: detection.format, supported: supportedFormats() });
      }

      const documentId = q.documentId ?? randomUUID();
      const generation = randomUUID();
      const prefix = jobPrefix(p.tenantId, documentId, generation);
      const uploadKey = `${prefix}/upload`;
      let written;
      try {
        written = await d.blobs.write(uploadKey, all, { maxBytes });
      } catch (err) {
        if (err instanceof BlobTooLargeError) throw tooLarge(maxBytes, limits, d.directUploadMaxBytes);
        if (err instanceof ClientAbortedError) throw err;
        throw err;
      }

      const existing = q.documentId ? await d.jobs.get(p.tenantId, documentId) : null;
      if (existing && existing.sha256 === written.sha256 && existing.format === detection.format && JSON.stringify(existing.options) === JSON.stringify(options) && existing.statusInt !== JobState.Failed) {
        // Same bytes, same options: the existing job stands, nothing is charged again.
        await d.blobs.deletePrefix(prefix);
        return {
          status: 202,
          headers: { 'Idempotent-Replayed': 'true' },
          json: { documentId, status: capitalised(STATUS_NAMES[existing.statusInt]), statusInt: existing.statusInt },
        };
      }

      const now = new Date();
      const lane = laneFor(detection.format, options);
      const record: JobRecord = {
        tenantId: p.tenantId,
        appId: p.appId,
        documentId,
        generation,
        statusInt: JobState.Received,
        format: detection.format,
        lane,
        fileName: q.fileName ?? null,
        options,
        customMetadata,
        uploadKey,
        sizeBytes: written.bytes,
        sha256: written.sha256,
        attempts: 0,
        createdAt: now.toISOString(),
        updatedAt: now.toISOString(),
        startedAt: null,
        completedAt: null,
        expiresAt: new Date(now.getTime() + d.retentionSeconds * 1000).toISOString(),
        error: null,
        artifactKey: null,
        artifactBytes: null,
        documentUnits: null,
        storageConfigId: null,
      };
      const previous = await d.jobs.put(record);
      if (previous) {
        await d.blobs.deletePrefix(jobPrefix(previous.tenantId, previous.documentId, previous.generation));
        d.logger.info({ documentId, tenantId: p.tenantId, previous: previous.generation }, 'document overwritten');
      }
      const ref = { tenantId: p.tenantId, documentId, generation };
      await d.jobs.transition(ref, JobState.Queued);
      if (lane === 'heavy') await d.jobs.transition(ref, JobState.WaitingForProvider);
      try {
        await d.queue.enqueue({ ...ref, lane });
      } catch (err) {
        d.logger.error({ err, documentId }, 'enqueue failed');
        await d.jobs.transition(ref, JobState.Failed, { error: { code: 'queue_unavailable', message: 'the job queue is unavailable', stage: 'upload' }, completedAt: new Date().toISOString() });
        throw problems.unavailable('The job queue is unavailable; retry shortly.');
      }
      return { status: 202, headers: { Location: `/api/v1/documents/${encodeURIComponent(documentId)}/status` }, json: { documentId, status: 'Queued', statusInt: JobState.Queued } };
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
      404: { description: 'document_not_found: unknown, expired, or another tenant’s id.' },
    },
    handler: async (ctx) => {
      const job = await d.jobs.get(ctx.principal!.tenantId, ctx.params.documentId);
      if (!job) throw problems.documentNotFound(ctx.params.documentId);
      return { status: 200, json: statusOf(job) };
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
      400: { description: 'invalid_parameter: more than 100 ids, or a malformed body.' },
    },
    handler: async (ctx) => {
      const ids = ctx.body.documentIds;
      const jobs = await d.jobs.getMany(ctx.principal!.tenantId, ids);
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
      202: { description: 'Still processing; poll the status endpoint.', schema: JobStatusSchema, headers: { 'Retry-After': { description: 'Seconds before polling again.', schema: { type: 'integer' } as never } } },
      404: { description: 'document_not_found: unknown or expired.' },
      422: { description: 'The job failed; `code` and `error` give the reason.' },
    },
    handler: async (ctx) => {
      const job = await d.jobs.get(ctx.principal!.tenantId, ctx.params.documentId);
      if (!job) throw problems.documentNotFound(ctx.params.documentId);
      if (job.statusInt === JobState.Completed && job.artifactKey) {
        const blob = await d.blobs.read(job.artifactKey);
        if (!blob) throw problems.documentNotFound(ctx.params.documentId);
        return { status: 200, stream: blob.stream, length: blob.size, contentType: 'application/json' };
      }
      if (job.statusInt === JobState.Failed) {
        const err = job.error ?? { code: 'extraction_failed', message: 'extraction failed', stage: 'extract' };
        throw new ProblemError(422, err.code, 'Extraction failed', err.message, { documentId: job.documentId, error: err });
      }
      return { status: 202, headers: { 'Retry-After': '2' }, json: statusOf(job) };
    },
  };

  return [upload, status, batch, result];
}
