// What this node did with jobs, by family, counted in place (Float64Array slots, no labels
// built until a scrape): jobs it accepted and the states it moved them to, Document Units
// charged, time spent in the parsing engines, and quota refusals.
import { FAMILIES } from '../formats/registry.js';

/** States a node records a job entering; `queued`: accepted by this node's upload endpoint. */
export const JOB_EVENTS = ['queued', 'completed', 'failed', 'retrying', 'handed_back'] as const;
export type JobEvent = (typeof JOB_EVENTS)[number];

/** Where a quota refusal happened: refusing an upload (429), or failing a job that did not fit. */
export const QUOTA_STAGES = ['upload', 'job'] as const;
export type QuotaStage = (typeof QUOTA_STAGES)[number];

/** Every family, then one for a format no family declares (never expected). */
export const FAMILY_LABELS: readonly string[] = [...FAMILIES.map((f) => f.family), 'unknown'];
const UNKNOWN = FAMILY_LABELS.length - 1;
const FAMILY_OF_FORMAT = new Map<string, number>(FAMILIES.flatMap((f, i) => f.formats.map((d) => [d.format, i] as const)));
const EVENT_INDEX = Object.fromEntries(JOB_EVENTS.map((e, i) => [e, i])) as Record<JobEvent, number>;

type Row = { labels: Record<string, string>; value: number };

export class JobTallies {
  private readonly jobs = new Float64Array(FAMILY_LABELS.length * JOB_EVENTS.length);
  private readonly units = new Float64Array(FAMILY_LABELS.length);
  private readonly engineSeconds = new Float64Array(FAMILY_LABELS.length);
  private readonly quota = new Float64Array(QUOTA_STAGES.length);

  job(format: string, event: JobEvent): void {
    this.jobs[familyIndex(format) * JOB_EVENTS.length + EVENT_INDEX[event]]++;
  }

  /** Document Units charged for a completed job. */
  charged(format: string, units: number): void {
    this.units[familyIndex(format)] += units;
  }

  /** Wall time of one parse task in the parsing process, whatever its outcome. */
  engineTime(format: string, seconds: number): void {
    this.engineSeconds[familyIndex(format)] += seconds;
  }

  quotaRefused(stage: QuotaStage): void {
    this.quota[stage === 'upload' ? 0 : 1]++;
  }

  jobRows(): Row[] {
    return FAMILY_LABELS.flatMap((family, f) => JOB_EVENTS.map((state, e) => ({ labels: { family, state }, value: this.jobs[f * JOB_EVENTS.length + e] })));
  }

  unitRows(): Row[] {
    return FAMILY_LABELS.map((family, f) => ({ labels: { family }, value: this.units[f] }));
  }

  engineRows(): Row[] {
    return FAMILY_LABELS.map((family, f) => ({ labels: { family }, value: this.engineSeconds[f] }));
  }

  quotaRows(): Row[] {
    return QUOTA_STAGES.map((stage, i) => ({ labels: { stage }, value: this.quota[i] }));
  }
}

function familyIndex(format: string): number {
  return FAMILY_OF_FORMAT.get(format) ?? UNKNOWN;
}
