import { describe, expect, it } from 'vitest';
import { CompletenessCounter, MAX_LISTED_GAPS } from '../../../src/formats/kit/completeness.js';
import { mergeProvenance, unionRange } from '../../../src/formats/kit/provenance-merge.js';
import type { Provenance } from '../../../src/formats/kit/provenance.js';

describe('completeness counter', () => {
  it('adds up: found = emitted + failed + skipped, and a gap makes the document incomplete', () => {
    const c = new CompletenessCounter().emitted('pages', 3, 1).missed('pages', 'failed', 'The page could not be read.', { page: 4 });
    c.kind('tables');
    const r = c.result();
    expect(r.complete).toBe(false);
    expect(r.pages).toEqual({
      found: 4,
      emitted: 3,
      empty: 1,
      failed: 1,
      skipped: 0,
      gaps: [{ outcome: 'failed', reason: 'The page could not be read.', provenance: { page: 4 } }],
    });
    expect(r.tables).toEqual({ found: 0, emitted: 0, empty: 0, failed: 0, skipped: 0, gaps: [] });
    expect(r.messages).toBeUndefined();
  });

  it('is complete when nothing was left out, and lists at most a bounded number of gaps with exact counts', () => {
    expect(new CompletenessCounter().emitted('rows', 10).result().complete).toBe(true);
    const c = new CompletenessCounter();
    for (let i = 0; i < MAX_LISTED_GAPS + 5; i++) c.missed('attachments', 'skipped', 'too large', { message: 1, attachment: [i + 1] });
    const t = c.result().attachments!;
    expect(t.skipped).toBe(MAX_LISTED_GAPS + 5);
    expect(t.gaps).toHaveLength(MAX_LISTED_GAPS);
    expect(t.gapsTruncated).toBe(true);
  });

  it('counts a run of parts left out alike n times and lists it once', () => {
    const t = new CompletenessCounter()
      .emitted('rows', 5)
      .missed('rows', 'skipped', 'Rows are not read in this mode.', { rows: [5, 1004] }, 1000)
      .result().rows!;
    expect(t).toMatchObject({ found: 1005, emitted: 5, skipped: 1000, failed: 0 });
    expect(t.gaps).toEqual([{ outcome: 'skipped', reason: 'Rows are not read in this mode.', provenance: { rows: [5, 1004] } }]);
  });
});

describe('provenance joining (chunks)', () => {
  it('joins boxes on the same page and keeps other pages apart', () => {
    const list: Provenance[] = [];
    mergeProvenance(list, { page: 1, box: [10, 10, 50, 20] });
    mergeProvenance(list, { page: 1, box: [5, 30, 40, 60] });
    mergeProvenance(list, { page: 2, box: [0, 0, 1, 1] });
    expect(list).toEqual([
      { page: 1, box: [5, 10, 50, 60] },
      { page: 2, box: [0, 0, 1, 1] },
    ]);
  });

  it('joins A1 ranges and line spans of one place', () => {
    expect(unionRange('A1:B2', 'C5')).toBe('A1:C5');
    expect(unionRange('AA10', 'Z3')).toBe('Z3:AA10');
    const list: Provenance[] = [];
    mergeProvenance(list, { sheet: 'Q1', range: 'B2:C3' });
    mergeProvenance(list, { sheet: 'Q1', range: 'A7' });
    mergeProvenance(list, { lines: [3, 4] });
    mergeProvenance(list, { lines: [9, 12] });
    expect(list).toEqual([{ sheet: 'Q1', range: 'A2:C7' }, { lines: [3, 12] }]);
  });
});
