// Presigned upload for large files: upload-request opens a session (a job in state 0,
// "job not yet queued") and returns a signed, expiring URL on this API; the client PUTs
// the bytes there (streamed, no size ceiling from Content-Length since chunked bodies are
// accepted); upload-complete checks size and hash, detects the format and queues the job.
//
// A session on a documentId whose job already has its bytes is a pending overwrite: it is
// recorded apart (pendingSessionId), so the old job keeps answering status and result until
// the new upload completes; an abandoned or failed session just expires. Each PUT is
// written to a key of its own and becomes the session's upload only once its size and hash
// check out, so a failed PUT never removes the bytes of an earlier good one.
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';
import type { Reply, RequestContext, RouteDef } from '../http/route.js';
import { problem, problems } from '../http/problem.js';
import { BlobTooLargeError, jobKeys } from '../storage/blob-store.js';
import { JobState, STATUS_NAMES, type JobRecord } from '../jobs/types.js';
import { capitalised, Intake, HEAD_BYTES, tooLarge } from './intake.js';
import { parseCustomMetadata } from './custom-metadata.js';
import { UploadAccepted, UploadQuery } from './schemas.js';
import { UploadByteRate } from './byte-rate.js';
import { resumableKey, resumableUploadRoutes } from './tus/routes.js';
import type { SessionClaims } from './session-claims.js';

export interface UploadSessionDeps {
  intake: Intake;
  baseUrl: string;
  /** HMAC key for upload URLs (derived from the master key, so every node verifies them). */
  signingKey: Buffer;
  sessionTtlSeconds: number;
}

const UploadRequestBody = Type.Object(
  {
    fileName: Type.String({ minLength: 1, maxLength: 512 }),
    sizeBytes: Type.Integer({ minimum: 1, description: 'Exact size of the file; the PUT must send exactly this many bytes.' }),
    sha256: Type.Optional(Type.String({ pattern: '^[0-9a-fA-F]{64}$', description: 'Hex SHA-256 of the file; checked at completion.' })),
    documentId: Type.Optional(UploadQuery.properties.documentId),
  },
  { additionalProperties: false },
);

const UploadRequestResponse = Type.Object({
  uploadId: Type.String(),
  documentId: Type.String(),
  uploadUrl: Type.String({ format: 'uri' }),
  method: Type.Literal('PUT'),
  expiresAt: Type.String({ format: 'date-time' }),
  maxBytes: Type.Integer(),
});

const { documentId: _omitId, ...routingProps } = UploadQuery.properties;
const UploadCompleteBody = Type.Object({ uploadId: Type.String({ minLength: 10, maxLength: 2048 }), ...routingProps }, { additionalProperties: false });

const UploadPutQuery = Type.Object({ expires: Type.Integer(), signature: Type.String({ minLength: 43, maxLength: 43 }) }, { additionalProperties: false });
const UploadPutParams = Type.Object({ uploadId: Type.String({ minLength: 10, maxLength: 2048 }) });

const PENDING_SESSION_PREFIX = 'upload-session/';

/**
 * Record id of a session that overwrites an existing job once completed. A "/" is never in
 * a caller's documentId (schemas.ts), so this cannot name a document.
 */
export function pendingSessionId(generation: string): string {
  return `${PENDING_SESSION_PREFIX}${generation}`;
}

/** True for the record id of a pending-overwrite session, which is no document's id. */
export function isPendingSessionId(id: string): boolean {
  return id.startsWith(PENDING_SESSION_PREFIX);
}

export function uploadRoutes(s: UploadSessionDeps): RouteDef[] {
  const { intake } = s;
  const d = intake.d;
  const mac = (data: string) => createHmac('sha256', s.signingKey).update(data).digest('base64url');

  /** uploadId = base64url(claims) "." hmac: stateless to verify, bound to tenant and generation. */
  const makeUploadId = (c: SessionClaims) => {
    const body = Buffer.from(JSON.stringify(c)).toString('base64url');
    return `${body}.${mac(`id.${body}`)}`;
  };
  const readUploadId = (uploadId: string, parameter: string): SessionClaims => {
    const [body, sig] = uploadId.split('.');
    const bad = () => problems.invalidParameter(parameter, 'Unknown or tampered uploadId.');
    if (!body || !sig) throw bad();
    const expected = Buffer.from(mac(`id.${body}`));
    const got = Buffer.from(sig);
    if (expected.length !== got.length || !timingSafeEqual(expected, got)) throw bad();
    try {
      return JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as SessionClaims;
    } catch {
      throw bad();
    }
  };
  /** The license region a signed upload URL carries; null when its id is not ours (the handler refuses it) or names none. */
  const regionOf = (ctx: RequestContext): string | null => {
    try {
      return readUploadId(ctx.params.uploadId ?? '', 'uploadId').r ?? null;
    } catch {
      return null;
    }
  };
  const expired = () => problem('upload_expired', 'This upload session has expired; request a new one.');

  /** The session's record while it is open (state 0), else the job it became. */
  const sessionJob = async (c: SessionClaims): Promise<JobRecord> => {
    if (c.e * 1000 < Date.now()) throw expired();
    const job = await d.jobs.get(c.t, c.d);
    if (job?.generation === c.g) return job;
    const pending = c.p ? await d.jobs.get(c.t, pendingSessionId(c.g)) : null;
    if (pending?.generation === c.g) return pending;
    throw expired();
  };

  /** The session of a signed upload URL (PUT and the tus requests): its signature, expiry and record. */
  const signedSession = async (ctx: RequestContext<Static<typeof UploadPutQuery>>): Promise<{ claims: SessionClaims; job: JobRecord }> => {
    const { uploadId } = ctx.params;
    const { expires, signature } = ctx.query;
    const expected = Buffer.from(mac(`put.${uploadId}.${expires}`));
    if (!timingSafeEqual(expected, Buffer.from(signature.padEnd(expected.length).slice(0, expected.length)))) {
      throw problem('invalid_signature', 'The upload URL signature does not match.');
    }
    if (expires * 1000 < Date.now()) throw expired();
    const claims = readUploadId(uploadId, 'uploadId');
    return { claims, job: await sessionJob(claims) };
  };

  /**
   * Whole bytes under key become the session's upload (the record keeps their key and hash
   * for upload-complete), unless the session was completed or replaced meanwhile.
   */
  const adoptUpload = async (job: JobRecord, key: string, sha256: string): Promise<void> => {
    const store = await d.blobs.for(job.storageConfigId);
    const current = await d.jobs.get(job.tenantId, job.documentId);
    if (current?.generation !== job.generation || current.statusInt !== JobState.NotQueued) {
      await store.delete(key);
      throw problem('upload_completed', 'This session was completed or replaced while the bytes were sent.');
    }
    await d.jobs.put({ ...current, uploadKey: key, sha256, updatedAt: new Date().toISOString() });
    if (current.uploadKey !== key) await store.delete(current.uploadKey);
  };

  const request: RouteDef<unknown, Static<typeof UploadRequestBody>> = {
    method: 'POST',
    path: '/api/v1/documents/upload-request',
    operationId: 'createUploadSession',
    summary: 'Presigned upload, step 1: open an upload session for a large file',
    description:
      'Returns a signed URL on this API to PUT the bytes to (clients never talk to storage). With a documentId that already has a job, that job keeps answering status and result until this upload completes, and is replaced then; an abandoned or failed session leaves it as it was.',
    tags: ['documents'],
    auth: 'bearer',
    body: { kind: 'json', schema: UploadRequestBody, maxBytes: 16 * 1024 },
    responses: {
      201: { description: 'Session created.', schema: UploadRequestResponse },
    },
    errors: ['app_disabled', 'document_too_large', 'quota_exceeded', 'rate_limited'],
    handler: async (ctx): Promise<Reply> => {
      const p = ctx.principal!;
      const b = ctx.body;
      const limits = await intake.limitsFor(p);
      if (b.sizeBytes > limits.maxFileSizeBytes) throw tooLarge(limits.maxFileSizeBytes, limits, d.directUploadMaxBytes);
      await intake.admit(p, limits, null);
      const documentId = b.documentId ?? randomUUID();
      const generation = randomUUID();
      const now = new Date();
      const expiresAt = new Date(now.getTime() + s.sessionTtlSeconds * 1000);
      // The session's bytes go to a new folder of documentId, wherever its record is kept.
      const uploadKey = jobKeys({ tenantId: p.tenantId, documentId, generation }).upload;
      const existing = b.documentId === undefined ? null : await d.jobs.get(p.tenantId, documentId);
      let pendingOverwrite = existing !== null && existing.statusInt !== JobState.NotQueued;
      const session: JobRecord = {
        tenantId: p.tenantId,
        appId: p.appId,
        documentId: pendingOverwrite ? pendingSessionId(generation) : documentId,
        generation,
        statusInt: JobState.NotQueued,
        format: 'pending',
        lane: 'light',
        fileName: b.fileName,
        options: {},
        customMetadata: null,
        uploadKey,
        sizeBytes: b.sizeBytes,
        sha256: '',
        attempts: 0,
        createdAt: now.toISOString(),
        updatedAt: now.toISOString(),
        startedAt: null,
        completedAt: null,
        expiresAt: expiresAt.toISOString(),
        error: null,
        artifactKey: null,
        artifactBytes: null,
        documentUnits: null,
        storageConfigId: limits.storageConfigId,
      };
      // Only an earlier session still waiting for its bytes is replaced here; a job that got
      // its bytes since the read above (a direct upload) keeps the id, and the session is
      // kept apart like any pending overwrite.
      let stored = pendingOverwrite ? { previous: await d.jobs.put(session) } : await d.jobs.putSession(session);
      if (!stored) {
        pendingOverwrite = true;
        stored = { previous: await d.jobs.put({ ...session, documentId: pendingSessionId(generation) }) };
      }
      if (stored.previous) await intake.deleteBlobs(stored.previous);
      const exp = Math.floor(expiresAt.getTime() / 1000);
      const claims: SessionClaims = { t: p.tenantId, d: documentId, g: generation, e: exp, h: b.sha256?.toLowerCase() ?? '', r: p.licenseRegionCode };
      if (pendingOverwrite) claims.p = 1;
      const uploadId = makeUploadId(claims);
      const uploadUrl = `${s.baseUrl}/api/v1/uploads/${uploadId}?expires=${exp}&signature=${mac(`put.${uploadId}.${exp}`)}`;
      return { status: 201, json: { uploadId, documentId, uploadUrl, method: 'PUT', expiresAt: expiresAt.toISOString(), maxBytes: b.sizeBytes } };
    },
  };

  const put: RouteDef<Static<typeof UploadPutQuery>> = {
    method: 'PUT',
    path: '/api/v1/uploads/:uploadId',
    operationId: 'putUploadBytes',
    summary: 'Presigned upload: send the bytes to the signed URL from upload-request',
    description: 'Authorised by the URL signature (no bearer token). Content-Length or chunked transfer encoding; exactly sizeBytes bytes.',
    tags: ['documents'],
    auth: 'public',
    regionOf,
    params: UploadPutParams,
    query: UploadPutQuery,
    body: { kind: 'raw', description: 'The file bytes.' },
    responses: {
      204: { description: 'Stored; call upload-complete.' },
    },
    errors: ['invalid_signature', 'app_disabled', 'upload_completed', 'upload_expired', 'document_too_large', 'rate_limited', 'storage_unavailable'],
    handler: async (ctx): Promise<Reply> => {
      const { claims, job } = await signedSession(ctx);
      if (job.statusInt !== JobState.NotQueued) throw problem('upload_completed', 'This session was completed; open a new one to upload again.');
      if (!ctx.bodyStream) throw problems.invalidParameter('body', 'Send the file bytes as the request body.');
      if (ctx.bodyStream.declaredLength !== null && ctx.bodyStream.declaredLength !== job.sizeBytes) {
        throw problems.invalidParameter('Content-Length', `This session expects exactly ${job.sizeBytes} bytes.`);
      }
      const limits = await d.limits.forUpload(job.appId);
      if (!limits) throw problem('app_disabled', 'The app of this upload session is disabled or no longer exists, or its tenant is not active.');
      // Counted as they stream whatever the framing: refusing a declared length up front
      // would refuse any file over ten seconds' worth of the plan's rate.
      const store = await d.blobs.for(job.storageConfigId);
      // Lent chunks where the store copies them (no fresh buffer per network chunk).
      const lent = store.takesLentChunks === true;
      const source = new UploadByteRate(d.counters, job.appId, limits.maxBytesPerSecond).meter(lent ? ctx.bodyStream.lent() : ctx.bodyStream);
      const attemptKey = `${jobKeys(job).prefix}/upload-${randomBytes(8).toString('hex')}`;
      let written;
      try {
        written = await store.write(attemptKey, source, { maxBytes: job.sizeBytes, lent });
      } catch (err) {
        if (err instanceof BlobTooLargeError)
          throw problem('document_too_large', `This session expects exactly ${job.sizeBytes} bytes.`, { maxBytes: job.sizeBytes });
        throw err;
      }
      if (written.bytes !== job.sizeBytes) {
        await store.delete(attemptKey);
        throw problems.invalidParameter('body', `Received ${written.bytes} bytes; this session expects exactly ${job.sizeBytes}.`);
      }
      // The record's sha256 is the hash of bytes received; the declared one is in the claims.
      const declared = claims.h ?? job.sha256;
      if (declared && declared !== written.sha256) {
        await store.delete(attemptKey);
        throw problems.invalidParameter('sha256', `The bytes' SHA-256 is ${written.sha256}, not the ${declared} declared in upload-request.`);
      }
      await adoptUpload(job, attemptKey, written.sha256);
      return { status: 204, empty: true };
    },
  };

  const complete: RouteDef<unknown, Static<typeof UploadCompleteBody>> = {
    method: 'POST',
    path: '/api/v1/documents/upload-complete',
    operationId: 'completeUploadSession',
    summary: 'Presigned upload, step 2: finish the session and queue parsing',
    description: 'Takes the uploadId and the same routing parameters as direct upload (in the JSON body). Calling it again returns the same job.',
    tags: ['documents'],
    auth: 'bearer',
    body: { kind: 'json', schema: UploadCompleteBody, maxBytes: 128 * 1024 },
    responses: {
      202: { description: 'Queued.', schema: UploadAccepted },
    },
    errors: [
      'app_disabled',
      'feature_not_in_plan',
      'upload_incomplete',
      'upload_expired',
      'unsupported_format',
      'quota_exceeded',
      'rate_limited',
      'engine_unavailable',
      'webhook_secret_missing',
    ],
    handler: async (ctx): Promise<Reply> => {
      const p = ctx.principal!;
      const { uploadId, ...routing } = ctx.body;
      const claims = readUploadId(uploadId, 'uploadId');
      if (claims.t !== p.tenantId) throw problems.invalidParameter('uploadId', 'Unknown or tampered uploadId.');
      const job = await sessionJob(claims);
      if (job.statusInt !== JobState.NotQueued) {
        return { status: 202, json: { documentId: job.documentId, status: capitalised(STATUS_NAMES[job.statusInt]), statusInt: job.statusInt } };
      }
      const customMetadata = parseCustomMetadata(routing.customMetadataJson);
      const callbackUrl = await intake.callbackUrl(p, routing.callbackUrl);
      const blob = await (await d.blobs.for(job.storageConfigId)).read(job.uploadKey);
      if (!blob || !job.sha256 || blob.size !== job.sizeBytes) {
        const staged = await (await d.blobs.for(job.storageConfigId)).stagedSize(resumableKey(job));
        throw problem(
          'upload_incomplete',
          staged
            ? `${staged} of ${job.sizeBytes} bytes were received: send the rest with PATCH (tus) to the uploadUrl first.`
            : 'No bytes were uploaded to this session yet: PUT them to the uploadUrl first.',
          { offset: staged },
        );
      }
      const head = await readHead(blob.stream);
      const { format, options } = intake.classify(head, { ...routing, fileName: routing.fileName ?? job.fileName ?? undefined }, p);
      const limits = await intake.limitsFor(p);
      const inFlight = await intake.admit(p, limits, null, 1); // the session's own slot passes to the job
      // Puts the job under documentId, replacing (and deleting the blobs of) the job there.
      const reply = await intake.accept({
        requestId: ctx.requestId,
        principal: p,
        documentId: claims.d,
        idSuppliedByCaller: false,
        generation: job.generation,
        uploadKey: job.uploadKey,
        written: { bytes: blob.size, sha256: job.sha256 },
        format,
        options,
        customMetadata,
        fileName: routing.fileName ?? job.fileName,
        storageConfigId: job.storageConfigId,
        callbackUrl,
        inFlight,
      });
      if (job.documentId !== claims.d) await d.jobs.delete(job.tenantId, job.documentId, job.generation);
      return reply;
    },
  };

  const resumable = resumableUploadRoutes({ intake, signedSession, adoptUpload, regionOf, query: UploadPutQuery, params: UploadPutParams });
  return [request, put, complete, ...resumable];
}

async function readHead(stream: NodeJS.ReadableStream & { destroy(): void }): Promise<Buffer> {
  const parts: Buffer[] = [];
  let n = 0;
  for await (const c of stream as AsyncIterable<Buffer>) {
    parts.push(c);
    n += c.length;
    if (n >= HEAD_BYTES) break;
  }
  stream.destroy();
  return Buffer.concat(parts).subarray(0, HEAD_BYTES);
}
