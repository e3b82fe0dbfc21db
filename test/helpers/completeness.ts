// The check every family's completeness tests share: the block adds up on its own.
import { expect } from 'vitest';
import { MAX_LISTED_GAPS } from '../../src/formats/kit/completeness.js';

/**
 * found = emitted + failed + skipped and empty ≤ emitted for every kind; no more gaps listed
 * than were counted (a run of parts left out alike is listed once); complete only without any.
 */
export function expectCompletenessAddsUp(c: Record<string, any>): void {
  let missed = 0;
  for (const [kind, t] of Object.entries(c)) {
    if (kind === 'complete') continue;
    expect(t.found, kind).toBe(t.emitted + t.failed + t.skipped);
    expect(t.empty, kind).toBeLessThanOrEqual(t.emitted);
    expect(t.gaps.length, kind).toBeLessThanOrEqual(Math.min(t.failed + t.skipped, MAX_LISTED_GAPS));
    if (t.failed + t.skipped > 0) expect(t.gaps.length, kind).toBeGreaterThan(0);
    missed += t.failed + t.skipped;
  }
  expect(c.complete).toBe(missed === 0);
}
