// The live status feed of waitFor: the job's Server-Sent Events stream
// (GET /api/v1/documents/{id}/events), read with fetch alone (Node 20+ and browsers), resumed
// with Last-Event-ID when it ends early (a node that drains ends it), and replaced by polling
// when the stream cannot be had (an older server, a proxy that buffers, errors in a row).
import { DocparseError } from './errors.js';
import type { StatusFeed } from './wait.js';
import { isTerminal } from './wait.js';
import type { JobStatus } from './types.js';

/** Opens the event stream of one job (after `lastEventId` when given). */
export type OpenEvents = (documentId: string, lastEventId: string | undefined, signal: AbortSignal) => Promise<Response>;

/** Connections in a row that bring no event before the feed falls back to polling. */
const MAX_FRUITLESS_CONNECTIONS = 3;

interface SseEvent {
  id: string | undefined;
  event: string;
  data: string;
}

/**
 * Follows one job on its event stream; several jobs (a batch) are polled, one request for up to
 * 100. An id the server does not know comes back as `{documentId, error}`, as polling gives it.
 */
export function liveFeed(open: OpenEvents, fallback: StatusFeed): StatusFeed {
  return async function* live(documentIds, signal) {
    if (documentIds.length !== 1) return yield* fallback(documentIds, signal);
    const documentId = documentIds[0];
    let lastEventId: string | undefined;
    for (let fruitless = 0; fruitless < MAX_FRUITLESS_CONNECTIONS;) {
      let res: Response;
      try {
        res = await open(documentId, lastEventId, signal);
      } catch (err) {
        if (signal.aborted) throw err;
        if (err instanceof DocparseError && err.code === 'document_not_found') {
          yield [{ documentId, error: { code: 'document_not_found', message: err.detail ?? 'unknown or expired document id' } }];
          return;
        }
        break; // no stream here: poll
      }
      if (!res.body || !/^text\/event-stream/i.test(res.headers.get('content-type') ?? '')) break;
      let seen = false;
      try {
        for await (const e of readEvents(res.body)) {
          if (e.event !== 'state') continue;
          seen = true;
          if (e.id !== undefined) lastEventId = e.id;
          const status = JSON.parse(e.data) as JobStatus;
          yield [status];
          if (isTerminal(status)) return;
        }
      } catch (err) {
        if (signal.aborted) throw err;
      }
      fruitless = seen ? 0 : fruitless + 1;
    }
    yield* fallback(documentIds, signal);
  };
}

/** The events of a text/event-stream body (comments skipped). */
export async function* readEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let id: string | undefined;
  let event = '';
  let data: string[] = [];
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
        const line = buffer.slice(0, nl).replace(/\r$/, '');
        buffer = buffer.slice(nl + 1);
        if (line === '') {
          if (data.length) yield { id, event: event || 'message', data: data.join('\n') };
          event = '';
          data = [];
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const v = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'id') id = v;
        else if (field === 'event') event = v;
        else if (field === 'data') data.push(v);
      }
    }
  } finally {
    reader.releaseLock();
    await body.cancel().catch(() => {});
  }
}
