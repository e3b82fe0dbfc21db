// The job state machine: the ONE table of legal transitions. Everything else (assertions,
// the Redis transition script's legality check, the README diagram) is derived from it.

import { JobState, STATUS_NAMES, type JobStateInt } from './types.js';

const S = JobState;

/**
 * Legal next states, by current state.
 *  0 presigned upload session awaiting bytes → 1 bytes stored → 2 enqueued (an upload is
 *  stored directly in 2);
 *  light lane: 2 → 3 processing → 4 materializing → 8;
 *  heavy lane: 2 → 6 waiting for a slot → 7 running → 4 → 8;
 *  a transient failure (or a redelivered job found in 3/4/7) goes to 5, then back to 3 or 6;
 *  any unfinished state may fail (9). 8 and 9 are terminal.
 */
export const TRANSITIONS: Readonly<Record<JobStateInt, readonly JobStateInt[]>> = Object.freeze({
  [S.NotQueued]: [S.Received, S.Failed],
  [S.Received]: [S.Queued, S.Failed],
  [S.Queued]: [S.Processing, S.WaitingForProvider, S.Failed],
  [S.Processing]: [S.Materializing, S.Retrying, S.Failed],
  [S.Materializing]: [S.Completed, S.Retrying, S.Failed],
  [S.Retrying]: [S.Processing, S.WaitingForProvider, S.Failed],
  [S.WaitingForProvider]: [S.ProviderProcessing, S.Failed],
  [S.ProviderProcessing]: [S.Materializing, S.Retrying, S.Failed],
  [S.Completed]: [],
  [S.Failed]: [],
});

/**
 * States a record may be created in by JobStore.put: a presigned session (0), or a direct
 * upload, stored as queued (2) in the same write that stores it (1 is a record of an earlier
 * version, or one written by hand).
 */
export const INITIAL_STATES: readonly JobStateInt[] = [S.NotQueued, S.Received, S.Queued];

/**
 * States a cancel stops a job in (DELETE or POST …/cancel): waiting, queued or parsing. Not
 * materializing (4): that job's parse is over and its result is being stored and charged, so
 * a cancel lets it finish and deletes its result, as for a finished job. The one check is the
 * store's own transition to failed (it refuses any other source state), so a cancel and the
 * worker's 3 → 4 never both win.
 */
export const CANCELLABLE_STATES: readonly JobStateInt[] = [
  S.NotQueued,
  S.Received,
  S.Queued,
  S.Processing,
  S.Retrying,
  S.WaitingForProvider,
  S.ProviderProcessing,
];

export const ALL_STATES: readonly JobStateInt[] = (Object.values(JobState) as JobStateInt[]).slice().sort((a, b) => a - b);

export class IllegalTransitionError extends Error {
  constructor(
    public readonly from: number,
    public readonly to: number,
  ) {
    super(`illegal job transition ${from} (${stateName(from)}) → ${to} (${stateName(to)})`);
    this.name = 'IllegalTransitionError';
  }
}

function stateName(s: number): string {
  return STATUS_NAMES[s as JobStateInt] ?? 'unknown';
}

export function isJobState(s: unknown): s is JobStateInt {
  return typeof s === 'number' && Number.isInteger(s) && s >= 0 && s <= 9;
}

export function canTransition(from: number, to: number): boolean {
  if (!isJobState(from) || !isJobState(to)) return false;
  return TRANSITIONS[from].includes(to);
}

export function assertTransition(from: number, to: number): void {
  if (!canTransition(from, to)) throw new IllegalTransitionError(from, to);
}

/** Completed (8) or failed (9). */
export function isTerminal(s: number): boolean {
  return isJobState(s) && TRANSITIONS[s].length === 0;
}

/** States 0–7: counted against the per-app concurrency limit. */
export function isUnfinished(s: number): boolean {
  return isJobState(s) && !isTerminal(s);
}

/** States 1–7: bytes are stored and the job must reach a worker (re-enqueued on recovery). */
export function needsDelivery(s: number): boolean {
  return isUnfinished(s) && s !== S.NotQueued;
}

/** The states from which `to` may be reached (used by the Redis transition script). */
export function legalSources(to: JobStateInt): JobStateInt[] {
  return ALL_STATES.filter((from) => TRANSITIONS[from].includes(to));
}

function buildMermaid(): string {
  const lines = ['stateDiagram-v2'];
  for (const s of ALL_STATES) lines.push(`    s${s}: ${s} ${STATUS_NAMES[s]}`);
  for (const s of INITIAL_STATES) lines.push(`    [*] --> s${s}`);
  for (const from of ALL_STATES) {
    for (const to of TRANSITIONS[from]) lines.push(`    s${from} --> s${to}`);
    if (isTerminal(from)) lines.push(`    s${from} --> [*]`);
  }
  return lines.join('\n') + '\n';
}

/** Mermaid diagram generated from TRANSITIONS (paste into README inside a ```mermaid block). */
export const TRANSITIONS_MERMAID: string = buildMermaid();
