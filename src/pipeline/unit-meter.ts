// Document Units reserved from inside a parsing thread. The parser calls units.reserve(n)
// as soon as it knows the count; the request travels thread → parsing process (over a
// BroadcastChannel) → node (over IPC) → control plane, which reserves atomically against the
// app's monthly quota, and the answer comes back the same way. A refusal surfaces in the
// parser as ExtractionError('quota_exceeded'), before the expensive work — or, for a parser
// that reads on while the answer travels (PDF: formats/pdf/reservation.ts), at its next page.
import { BroadcastChannel, threadId } from 'node:worker_threads';
import { ExtractionError, type UnitMeter } from '../formats/kit/types.js';

export const UNITS_CHANNEL = 'docparse:units';

export type UnitsMessage =
  { op: 'reserve'; taskId: string; reqId: string; total: number } | { op: 'reserved'; reqId: string; ok: boolean; message?: string; transient?: boolean };

/** What the node answers to a reservation. */
export type ReserveOutcome = { ok: true } | { ok: false; message: string; transient?: boolean };

/** No quota in play (parsers called directly, in tests and tools). */
export const unlimitedUnits: UnitMeter = { reserve: async () => {} };

/** A reservation unanswered this long fails the task as transient (the node is in trouble). */
const ANSWER_TIMEOUT_MS = 60_000;

let channel: BroadcastChannel | null = null;
let seq = 0;
const waiting = new Map<string, { resolve(): void; reject(err: Error): void; timer: NodeJS.Timeout }>();

function open(): BroadcastChannel {
  if (channel) return channel;
  channel = new BroadcastChannel(UNITS_CHANNEL);
  (channel as unknown as { unref?: () => void }).unref?.();
  channel.onmessage = (event) => {
    const m = (event as { data: UnitsMessage }).data;
    if (m.op !== 'reserved') return;
    const w = waiting.get(m.reqId);
    if (!w) return; // another thread's answer
    waiting.delete(m.reqId);
    clearTimeout(w.timer);
    if (m.ok) w.resolve();
    else
      w.reject(
        new ExtractionError(
          m.message ?? 'The Document Units for this document could not be reserved.',
          m.transient ? 'extraction_failed' : 'quota_exceeded',
          !!m.transient,
        ),
      );
  };
  return channel;
}

/** The meter of one task run by the parsing process (identified by its taskId). */
export function unitMeterFor(taskId: string | undefined): UnitMeter {
  if (!taskId) return unlimitedUnits;
  let reserved = 0;
  return {
    async reserve(total: number): Promise<void> {
      if (!Number.isInteger(total) || total <= reserved) return;
      const reqId = `${threadId}-${++seq}`;
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.delete(reqId);
          reject(new ExtractionError('The Document Units for this document could not be reserved in time.', 'extraction_failed', true));
        }, ANSWER_TIMEOUT_MS);
        // The pending entry keeps the thread alive only while it waits.
        waiting.set(reqId, { resolve, reject, timer });
        open().postMessage({ op: 'reserve', taskId, reqId, total } satisfies UnitsMessage);
      });
      reserved = total;
    },
  };
}
