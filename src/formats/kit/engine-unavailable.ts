// The failure of a job that reached a worker node without an engine it needs. Transient: the
// job is retried (with backoff, possibly on another worker that has the engine) and, when
// retries run out, fails charged nothing — never completed without the engine's work.
import { ExtractionError } from './types.js';
import type { JobFailureCode } from '../../errors/catalogue.js';

export const ENGINE_UNAVAILABLE = 'engine_unavailable' satisfies JobFailureCode;

/** `subject` is what is missing ('LibreOffice'); `why` completes "it is needed …". */
export function engineUnavailable(subject: string, why: string): ExtractionError {
  return new ExtractionError(`${subject} is not installed on the worker node that took this job; it is needed ${why}.`, ENGINE_UNAVAILABLE, true);
}
