// Borderless tables on the corpus (needs it: listed in NEEDS_CORPUS): camelot's birdisland
// scored against camelot's own published output (bench/pdf/truth), and the ruled tables'
// accuracy kept. Floors are the scores reached: they may only rise.
import { describe, expect, it } from 'vitest';
// @ts-expect-error plain JS bench module
import { corpusSet, truthAccuracy } from '../../../bench/pdf/table-truth.mjs';
// @ts-expect-error plain JS bench module
import { tableAccuracy } from '../../../bench/pdf/tables.mjs';

describe('Advanced: borderless tables on the corpus', () => {
  it('camelot birdisland: cell accuracy against camelot’s output ≥ 0.97 (target 0.85)', async () => {
    const [[pdf, truth]] = corpusSet().filter(([p]: [string]) => p.endsWith('camelot__birdisland.pdf'));
    const r = await truthAccuracy(pdf, truth);
    expect(r.accuracy).toBeGreaterThanOrEqual(0.97);
  });

  it('ruled tables keep their accuracy (poppler’s words inside each cell)', async () => {
    const floors: [string, number][] = [
      ['camelot__column_span_1.pdf', 1],
      ['pdfplumber__nics-background-checks-2015-11.pdf', 1],
      ['pdfplumber__nics-background-checks-2015-11-rotated.pdf', 0.998],
      ['camelot__eu-001.pdf', 0.995],
    ];
    for (const [f, floor] of floors) expect((await tableAccuracy(f)).accuracy, f).toBeGreaterThanOrEqual(floor - 0.0005);
  });
});
