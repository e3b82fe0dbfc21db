// What upload() accepts, made into request bodies: a Blob (a File, or a file opened by
// docparse/node) or bytes can be sent again, so their uploads are retried; a ReadableStream
// goes out once. Bodies are counted as fetch reads them when the caller wants progress.

export type UploadInput = Blob | Uint8Array | ArrayBuffer | ReadableStream<Uint8Array>;

export interface PreparedBody {
  /** Bytes, when known (a stream's only when the caller says). */
  size: number | null;
  /** The File's name, when the input was a File. */
  fileName?: string;
  /** A fresh body per attempt; null for a stream, which can be read once. */
  replay: ((onBytes?: (n: number) => void) => BodyInit) | null;
  /** The stream itself, for the one attempt a stream gets. */
  once?: (onBytes?: (n: number) => void) => BodyInit;
  /** Whether onBytes is told as fetch reads the body (else only the end is known, once answered). */
  counted: boolean;
  /** The input itself, read in chunks by a resumable upload. */
  source: Blob | ReadableStream<Uint8Array>;
}

/**
 * Node's fetch sends a ReadableStream body over HTTP/1.1; browsers do only over HTTP/2 and
 * not all of them, so there a Blob goes as it is (with its Content-Length) and progress is
 * known only at the end.
 */
const STREAMED_BODIES = typeof (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node === 'string';

/** Content-Length the front accepts (10^9 and up closes the connection): larger bodies go chunked. */
const MAX_CONTENT_LENGTH = 999_999_999;

export function prepareBody(input: UploadInput, declaredSize?: number): PreparedBody {
  if (typeof ReadableStream !== 'undefined' && input instanceof ReadableStream) {
    let used = false;
    return {
      size: declaredSize ?? null,
      counted: true,
      source: input,
      replay: null,
      once: (onBytes) => {
        if (used) throw new Error('a ReadableStream can be uploaded once');
        used = true;
        return onBytes ? input.pipeThrough(counter(onBytes)) : input;
      },
    };
  }
  const blob = input instanceof Blob ? input : new Blob([input as BlobPart]);
  const fileName = typeof File !== 'undefined' && input instanceof File && input.name ? input.name : undefined;
  return {
    size: blob.size,
    fileName,
    counted: STREAMED_BODIES,
    source: blob,
    // A Blob goes with its Content-Length; streamed (chunked) when counted or too large for one.
    replay: (onBytes) => (STREAMED_BODIES && (onBytes || blob.size > MAX_CONTENT_LENGTH) ? blob.stream().pipeThrough(counter(onBytes ?? (() => {}))) : blob),
  };
}

function counter(onBytes: (n: number) => void): TransformStream<Uint8Array, Uint8Array> {
  return new TransformStream({
    transform(chunk, controller) {
      controller.enqueue(chunk);
      onBytes(chunk.byteLength);
    },
  });
}
