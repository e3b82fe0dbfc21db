// Which tasks the parsing process runs on its own main thread instead of a pool thread.
//
// Handing a task to a thread and its result back (a structured clone and a wake-up of the
// other side's event loop, each way; Piscina's and the pool's bookkeeping) costs ≈ 0.35 ms of
// CPU, a third of what a small CSV job costs the parsing process (docs/performance.md, "The
// parsing process's hand-off"). A thread is there to be stopped (a timeout, a cancel), to bound
// one parse's heap and to be replaced after it; a task runs inline only when none of that can be
// needed: a format whose parser is plain JavaScript, linear in its input, that starts no engine,
// no subprocess and opens no archive (CSV), and an input small enough that its parse is over in
// a few milliseconds. The process stays the crash boundary: what would end a thread (an
// exception outside the parser's promise chain, the heap ceiling, which the process's own V8
// heap shares with the threads: parse-host.ts) ends the process instead, and its tasks are
// sorted out as after any crash (each suspect re-run alone, the culprit blamed); the node's hard
// deadline still stops an inline task that ran on.
import type { ParseTask } from './task.js';

/** Largest upload run inline (bytes): a 16 KiB CSV (380 rows) takes ≈ 3–3.5 ms of CPU to parse here, a 2 KB one ≈ 0.65 ms. */
export const INLINE_MAX_BYTES = 16 * 1024;

/** Formats whose parser qualifies (see above). */
const INLINE_FORMATS: ReadonlySet<string> = new Set(['csv']);

/** Whether the parsing process runs `task` on its main thread (a task of unknown size never does). */
export function runsInline(task: ParseTask): boolean {
  return task.inputBytes !== undefined && task.inputBytes <= INLINE_MAX_BYTES && INLINE_FORMATS.has(task.format);
}
