// The upload URL as a tus 1.0 upload (protocol.ts): HEAD (answered by the GET route) tells
// how many bytes are stored, PATCH appends at that offset, DELETE ends the session. The
// bytes are staged in the session's blob store (disk: a file appended to; S3: a multipart
// upload) and become the session's upload, as a PUT's would, once the last one arrives:
// upload-complete then works as after a PUT. Authorised like the PUT, by the URL signature.
import { BlobTooLargeError, jobKeys, StagedOffsetError, type BlobStore } from '../../storage/blob-store.js';
import { problem, problems } from '../../http/problem.js';
import { ClientAbortedError } from '../../http/body.js';
import type { Reply, RequestContext, RouteDef } from '../../http/route.js';
import { JobState, type JobRecord } from '../../jobs/types.js';
import type { TObject } from '@sinclair/typebox';
import { createHash, type Hash } from 'node:crypto';
import type { Intake } from '../intake.js';
import type { SessionClaims } from '../session-claims.js';
import { UploadByteRate } from '../byte-rate.js';
import {
  ChecksumMismatchError,
  checkPatchContentType,
  checkTusVersion,
  PATCH_CONTENT_TYPE,
  readUploadChecksum,
  readUploadOffset,
  TUS_OPTIONS_HEADERS,
  TUS_REQUEST_HEADERS,
  tusHeaders,
  withTusHeaders,
  type RequestChecksum,
} from './protocol.js';
import { ResumableSessions } from './session-state.js';

type SignedQuery = { expires: number; signature: string };

export interface ResumableDeps {
  intake: Intake;
  /** The session of a signed upload URL, checked as for the PUT. */
  signedSession: (ctx: RequestContext<SignedQuery>) => Promise<{ claims: SessionClaims; job: JobRecord }>;
  /** Makes whole bytes under key the session's upload, as a PUT does. */
  adoptUpload: (job: JobRecord, key: string, sha256: string) => Promise<void>;
  /** The license region the upload URL carries (src/http/regions.ts forwards or refuses another region's). */
  regionOf: (ctx: RequestContext) => string | null;
  query: TObject;
  params: TObject;
}

/** Where a session's resumable bytes are staged, and then kept: in the session's own folder. */
export const resumableKey = (job: JobRecord): string => `${jobKeys(job).prefix}/upload-resumable`;

const ERRORS = ['invalid_signature', 'upload_expired', 'tus_version_unsupported'] as const;

export function resumableUploadRoutes(r: ResumableDeps): RouteDef[] {
  const d = r.intake.d;
  const sessions = new ResumableSessions();
  const options = { headers: TUS_OPTIONS_HEADERS, corsAllowHeaders: TUS_REQUEST_HEADERS };

  /** Every answer, problems too, carries Tus-Resumable. */
  const tus =
    (handler: (ctx: RequestContext<SignedQuery>) => Promise<Reply>) =>
    async (ctx: RequestContext<SignedQuery>): Promise<Reply> => {
      try {
        checkTusVersion(ctx.headers);
        return await handler(ctx);
      } catch (err) {
        throw withTusHeaders(err);
      }
    };

  const offsetMismatch = (stored: number) =>
    problem(
      'upload_offset_mismatch',
      `This upload holds ${stored} bytes: send the bytes from offset ${stored} on.`,
      { offset: stored },
      { 'Upload-Offset': String(stored) },
    );

  /**
   * The session's record as it is now: read again once the request holds the session, since
   * a request before it may have finished the upload (or it was completed or replaced).
   */
  const current = async (job: JobRecord): Promise<JobRecord> => {
    const now = await d.jobs.get(job.tenantId, job.documentId);
    if (now?.generation !== job.generation) throw problem('upload_completed', 'This session was completed or replaced meanwhile.');
    return now;
  };

  /** Bytes stored: all of them once a PUT or the last PATCH made them the session's upload. */
  const storedBytes = async (job: JobRecord, store: BlobStore): Promise<number> =>
    job.statusInt !== JobState.NotQueued || job.sha256 ? job.sizeBytes : store.stagedSize(resumableKey(job));

  const head: RouteDef<SignedQuery> = {
    method: 'GET',
    path: '/api/v1/uploads/:uploadId',
    operationId: 'getUploadOffset',
    summary: 'Resumable upload (tus HEAD): how many bytes of the file are stored',
    description:
      "Authorised by the URL signature. Answers with no body: `Upload-Offset` (bytes durably stored, where the next PATCH starts), `Upload-Length` (the session's sizeBytes), `Tus-Resumable: 1.0.0`. Sent as HEAD by tus clients.",
    tags: ['documents'],
    auth: 'public',
    regionOf: r.regionOf,
    params: r.params,
    query: r.query,
    responses: { 200: { description: 'The upload offset, in headers.' } },
    errors: [...ERRORS],
    options,
    handler: tus(async (ctx) => {
      const { job } = await r.signedSession(ctx);
      const store = await d.blobs.for(job.storageConfigId);
      // After any PATCH of this session still storing what it received (a cut-off connection).
      const offset = await sessions.exclusive(job.generation, async () => storedBytes(await current(job), store));
      return {
        status: 200,
        headers: tusHeaders({ 'Upload-Offset': String(offset), 'Upload-Length': String(job.sizeBytes), 'Cache-Control': 'no-store' }),
        empty: true,
      };
    }),
  };

  const patch: RouteDef<SignedQuery> = {
    method: 'PATCH',
    path: '/api/v1/uploads/:uploadId',
    operationId: 'patchUploadBytes',
    summary: 'Resumable upload (tus PATCH): append bytes at Upload-Offset',
    description:
      "Authorised by the URL signature. `Upload-Offset` must equal the bytes stored (else 409 naming them); the body (`Content-Type: application/offset+octet-stream`) is streamed to storage and, when the connection drops, what arrived is kept. Optional `Upload-Checksum: <sha1|sha256|…> <base64>` for this body: then it is all or nothing (460 on a mismatch). The PATCH that brings the last byte makes the file the session's upload (its SHA-256 checked against the one declared in upload-request); call upload-complete then.",
    tags: ['documents'],
    auth: 'public',
    regionOf: r.regionOf,
    params: r.params,
    query: r.query,
    body: { kind: 'raw', description: 'The next bytes of the file.', contentTypes: [PATCH_CONTENT_TYPE] },
    responses: { 204: { description: 'Stored; the new `Upload-Offset` is in the headers.' } },
    errors: [
      ...ERRORS,
      'app_disabled',
      'upload_completed',
      'upload_offset_mismatch',
      'checksum_mismatch',
      'unsupported_media_type',
      'document_too_large',
      'rate_limited',
      'storage_unavailable',
    ],
    options,
    handler: tus(async (ctx) => {
      const { claims, job } = await r.signedSession(ctx);
      checkPatchContentType(ctx.headers);
      const offset = readUploadOffset(ctx.headers);
      const checksum = readUploadChecksum(ctx.headers);
      if (job.statusInt !== JobState.NotQueued) throw problem('upload_completed', 'This session was completed; open a new one to upload again.');
      if (job.sha256) throw offsetMismatch(job.sizeBytes);
      const limits = await d.limits.forUpload(job.appId);
      if (!limits) throw problem('app_disabled', 'The app of this upload session is disabled or no longer exists, or its tenant is not active.');
      const store = await d.blobs.for(job.storageConfigId);
      return sessions.exclusive(job.generation, async () => {
        const now = await current(job);
        if (now.statusInt !== JobState.NotQueued) throw problem('upload_completed', 'This session was completed; open a new one to upload again.');
        if (now.sha256) throw offsetMismatch(job.sizeBytes);
        const declared = ctx.bodyStream?.declaredLength ?? 0;
        // With a body that fits, the store checks the offset as it starts the append: one
        // read of the staged state a PATCH, not two (a round trip to S3 saved).
        const checkedByAppend = ctx.bodyStream !== null && declared <= job.sizeBytes - offset;
        const stored = checkedByAppend ? offset : await store.stagedSize(resumableKey(job));
        if (offset !== stored) throw offsetMismatch(stored);
        if (declared > job.sizeBytes - stored) throw tooMuch(job, stored);
        let end = stored;
        if (ctx.bodyStream) {
          const rate = new UploadByteRate(d.counters, job.appId, limits.maxBytesPerSecond);
          // Lent chunks where the store copies them (no fresh buffer per network chunk).
          const lent = store.takesLentChunks === true;
          end = await append(job, store, stored, rate.meter(lent ? ctx.bodyStream.lent() : ctx.bodyStream), checksum, lent);
        }
        if (end === job.sizeBytes) await finish(job, claims, store);
        return { status: 204, headers: tusHeaders({ 'Upload-Offset': String(end) }), empty: true };
      });
    }),
  };

  const tooMuch = (job: JobRecord, stored: number) =>
    problem(
      'document_too_large',
      `This session expects exactly ${job.sizeBytes} bytes; ${stored} are stored, so a PATCH may bring ${job.sizeBytes - stored} more.`,
      { maxBytes: job.sizeBytes },
      { 'Upload-Offset': String(stored) },
    );

  /**
   * Streams body onto the staged bytes at stored, hashing on the way; returns the new offset.
   * A cut-off body keeps what arrived (unless it carries a checksum, which cannot be checked
   * then); more bytes than the session expects, or a checksum that does not match, keep none.
   */
  const append = async (job: JobRecord, store: BlobStore, stored: number, body: AsyncIterable<Buffer>, checksum: RequestChecksum | null, lent: boolean) => {
    const running = sessions.hashAt(job.generation, stored);
    let taken = 0;
    const limit = job.sizeBytes - stored;
    const counted = async function* () {
      for await (const chunk of body) {
        taken += chunk.length;
        if (taken > limit) throw new BlobTooLargeError(limit);
        running?.update(chunk);
        checksum?.hash.update(chunk);
        yield chunk;
      }
    };
    let result;
    try {
      result = await store.appendStaged(resumableKey(job), stored, counted(), {
        totalBytes: job.sizeBytes,
        lent,
        keepOnFailure: (err) => !checksum && !(err instanceof BlobTooLargeError) && !(err instanceof ChecksumMismatchError),
        beforeCommit: () => {
          if (checksum && !checksum.hash.digest().equals(checksum.expected)) throw new ChecksumMismatchError(checksum.algorithm);
        },
      });
    } catch (err) {
      if (err instanceof StagedOffsetError) throw offsetMismatch(err.staged);
      throw err;
    }
    // The running hash holds every byte taken: right only when all of them were kept.
    if (running && result.offset === stored + taken) sessions.save(job.generation, result.offset, running, Date.parse(job.expiresAt));
    else sessions.drop(job.generation);
    const failure = result.failure;
    if (failure === null) return result.offset;
    const at = { 'Upload-Offset': String(result.offset) };
    if (failure instanceof BlobTooLargeError) throw tooMuch(job, result.offset);
    if (failure instanceof ChecksumMismatchError) {
      throw problem(
        'checksum_mismatch',
        `The body does not match its ${failure.algorithm} Upload-Checksum; none of it was kept.`,
        { offset: result.offset },
        at,
      );
    }
    if (failure instanceof ClientAbortedError) throw failure;
    throw withTusHeaders(failure, at);
  };

  /** The last byte is in: the staged bytes become the session's upload, their SHA-256 checked. */
  const finish = async (job: JobRecord, claims: SessionClaims, store: BlobStore) => {
    const key = resumableKey(job);
    await store.finishStaged(key);
    const running = sessions.hashAt(job.generation, job.sizeBytes);
    sessions.drop(job.generation);
    const sha256 = running ? running.digest('hex') : await hashStored(store, key);
    const declared = claims.h ?? '';
    if (declared && declared !== sha256) {
      await store.delete(key);
      throw problems.invalidParameter(
        'sha256',
        `The bytes' SHA-256 is ${sha256}, not the ${declared} declared in upload-request; they were dropped: upload again from offset 0.`,
        undefined,
        { offset: 0 },
      );
    }
    await r.adoptUpload(job, key, sha256);
  };

  const terminate: RouteDef<SignedQuery> = {
    method: 'DELETE',
    path: '/api/v1/uploads/:uploadId',
    operationId: 'deleteUploadSession',
    summary: 'Resumable upload (tus termination): abandon the session and remove its bytes',
    description:
      'Authorised by the URL signature. Removes the bytes stored so far (S3: aborts the multipart upload) and the session, which frees its slot; its URL answers 410 from then on. A session that was completed is not touched (409).',
    tags: ['documents'],
    auth: 'public',
    regionOf: r.regionOf,
    params: r.params,
    query: r.query,
    responses: { 204: { description: 'Removed.' } },
    errors: [...ERRORS, 'upload_completed', 'storage_unavailable'],
    options,
    handler: tus(async (ctx) => {
      const { job } = await r.signedSession(ctx);
      if (job.statusInt !== JobState.NotQueued)
        throw problem('upload_completed', 'This session was completed; its job is deleted with DELETE /api/v1/documents/{documentId}.');
      const store = await d.blobs.for(job.storageConfigId);
      await sessions.exclusive(job.generation, async () => {
        await store.discardStaged(resumableKey(job));
        sessions.drop(job.generation);
        await d.jobs.delete(job.tenantId, job.documentId, job.generation);
        await r.intake.deleteBlobs(job);
      });
      return { status: 204, headers: tusHeaders(), empty: true };
    }),
  };

  return [head, patch, terminate];
}

/** The SHA-256 of a stored blob, when this process did not see all of its bytes arrive. */
async function hashStored(store: BlobStore, key: string): Promise<string> {
  const blob = await store.read(key);
  if (!blob) throw new Error(`the finished upload ${key} is missing`);
  const hash: Hash = createHash('sha256');
  for await (const chunk of blob.stream) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
