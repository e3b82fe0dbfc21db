// DocparseClient: the documents API for code, over fetch alone (Node 20+ and browsers).
// Tokens come from TokenSource, every call goes through Transport (retries, typed errors),
// and waitFor listens to a StatusFeed: one job's live status stream (Server-Sent Events),
// with batch-status polling for several jobs and as the fallback (live.ts).
import type { Artifact } from './artifact.js';
import { prepareBody, type PreparedBody, type UploadInput } from './body.js';
import { DocparseError, DocparseTimeoutError } from './errors.js';
import { TokenSource, type TokenCache, type TokenResponse } from './token.js';
import { DEFAULT_RETRY, Transport, type RetryEvent, type RetryPolicy } from './transport.js';
import { isTerminal, pollingFeed, type StatusFeed } from './wait.js';
import { liveFeed } from './live.js';
import { blobSource, DEFAULT_CHUNK_BYTES, streamSource, tusOffset, tusUpload } from './tus.js';
import type { BatchStatusItem, JobStatus, UploadAccepted, UploadOptions, UploadProgress } from './types.js';

/** The direct-upload limit the server has by default (DOCPARSE_DIRECT_UPLOAD_MAX_BYTES); larger files go presigned. */
export const DEFAULT_DIRECT_UPLOAD_MAX_BYTES = 900_000_000;
/** The batch status endpoint's limit. */
export const BATCH_STATUS_MAX_IDS = 100;

export interface DocparseClientOptions {
  /** The API's base address ({base_url}), e.g. https://docparse.example.com. */
  baseUrl: string;
  /** The token host ({auth_url}); the base URL by default. */
  authUrl?: string;
  /** The app's credentials. Never in a browser: there, give getToken instead. */
  clientId?: string;
  clientSecret?: string;
  /**
   * Instead of clientId and clientSecret: fetches a token from your own backend, which holds
   * the secret and passes on the token endpoint's {access_token, expires_in}. Called as rarely
   * as the credentials would be: once, then shortly before each expiry.
   */
  getToken?: (signal?: AbortSignal) => Promise<TokenResponse>;
  /** Token scope (Service.API). */
  scope?: string;
  /**
   * Files above this go presigned: upload-request, then the bytes as resumable (tus) PATCHes
   * of uploadChunkBytes, then upload-complete (900 MB, the server's default).
   */
  directUploadMaxBytes?: number;
  /** Bytes per resumable PATCH (8 MiB). A stream keeps one chunk in memory until the server has it. */
  uploadChunkBytes?: number;
  /** Renew the token this long before it expires (60 s). */
  tokenRenewBeforeMs?: number;
  /** Keeps the token beyond this object (the CLI keeps it in a file between runs). */
  tokenCache?: TokenCache;
  retry?: Partial<RetryPolicy>;
  /** Told before every retry (logging, tests). */
  onRetry?: (e: RetryEvent) => void;
  /** How many batch-status requests run at once when a list is split (4). */
  batchConcurrency?: number;
  fetch?: typeof fetch;
  /** Clock, epoch ms (Date.now). */
  now?: () => number;
  /** waitFor on one job follows its live status stream (default), else it polls. */
  liveStatus?: boolean;
}

export interface WaitOptions {
  /** Give up (DocparseTimeoutError) after this long; unlimited by default. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Told of every status seen while waiting. */
  onStatus?: (s: JobStatus) => void;
}

export class DocparseClient {
  private readonly baseUrl: string;
  private readonly transport: Transport;
  /** Lowered when the server refuses a direct upload as over its own limit (its 413 names it). */
  private directUploadMaxBytes: number;
  private readonly batchConcurrency: number;
  private readonly feed: StatusFeed;
  private readonly fetch: typeof fetch;
  private readonly retry: RetryPolicy;
  private readonly chunkBytes: number;

  constructor(o: DocparseClientOptions) {
    if (!o.getToken && !(o.clientId && o.clientSecret)) throw new TypeError('DocparseClient needs clientId and clientSecret, or getToken');
    this.baseUrl = o.baseUrl.replace(/\/+$/, '');
    const f = o.fetch ?? globalThis.fetch.bind(globalThis);
    const tokens = new TokenSource({
      tokenUrl: `${(o.authUrl ?? this.baseUrl).replace(/\/+$/, '')}/connect/token`,
      credentials: o.clientId && o.clientSecret ? { clientId: o.clientId, clientSecret: o.clientSecret } : undefined,
      ask: o.getToken,
      scope: o.scope ?? 'Service.API',
      fetch: f,
      now: o.now ?? Date.now,
      renewBeforeMs: o.tokenRenewBeforeMs ?? 60_000,
      cache: o.tokenCache,
    });
    this.fetch = f;
    this.retry = { ...DEFAULT_RETRY, ...o.retry };
    this.chunkBytes = Math.max(1, o.uploadChunkBytes ?? DEFAULT_CHUNK_BYTES);
    this.transport = new Transport({ fetch: f, tokens, retry: this.retry, onRetry: o.onRetry });
    this.directUploadMaxBytes = o.directUploadMaxBytes ?? DEFAULT_DIRECT_UPLOAD_MAX_BYTES;
    this.batchConcurrency = Math.max(1, o.batchConcurrency ?? 4);
    const polling = pollingFeed((ids, signal) => this.statusBatch(ids, { signal }));
    this.feed = o.liveStatus === false ? polling : liveFeed((id, lastEventId, signal) => this.events(id, lastEventId, signal), polling);
  }

  /**
   * Uploads a document; direct up to the direct-upload limit, presigned above it (or for a
   * stream whose size is given and over it). A server whose limit is lower answers the
   * direct upload 413 naming it: the SDK then goes presigned, and remembers the limit. The
   * SDK picks a documentId when none is given, so a retried upload is recognised by the
   * server as the same one (never charged twice).
   */
  async upload(input: UploadInput, options: UploadOptions = {}): Promise<UploadAccepted> {
    const body = prepareBody(input, options.sizeBytes);
    const fileName = options.fileName ?? body.fileName;
    const documentId = options.documentId ?? globalThis.crypto.randomUUID();
    const progress = progressOf(options.onProgress, body.size);
    const presigned = () => {
      if (!fileName) throw new TypeError('a presigned upload needs options.fileName');
      return this.uploadPresigned(body, body.size!, fileName, documentId, options, progress);
    };
    const accepted =
      body.size !== null && body.size > this.directUploadMaxBytes
        ? await presigned()
        : await this.uploadDirect(body, fileName, documentId, options, progress).catch((err: unknown) => {
            const limit = err instanceof DocparseError && err.code === 'document_too_large' ? err.problem.maxBytes : undefined;
            // Over the server's direct limit (not the plan's file size, which upload-request refuses the same way).
            if (
              typeof limit !== 'number' ||
              body.size === null ||
              body.size <= limit ||
              limit >= this.directUploadMaxBytes ||
              body.replay === null ||
              !fileName
            )
              throw err;
            this.directUploadMaxBytes = limit;
            return presigned();
          });
    // Where fetch could not count the bytes as they went (a browser), the end is known now.
    if (!body.counted && body.size !== null) progress?.(body.size);
    return accepted;
  }

  private async uploadDirect(
    body: PreparedBody,
    fileName: string | undefined,
    documentId: string,
    options: UploadOptions,
    progress: Progress | undefined,
  ): Promise<UploadAccepted> {
    const query = new URLSearchParams({ documentId, ...routing(options) });
    if (fileName) query.set('fileName', fileName);
    const res = await this.transport.call({
      method: 'POST',
      url: `${this.baseUrl}/api/v1/documents/upload?${query}`,
      headers: { 'content-type': options.contentType ?? 'application/octet-stream' },
      ...bodyFactory(body, progress),
      idempotent: true, // the documentId makes a repeat a replay (docs/api.md#documentid)
      auth: true,
      signal: options.signal,
    });
    return (await res.json()) as UploadAccepted;
  }

  private async uploadPresigned(
    body: PreparedBody,
    sizeBytes: number,
    fileName: string,
    documentId: string,
    options: UploadOptions,
    progress: Progress | undefined,
  ): Promise<UploadAccepted> {
    // A retried upload-request would open a second session that holds a job slot until it
    // expires: only a refusal (429, nothing opened) is retried.
    const session = (await (
      await this.transport.call({
        method: 'POST',
        url: `${this.baseUrl}/api/v1/documents/upload-request`,
        headers: { 'content-type': 'application/json' },
        body: () => JSON.stringify({ fileName, sizeBytes, documentId, ...(options.sha256 ? { sha256: options.sha256 } : {}) }),
        idempotent: false,
        auth: true,
        signal: options.signal,
      })
    ).json()) as { uploadId: string; uploadUrl: string };
    // The upload URL speaks tus (its HEAD answers Tus-Resumable): the bytes go in resumable
    // PATCHes. A server that does not gets them as one PUT, which replaces the session's bytes
    // only once they check out, so it can be repeated.
    const startOffset = await tusOffset(this.fetch, session.uploadUrl, options.signal);
    if (startOffset !== null) {
      await tusUpload({
        fetch: this.fetch,
        url: session.uploadUrl,
        size: sizeBytes,
        source: body.source instanceof Blob ? blobSource(body.source) : streamSource(body.source),
        chunkBytes: this.chunkBytes,
        retry: this.retry,
        startOffset,
        onOffset: progress && offsetProgress(progress),
        signal: options.signal,
      });
    } else
      await this.transport.call({
        method: 'PUT',
        url: session.uploadUrl,
        headers: { 'content-type': 'application/octet-stream' },
        ...bodyFactory(body, progress),
        idempotent: true,
        auth: false,
        signal: options.signal,
      });
    // Completing again returns the same job.
    const res = await this.transport.call({
      method: 'POST',
      url: `${this.baseUrl}/api/v1/documents/upload-complete`,
      headers: { 'content-type': 'application/json' },
      body: () => JSON.stringify({ uploadId: session.uploadId, fileName, ...routingBody(options) }),
      idempotent: true,
      auth: true,
      signal: options.signal,
    });
    return (await res.json()) as UploadAccepted;
  }

  async status(documentId: string, opts: { signal?: AbortSignal } = {}): Promise<JobStatus> {
    const res = await this.get(`/api/v1/documents/${encodeURIComponent(documentId)}/status`, opts.signal);
    return (await res.json()) as JobStatus;
  }

  /** Statuses in the order asked; lists over 100 go as several requests. Unknown ids come back as `{documentId, error}`. */
  async statusBatch(documentIds: readonly string[], opts: { signal?: AbortSignal } = {}): Promise<BatchStatusItem[]> {
    const slices: string[][] = [];
    for (let i = 0; i < documentIds.length; i += BATCH_STATUS_MAX_IDS) slices.push(documentIds.slice(i, i + BATCH_STATUS_MAX_IDS));
    const answers = await mapLimited(slices, this.batchConcurrency, async (ids) => {
      const res = await this.transport.call({
        method: 'POST',
        url: `${this.baseUrl}/api/v1/documents/status/batch`,
        headers: { 'content-type': 'application/json' },
        body: () => JSON.stringify({ documentIds: ids }),
        idempotent: true,
        auth: true,
        signal: opts.signal,
      });
      return ((await res.json()) as { results: BatchStatusItem[] }).results;
    });
    return answers.flat();
  }

  /**
   * Waits until the job(s) end (completed or failed) and returns their final statuses, in
   * the order given. An unknown id throws DocparseError `document_not_found`.
   */
  waitFor(documentId: string, opts?: WaitOptions): Promise<JobStatus>;
  waitFor(documentIds: readonly string[], opts?: WaitOptions): Promise<JobStatus[]>;
  async waitFor(which: string | readonly string[], opts: WaitOptions = {}): Promise<JobStatus | JobStatus[]> {
    const ids = typeof which === 'string' ? [which] : [...which];
    const done = new Map<string, JobStatus>();
    const stop = new AbortController();
    const timer =
      opts.timeoutMs === undefined
        ? null
        : setTimeout(
            () =>
              stop.abort(
                new DocparseTimeoutError(
                  ids.filter((id) => !done.has(id)),
                  opts.timeoutMs!,
                ),
              ),
            opts.timeoutMs,
          );
    const signal = opts.signal ? AbortSignal.any([opts.signal, stop.signal]) : stop.signal;
    try {
      for await (const seen of this.feed(ids, signal)) {
        for (const item of seen) {
          if ('error' in item && !('statusInt' in item)) {
            throw new DocparseError({ status: 404, code: item.error.code, detail: item.error.message });
          }
          const s = item as JobStatus;
          opts.onStatus?.(s);
          if (isTerminal(s)) done.set(s.documentId, s);
        }
        if (ids.every((id) => done.has(id))) break;
      }
    } catch (err) {
      if (stop.signal.aborted && !opts.signal?.aborted) throw stop.signal.reason;
      throw err;
    } finally {
      if (timer) clearTimeout(timer);
    }
    const out = ids.map((id) => done.get(id)!);
    return typeof which === 'string' ? out[0] : out;
  }

  /**
   * The result artifact. Throws DocparseError: `result_not_ready` (202) while the job runs,
   * the failure's code (422) when it failed, `document_not_found` (404) when unknown or expired.
   */
  async result(documentId: string, opts: { signal?: AbortSignal } = {}): Promise<Artifact> {
    const res = await this.get(`/api/v1/documents/${encodeURIComponent(documentId)}/result`, opts.signal);
    if (res.status === 202) {
      const s = (await res.json()) as JobStatus;
      throw new DocparseError({
        status: 202,
        code: 'result_not_ready',
        detail: `document ${documentId} is ${s.status}`,
        requestId: res.headers.get('x-request-id'),
        problem: { job: s },
      });
    }
    return (await res.json()) as Artifact;
  }

  /**
   * Cancels a queued or running job (it ends failed with code `cancelled`, nothing charged), or
   * deletes a finished job's result early (`resultDeleted: true`). Idempotent; an unknown id
   * throws DocparseError `document_not_found`.
   */
  async cancel(documentId: string, opts: { signal?: AbortSignal } = {}): Promise<JobStatus & { resultDeleted?: boolean }> {
    const res = await this.transport.call({
      method: 'DELETE',
      url: `${this.baseUrl}/api/v1/documents/${encodeURIComponent(documentId)}`,
      idempotent: true,
      auth: true,
      signal: opts.signal,
    });
    return (await res.json()) as JobStatus & { resultDeleted?: boolean };
  }

  /** The job's event stream (the response, its body unread). */
  private events(documentId: string, lastEventId: string | undefined, signal: AbortSignal): Promise<Response> {
    return this.transport.call({
      method: 'GET',
      url: `${this.baseUrl}/api/v1/documents/${encodeURIComponent(documentId)}/events`,
      headers: { accept: 'text/event-stream', ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
      idempotent: true,
      auth: true,
      signal,
    });
  }

  /** Upload, wait, fetch: the artifact of one document (the job's failure as a DocparseError). */
  async parse(input: UploadInput, options: UploadOptions & WaitOptions = {}): Promise<Artifact> {
    const { documentId } = await this.upload(input, options);
    await this.waitFor(documentId, options);
    return this.result(documentId, options);
  }

  private get(path: string, signal?: AbortSignal): Promise<Response> {
    return this.transport.call({ method: 'GET', url: `${this.baseUrl}${path}`, idempotent: true, auth: true, signal });
  }
}

type Progress = (n: number) => void;

function progressOf(onProgress: ((p: UploadProgress) => void) | undefined, totalBytes: number | null): Progress | undefined {
  if (!onProgress) return undefined;
  let sent = 0;
  return (n) => {
    // n < 0 starts an attempt over
    sent = n < 0 ? 0 : sent + n;
    onProgress({ sentBytes: sent, totalBytes });
  };
}

/** Progress from the offsets the server acknowledges: only forward, started over if it ever goes back. */
function offsetProgress(progress: Progress): (offset: number) => void {
  let told = 0;
  return (offset) => {
    if (offset < told) {
      progress(-1);
      progress(offset);
    } else if (offset > told) progress(offset - told);
    told = offset;
  };
}

/** The body of each attempt, counted when progress is wanted; a stream's one attempt otherwise. */
function bodyFactory(body: PreparedBody, progress: Progress | undefined): { body: () => BodyInit; once: boolean } {
  const make = body.replay ?? body.once!;
  return {
    body: () => {
      progress?.(-1);
      return make(progress);
    },
    once: body.replay === null,
  };
}

const ROUTING_KEYS = ['documentType', 'csvRoute', 'sqlDialect', 'pdfMode', 'parquetMode', 'callbackUrl'] as const;

function routingBody(o: UploadOptions): Record<string, string | boolean> {
  const out: Record<string, string | boolean> = {};
  for (const k of ROUTING_KEYS) if (o[k] !== undefined) out[k] = o[k]!;
  if (o.customMetadata !== undefined) out.customMetadataJson = JSON.stringify(o.customMetadata);
  if (o.chunkHints !== undefined) out.chunkHints = o.chunkHints;
  return out;
}

function routing(o: UploadOptions): Record<string, string> {
  return Object.fromEntries(Object.entries(routingBody(o)).map(([k, v]) => [k, String(v)]));
}

async function mapLimited<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return out;
}
