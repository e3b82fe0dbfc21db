// Intake: what direct and presigned uploads share — admission against the plan, routing
// options, format detection, and turning stored bytes into a queued job (with
// documentId idempotency and overwrite).
import type { OfficeRender } from '../formats/settings.js';
import { isDeepStrictEqual } from 'node:util';
import type { Logger } from 'pino';
import type { Static } from '@sinclair/typebox';
import type { Principal, Reply } from '../http/route.js';
import { problem, problems, type ProblemError } from '../http/problem.js';
import { jobFolder, type WriteResult } from '../storage/blob-store.js';
import type { BlobRouter } from '../storage/router.js';
import { JobState, STATUS_NAMES, type JobOptions, type JobQueue, type JobRecord, type JobStore, type RateCounters } from '../jobs/types.js';
import type { ControlPlaneStore } from '../tenancy/types.js';
import type { QuotaKeeper } from '../tenancy/quota/keeper.js';
import { detectFormat, UndecidedFormat, type Detection } from '../formats/detect.js';
import { familyOf, isSupported, laneFor, supportedFormats } from '../formats/registry.js';
import { monthOf } from '../tenancy/month.js';
import type { AppLimits, LimitsCache } from '../tenancy/plan-limits.js';
import type { UploadQuery } from './schemas.js';
import { UploadByteRate } from './byte-rate.js';
import { requireEngines } from '../engines/requirements.js';
import type { JobTallies } from '../metrics/job-tallies.js';
import type { Webhooks } from '../webhooks/webhooks.js';

export interface IntakeDeps {
  jobs: JobStore;
  queue: JobQueue;
  blobs: BlobRouter;
  counters: RateCounters;
  limits: LimitsCache;
  controlPlane: ControlPlaneStore;
  /** The node's quota keeper (shared with the worker loop); without one, admission sums the ledger and holds in SQL. */
  quota?: QuotaKeeper;
  retentionSeconds: number;
  directUploadMaxBytes: number;
  /** DOCPARSE_OFFICE_RENDER: whether every DOCX goes through LibreOffice (and so the heavy lane). */
  officeRender: OfficeRender;
  logger: Logger;
  /** The node's job counters (/metrics): accepted jobs and quota refusals. */
  metrics?: JobTallies;
  /** Signed webhooks (callbackUrl); without them an upload asking for one is refused. */
  webhooks?: Webhooks;
}

/** Routing parameters as accepted on upload (query) and upload-complete (body). */
export type RoutingParams = Omit<Static<typeof UploadQuery>, 'documentId'>;

export const HEAD_BYTES = 8192;

export const capitalised = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * Routing options that apply to the detected format, as its family declares them: a missing
 * required one is 400, a missing optional one takes its default, and a value that needs a
 * plan feature the app lacks is 403 feature_not_in_plan.
 */
export function routingOptions(format: string, q: RoutingParams, principal: Principal): JobOptions {
  const options: JobOptions = {};
  if (q.chunkHints !== undefined) options.chunkHints = q.chunkHints;
  if (q.documentType) options.documentType = q.documentType;
  const family = familyOf(format);
  const chosen = options as Record<string, unknown>;
  for (const p of family?.routing ?? []) {
    const given = q[p.name];
    if (given === undefined) {
      if (p.required)
        throw problems.invalidParameter(
          p.name,
          `${family!.title} uploads need ${p.name}.`,
          p.values.map((v) => v.value),
        );
      if (p.default !== undefined) chosen[p.name] = p.default;
      continue;
    }
    const feature = p.values.find((v) => v.value === given)?.entitlement;
    if (feature && !(principal.entitlements as Record<string, unknown> | undefined)?.[feature]) {
      throw problem('feature_not_in_plan', `${p.name}=${given} needs a plan with ${feature}.`, { feature });
    }
    chosen[p.name] = given;
  }
  return options;
}

/** Detection, with an undecidable upload answered as 400 invalid_parameter. */
function detect(head: Buffer, q: RoutingParams): Detection {
  try {
    return detectFormat(head, q.fileName, q.documentType);
  } catch (e) {
    if (e instanceof UndecidedFormat) throw problems.invalidParameter(e.parameter, e.message, e.allowed);
    throw e;
  }
}

/** Reads the first bytes of the body for detection and gives back a stream of the whole body. */
export async function peek(body: AsyncIterable<Buffer>): Promise<{ head: Buffer; all: AsyncIterable<Buffer> }> {
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

export function tooLarge(limit: number, limits: AppLimits, directMax: number): ProblemError {
  const byPlan = limit === limits.maxFileSizeBytes;
  return problem(
    'document_too_large',
    byPlan
      ? `The file exceeds your plan's maximum file size of ${limits.maxFileSizeBytes} bytes.`
      : `Direct uploads are limited to ${directMax} bytes; use POST /api/v1/documents/upload-request for larger files.`,
    { maxBytes: limit },
  );
}

/**
 * Whether an upload repeats a job that already has its bytes and has not failed: the same
 * bytes, format, options, file name and custom metadata (all of which reach the artifact).
 */
function isReplayOf(
  existing: JobRecord,
  upload: { written: WriteResult; format: string; options: JobOptions; fileName: string | null; customMetadata: Record<string, unknown> | null },
): boolean {
  return (
    existing.statusInt !== JobState.NotQueued &&
    existing.statusInt !== JobState.Failed &&
    existing.sha256 === upload.written.sha256 &&
    existing.format === upload.format &&
    isDeepStrictEqual(existing.options, upload.options) &&
    existing.fileName === upload.fileName &&
    isDeepStrictEqual(existing.customMetadata, upload.customMetadata)
  );
}

export class Intake {
  constructor(readonly d: IntakeDeps) {}

  /** Limits of the caller's app; 403 when the app was disabled (or its tenant deactivated) after its token was issued. */
  async limitsFor(p: Principal): Promise<AppLimits> {
    const limits = await this.d.limits.forUpload(p.appId);
    if (!limits) throw problem('app_disabled', 'This app is disabled or no longer exists, or its tenant is not active.');
    return limits;
  }

  /**
   * Quota, jobs in flight and byte rate: refused before any byte is stored. `heldSlots`: the
   * caller's own unfinished records that this request turns into the job (an upload session
   * being completed), so they are not counted against it. Returns the app's unfinished jobs
   * (others than those), which accept() hands to the queue as the job's turn (`inFlight`).
   */
  async admit(p: Principal, limits: AppLimits, declaredBytes: number | null, heldSlots = 0): Promise<number> {
    const d = this.d;
    const quota = p.entitlements?.maxDocumentUnitsPerMonth ?? limits.maxDocumentUnitsPerMonth;
    // Units held by this app's jobs in progress count too: they are spoken for.
    const month = monthOf(new Date());
    // Both reads of the decision go out together (one round trip's wait, not two); the quota's
    // refusal still comes first.
    const [used, inFlight] = await Promise.all([
      d.quota ? d.quota.committed(p.appId, month) : d.controlPlane.unitsCommitted(p.appId, month),
      d.jobs.countUnfinished(p.appId),
    ]);
    if (used >= quota) {
      d.metrics?.quotaRefused('upload');
      throw problem('quota_exceeded', `This app has used or holds for documents in progress ${used} of its ${quota} Document Units this month.`, {
        used,
        quota,
      });
    }
    const unfinished = inFlight - heldSlots;
    if (unfinished >= limits.maxConcurrentJobs) {
      throw problem(
        'rate_limited',
        `This app has ${unfinished} unfinished jobs; its plan allows ${limits.maxConcurrentJobs} at once.`,
        { limit: limits.maxConcurrentJobs },
        { 'Retry-After': '5' },
      );
    }
    // A declared length is counted here, whole; a body without one is counted as it streams
    // (UploadByteRate.meter), never both.
    if (declaredBytes !== null) await new UploadByteRate(d.counters, p.appId, limits.maxBytesPerSecond).count(declaredBytes);
    return unfinished;
  }

  /**
   * Deletes every blob of a job that was replaced (or of a replayed upload). A failure is
   * logged, not thrown: the request's own job is already stored and must still be queued.
   */
  async deleteBlobs(job: Pick<JobRecord, 'tenantId' | 'documentId' | 'generation' | 'uploadKey' | 'storageConfigId'>): Promise<void> {
    try {
      await (await this.d.blobs.for(job.storageConfigId)).deletePrefix(jobFolder(job));
    } catch (err) {
      this.d.logger.error(
        { err, documentId: job.documentId, tenantId: job.tenantId, generation: job.generation },
        'could not delete the blobs of a replaced job',
      );
    }
  }

  /** The upload's callbackUrl once checked (null without one): refused before anything is stored or counted. */
  async callbackUrl(p: Principal, url: string | undefined): Promise<string | null> {
    if (url === undefined) return null;
    if (!this.d.webhooks) throw problems.invalidParameter('callbackUrl', 'This server sends no webhooks.');
    return this.d.webhooks.callbackFor(p.appId, url);
  }

  /** Detects the format from the first bytes and checks the routing options it needs. */
  classify(head: Buffer, q: RoutingParams, p: Principal): { format: string; options: JobOptions } {
    if (head.length === 0) throw problems.invalidParameter('body', 'The document is empty: send the file bytes.');
    const detection = detect(head, q);
    const options = routingOptions(detection.format, q, p);
    if (!isSupported(detection.format)) {
      throw problem('unsupported_format', `${detection.format} documents are not supported by this version. Supported: ${supportedFormats().join(', ')}.`, {
        format: detection.format,
        supported: supportedFormats(),
      });
    }
    // A document this node has no engine for is refused before a byte is stored (503 engine_unavailable).
    requireEngines(detection.format, options);
    return { format: detection.format, options };
  }

  /**
   * Turns stored bytes into a queued job. A caller-supplied documentId with the same bytes
   * and options as its unexpired job returns that job (no second charge); otherwise the new
   * upload replaces it.
   */
  async accept(a: {
    principal: Principal;
    documentId: string;
    idSuppliedByCaller: boolean;
    generation: string;
    uploadKey: string;
    written: WriteResult;
    format: string;
    options: JobOptions;
    customMetadata: Record<string, unknown> | null;
    fileName: string | null;
    storageConfigId: string | null;
    /** The upload request's id: the worker's log lines for this job carry it. */
    requestId?: string;
    /** Checked by callbackUrl(); absent or null: no webhook. */
    callbackUrl?: string | null;
    /** The app's unfinished jobs before this one (admit's answer): the job's turn in the queue. */
    inFlight?: number;
  }): Promise<Reply> {
    const d = this.d;
    const p = a.principal;
    const now = new Date();
    const lane = laneFor(a.format, a.options, this.d.officeRender);
    const record: JobRecord = {
      tenantId: p.tenantId,
      appId: p.appId,
      documentId: a.documentId,
      generation: a.generation,
      // Stored as queued at once (1 → 2 in one write): the enqueue below follows, and a
      // restart in between re-enqueues every unfinished job (embedded) like a queued one.
      statusInt: JobState.Queued,
      format: a.format,
      lane,
      fileName: a.fileName,
      options: a.options,
      customMetadata: a.customMetadata,
      uploadKey: a.uploadKey,
      sizeBytes: a.written.bytes,
      sha256: a.written.sha256,
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
      storageConfigId: a.storageConfigId,
      requestId: a.requestId ?? null,
      ...(a.callbackUrl ? { callbackUrl: a.callbackUrl } : {}),
    };
    // Only a caller-chosen id can replay an earlier job: the others are put at once. A live job
    // under a caller's id comes back unwritten: the same upload again is answered with it, any
    // other replaces it.
    let previous: JobRecord | null;
    const stored = a.idSuppliedByCaller ? await d.jobs.putUnlessLive(record) : { stored: true as const, previous: await d.jobs.put(record) };
    if (stored.stored) previous = stored.previous;
    else if (isReplayOf(stored.live, a)) {
      await this.deleteBlobs({
        tenantId: p.tenantId,
        documentId: a.documentId,
        generation: a.generation,
        uploadKey: a.uploadKey,
        storageConfigId: a.storageConfigId,
      });
      return {
        status: 202,
        headers: { 'Idempotent-Replayed': 'true' },
        json: { documentId: a.documentId, status: capitalised(STATUS_NAMES[stored.live.statusInt]), statusInt: stored.live.statusInt },
      };
    } else previous = await d.jobs.put(record);
    if (previous && previous.generation !== a.generation) {
      await this.deleteBlobs(previous);
      d.logger.info({ documentId: a.documentId, tenantId: p.tenantId, previous: previous.generation }, 'document overwritten');
    }
    const ref = { tenantId: p.tenantId, documentId: a.documentId, generation: a.generation };
    if (lane === 'heavy') await d.jobs.transition(ref, JobState.WaitingForProvider);
    try {
      await d.queue.enqueue({ ...ref, lane }, { fresh: true, inFlight: a.inFlight });
    } catch (err) {
      d.logger.error({ err, documentId: a.documentId }, 'enqueue failed');
      await d.jobs.transition(ref, JobState.Failed, {
        error: { code: 'queue_unavailable', message: 'the job queue is unavailable', stage: 'upload' },
        completedAt: new Date().toISOString(),
      });
      throw problems.unavailable('The job queue is unavailable; retry shortly.');
    }
    d.metrics?.job(a.format, 'queued');
    return {
      status: 202,
      headers: { Location: `/api/v1/documents/${encodeURIComponent(a.documentId)}/status` },
      json: { documentId: a.documentId, status: 'Queued', statusInt: JobState.Queued },
    };
  }
}
