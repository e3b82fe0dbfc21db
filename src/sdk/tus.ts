// The resumable (tus 1.0) leg of a presigned upload: the session's uploadUrl is a tus upload,
// so the bytes go as PATCHes of chunkSize, each from the offset the server holds. After a lost
// connection or a 5xx the server is asked (HEAD) where it stands and the upload goes on from
// there; a 409 names that offset itself. Retries are bounded and back off; any progress made
// resets the count. Only fetch is used (Node 20+ and browsers).
import { DocparseError, errorFromResponse } from './errors.js';
import type { RetryPolicy } from './transport.js';

export const TUS_VERSION = '1.0.0';
/** Default PATCH size: the server's S3 part size, so no tails are left between PATCHes. */
export const DEFAULT_CHUNK_BYTES = 8 * 1024 * 1024;

/** Bytes [offset, end) of the upload, read when a PATCH needs them. */
export interface ChunkSource {
  read(offset: number, end: number): Promise<Uint8Array<ArrayBuffer>>;
}

/** A Blob (a File, bytes, a file from docparse/node) is re-read at any offset. */
export function blobSource(blob: Blob): ChunkSource {
  return { read: async (offset, end) => new Uint8Array(await blob.slice(offset, end).arrayBuffer()) };
}

/**
 * A stream is read once: only the chunk in flight is kept (until the server acknowledges
 * it), so an upload resumes from any offset within that chunk, never from before it.
 */
export function streamSource(stream: ReadableStream<Uint8Array>): ChunkSource {
  const reader = stream.getReader();
  let held: Uint8Array = new Uint8Array(0);
  let heldStart = 0;
  let done = false;
  return {
    async read(offset, end) {
      if (offset < heldStart) {
        throw new DocparseError({
          status: 0,
          code: 'upload_not_resumable',
          detail: `the server holds ${offset} bytes but this stream's bytes before ${heldStart} are gone (a stream resumes only within the chunk in flight)`,
        });
      }
      // Acknowledged bytes are dropped; the rest of the chunk is read on.
      held = held.subarray(Math.min(offset - heldStart, held.length));
      heldStart = offset;
      const parts: Uint8Array[] = [held];
      let have = held.length;
      while (have < end - offset && !done) {
        const r = await reader.read();
        if (r.done) done = true;
        else {
          parts.push(r.value);
          have += r.value.length;
        }
      }
      if (parts.length > 1) {
        held = new Uint8Array(have);
        let at = 0;
        for (const p of parts) {
          held.set(p, at);
          at += p.length;
        }
      }
      if (have < end - offset)
        throw new DocparseError({ status: 0, code: 'upload_truncated', detail: `the stream ended at ${heldStart + have} bytes, before its declared size` });
      return held.slice(0, end - offset);
    },
  };
}

export interface TusUploadSpec {
  fetch: typeof fetch;
  url: string;
  size: number;
  source: ChunkSource;
  chunkBytes: number;
  retry: RetryPolicy;
  /** The bytes the server holds, each time they change. */
  onOffset?: (offset: number) => void;
  signal?: AbortSignal;
  /** The offset a HEAD answered, when known already. */
  startOffset?: number;
}

/**
 * Asks the upload URL where it stands: its offset when it speaks tus, null when it does not
 * (then the SDK sends the file as one PUT).
 */
export async function tusOffset(f: typeof fetch, url: string, signal?: AbortSignal): Promise<number | null> {
  const res = await send(f, url, { method: 'HEAD', headers: { 'Tus-Resumable': TUS_VERSION }, signal });
  if (res.ok && res.headers.get('tus-resumable') === TUS_VERSION) return readOffset(res);
  if (res.ok || res.status === 404 || res.status === 405 || res.status === 501) return null;
  throw await errorFromResponse(res);
}

export async function tusUpload(spec: TusUploadSpec): Promise<void> {
  let offset = spec.startOffset ?? (await headOffset(spec));
  let failures = 0;
  spec.onOffset?.(offset);
  while (offset < spec.size) {
    const end = Math.min(offset + spec.chunkBytes, spec.size);
    const body = await spec.source.read(offset, end);
    let failure: DocparseError;
    try {
      const res = await send(spec.fetch, spec.url, {
        method: 'PATCH',
        headers: { 'Tus-Resumable': TUS_VERSION, 'Upload-Offset': String(offset), 'Content-Type': 'application/offset+octet-stream' },
        body,
        signal: spec.signal,
      });
      if (res.status === 204 || res.ok) {
        await res.body?.cancel();
        offset = readOffset(res);
        failures = 0;
        spec.onOffset?.(offset);
        continue;
      }
      failure = await errorFromResponse(res);
      if (res.status === 409 && res.headers.get('upload-offset') !== null) {
        // The server names where it stands: go on from there (not a failure of the network).
        offset = readOffset(res);
        spec.onOffset?.(offset);
        if (++failures > spec.retry.maxRetries) throw failure;
        continue;
      }
    } catch (err) {
      if (spec.signal?.aborted) throw spec.signal.reason ?? err;
      if (!(err instanceof DocparseError)) throw err;
      failure = err;
    }
    // Lost connection or 5xx: part of the chunk may be stored. Anything else is the answer.
    if (!(failure.status === 0 || failure.status >= 500) || failure.code === 'upload_not_resumable' || ++failures > spec.retry.maxRetries) throw failure;
    await sleep(Math.min(spec.retry.maxDelayMs, spec.retry.baseDelayMs * 2 ** (failures - 1)), spec.signal);
    offset = await headOffset(spec);
    spec.onOffset?.(offset);
  }
}

/** HEAD, retried like the PATCH on lost connections and 5xx. */
async function headOffset(spec: TusUploadSpec): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    try {
      const res = await send(spec.fetch, spec.url, { method: 'HEAD', headers: { 'Tus-Resumable': TUS_VERSION }, signal: spec.signal });
      if (res.ok) return readOffset(res);
      const failure = await errorFromResponse(res);
      if (res.status < 500 || attempt >= spec.retry.maxRetries) throw failure;
    } catch (err) {
      if (spec.signal?.aborted) throw spec.signal.reason ?? err;
      if (!(err instanceof DocparseError) || err.status !== 0 || attempt >= spec.retry.maxRetries) throw err;
    }
    await sleep(Math.min(spec.retry.maxDelayMs, spec.retry.baseDelayMs * 2 ** attempt), spec.signal);
  }
}

function readOffset(res: Response): number {
  const raw = res.headers.get('upload-offset');
  if (raw === null || !/^\d+$/.test(raw))
    throw new DocparseError({ status: res.status, code: 'invalid_response', detail: 'the upload URL answered without an Upload-Offset' });
  return Number(raw);
}

async function send(f: typeof fetch, url: string, init: RequestInit): Promise<Response> {
  try {
    return await f(url, init);
  } catch (err) {
    if (init.signal?.aborted) throw err;
    throw new DocparseError({ status: 0, code: 'network_error', detail: `${init.method} ${url} failed: ${(err as Error).message}`, cause: err });
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(t), reject(signal.reason)), { once: true });
  });
}
