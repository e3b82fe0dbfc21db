// What a document holds against what its artifact holds (issue 32, item 4). Every artifact
// carries one completeness block: a client can tell a blank page from a page that failed, a
// skipped attachment from one that was never there, without diffing against the document.
// The counts add up by construction: found = emitted + failed + skipped, per kind.
// The schema is loaded in the main thread for the OpenAPI document.
import { Type, type Static } from '@sinclair/typebox';
import { ProvenanceSchema, type Provenance } from './provenance.js';

/** The parts a family counts. Each family reports the kinds its documents hold. */
export const COMPLETENESS_KINDS = [
  'pages',
  'sheets',
  'slides',
  'tables',
  'messages',
  'attachments',
  'rows',
  'statements',
  'layers',
  'features',
  'layouts',
  'entities',
  'rowGroups',
] as const;
export type CompletenessKind = (typeof COMPLETENESS_KINDS)[number];

/** At most this many gaps are listed per kind (the counts stay exact). */
export const MAX_LISTED_GAPS = 100;

const GapSchema = Type.Object(
  {
    outcome: Type.Union([Type.Literal('failed'), Type.Literal('skipped')]),
    reason: Type.String({ description: 'Why, as a sentence' }),
    provenance: ProvenanceSchema,
  },
  { additionalProperties: false },
);

export const TallySchema = Type.Object(
  {
    found: Type.Integer({ minimum: 0, description: 'How many the document holds' }),
    emitted: Type.Integer({ minimum: 0, description: 'How many the artifact holds' }),
    empty: Type.Integer({ minimum: 0, description: 'Of those emitted, how many hold nothing (a blank page, an empty sheet)' }),
    failed: Type.Integer({ minimum: 0, description: 'Could not be read; not in the artifact' }),
    skipped: Type.Integer({ minimum: 0, description: 'Left out on purpose (format not extracted, over a limit, encrypted); not in the artifact' }),
    gaps: Type.Array(GapSchema, { description: `Each one failed or skipped, with why (at most ${MAX_LISTED_GAPS})` }),
    gapsTruncated: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export const CompletenessSchema = Type.Object(
  {
    complete: Type.Boolean({ description: 'true when everything found was emitted (nothing failed or skipped)' }),
    ...Object.fromEntries(COMPLETENESS_KINDS.map((k) => [k, Type.Optional(TallySchema)])),
  },
  {
    additionalProperties: false,
    description: 'What the document holds against what the artifact holds, per kind; found = emitted + failed + skipped',
  },
);

export type Tally = Static<typeof TallySchema>;
export type Gap = Static<typeof GapSchema>;
export type Completeness = { complete: boolean } & { [K in CompletenessKind]?: Tally };

/** Counts one document's parts as a parser goes; `result()` is the artifact's block. */
export class CompletenessCounter {
  private readonly tallies = new Map<CompletenessKind, Tally>();

  /** Declares a kind the document holds (so it is reported even when there are none). */
  kind(kind: CompletenessKind): this {
    this.tally(kind);
    return this;
  }

  /** `n` parts found and emitted; `empty` of them hold nothing. */
  emitted(kind: CompletenessKind, n = 1, empty = 0): this {
    const t = this.tally(kind);
    t.found += n;
    t.emitted += n;
    t.empty += empty;
    return this;
  }

  /**
   * One part found and left out: it could not be read (`failed`) or was not extracted (`skipped`).
   * `n` > 1: a run of parts left out alike (the rows of a file read metadata-only), counted `n`
   * times and listed once, its provenance spanning the run — a million rows are not a million gaps.
   */
  missed(kind: CompletenessKind, outcome: 'failed' | 'skipped', reason: string, provenance: Provenance = {}, n = 1): this {
    const t = this.tally(kind);
    t.found += n;
    t[outcome] += n;
    if (t.gaps.length < MAX_LISTED_GAPS) t.gaps.push({ outcome, reason, provenance });
    else t.gapsTruncated = true;
    return this;
  }

  result(): Completeness {
    const out: Completeness = { complete: true };
    for (const kind of COMPLETENESS_KINDS) {
      const t = this.tallies.get(kind);
      if (!t) continue;
      out[kind] = t;
      if (t.failed || t.skipped) out.complete = false;
    }
    return out;
  }

  private tally(kind: CompletenessKind): Tally {
    let t = this.tallies.get(kind);
    if (!t) {
      t = { found: 0, emitted: 0, empty: 0, failed: 0, skipped: 0, gaps: [] };
      this.tallies.set(kind, t);
    }
    return t;
  }
}
