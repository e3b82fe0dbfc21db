// A Server-Sent Events client for tests: reads a text/event-stream response over real HTTP and
// yields its events as they come (comments counted, not yielded), per the WHATWG parsing rules
// the tests need: `id`, `event`, `data` (joined lines), blank line ends an event.

export interface SseEvent {
  id: string | undefined;
  event: string;
  data: string;
}

export interface SseStream {
  status: number;
  headers: Headers;
  /** The events, until the server ends the stream (or close()). */
  events: AsyncGenerator<SseEvent>;
  /** Comment lines seen so far (heartbeats). */
  comments(): number;
  close(): void;
}

export async function openSse(url: string, token: string, opts: { lastEventId?: string; signal?: AbortSignal } = {}): Promise<SseStream> {
  const ac = new AbortController();
  opts.signal?.addEventListener('abort', () => ac.abort(), { once: true });
  const res = await fetch(url, {
    headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream', ...(opts.lastEventId ? { 'last-event-id': opts.lastEventId } : {}) },
    signal: ac.signal,
  });
  let comments = 0;
  async function* events(): AsyncGenerator<SseEvent> {
    if (!res.body) return;
    const decoder = new TextDecoder();
    let buffer = '';
    let current: { id?: string; event?: string; data: string[] } = { data: [] };
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let nl: number;
        while ((nl = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, nl).replace(/\r$/, '');
          buffer = buffer.slice(nl + 1);
          if (line === '') {
            if (current.data.length || current.event) yield { id: current.id, event: current.event ?? 'message', data: current.data.join('\n') };
            current = { data: [] };
          } else if (line.startsWith(':')) comments++;
          else {
            const at = line.indexOf(':');
            const field = at < 0 ? line : line.slice(0, at);
            const value = at < 0 ? '' : line.slice(at + 1).replace(/^ /, '');
            if (field === 'id') current.id = value;
            else if (field === 'event') current.event = value;
            else if (field === 'data') current.data.push(value);
          }
        }
      }
    } catch (err) {
      if (!ac.signal.aborted) throw err;
    }
  }
  return { status: res.status, headers: res.headers, events: events(), comments: () => comments, close: () => ac.abort() };
}

/** Reads `state` events (parsed) until the stream ends; progress events are kept apart. */
export async function collectStates(
  stream: SseStream,
): Promise<{ states: { id: string | undefined; statusInt: number; body: Record<string, unknown> }[]; progress: unknown[] }> {
  const states: { id: string | undefined; statusInt: number; body: Record<string, unknown> }[] = [];
  const progress: unknown[] = [];
  for await (const e of stream.events) {
    if (e.event === 'state') {
      const body = JSON.parse(e.data) as Record<string, unknown>;
      states.push({ id: e.id, statusInt: body.statusInt as number, body });
    } else if (e.event === 'progress') progress.push(JSON.parse(e.data));
  }
  return { states, progress };
}

/** The next event of this type (parsed data); the stream stays open for the rest. */
export async function nextEvent(stream: SseStream, type: string): Promise<Record<string, unknown>> {
  for (;;) {
    const { value, done } = await stream.events.next();
    if (done) throw new Error(`the stream ended before a ${type} event`);
    if (value.event === type) return JSON.parse(value.data) as Record<string, unknown>;
  }
}
