// A short fuzz run against a real node (its own OS process, as bench/fuzz/fuzz.mjs starts
// it): mutated files of all eight families through the HTTP API, plus every case in
// regressions.json. No crash, no stuck job, no 5xx, and every failure has a reason.
// Needs dist/ (`npm run build`). The long run: `node bench/fuzz/fuzz.mjs --cases 3000`.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
// @ts-expect-error plain .mjs module shared with the fuzz CLI
import {
  FAMILIES,
  FuzzRun,
  buildCase,
  caseIndices,
  findingsOf,
  loadSeedPool,
  readRegressions,
  regressionRefs,
  replayCommand,
  summaryMarkdown,
} from '../../bench/fuzz/lib.mjs';

const SEED = 20261126;
const CASES = 152; // 19 per family
const MAX_SEED_BYTES = 256 * 1024; // small seeds keep the run to a couple of minutes

const digest = (c: { bytes: Buffer; query: object; mutation: string; seedFile: string }) =>
  createHash('sha256').update(c.bytes).update(JSON.stringify(c.query)).update(c.mutation).update(c.seedFile).digest('hex');

describe('fuzz cases', () => {
  it('every family has generated seeds, so a clone without the corpus fuzzes all eight', () => {
    const pool = loadSeedPool({ useCorpus: false });
    for (const f of FAMILIES) expect(pool[f].length, f).toBeGreaterThan(0);
  });

  it('the same seed and index rebuild the same case, whatever else is generated', async () => {
    const a = loadSeedPool({ maxSeedBytes: MAX_SEED_BYTES });
    const b = loadSeedPool({ maxSeedBytes: MAX_SEED_BYTES });
    const indices = caseIndices({ count: 48 });
    const first = await Promise.all(indices.map(async (i: number) => digest(await buildCase(SEED, i, a))));
    const again = await Promise.all([...indices].reverse().map(async (i: number) => digest(await buildCase(SEED, i, b))));
    expect(again.reverse()).toEqual(first);
    const filtered = caseIndices({ count: 6, families: ['pdf'] });
    expect(filtered.every((i: number) => FAMILIES[i % FAMILIES.length] === 'pdf')).toBe(true);
  });
});

/** Regression entries whose case still comes from the same seed file (the corpus may be absent). */
async function replayableRegressions(): Promise<object[]> {
  const refs = regressionRefs(readRegressions());
  const pools = new Map<number, unknown>();
  const out: object[] = [];
  for (const ref of refs) {
    if (!pools.has(ref.maxSeedBytes)) pools.set(ref.maxSeedBytes, loadSeedPool({ maxSeedBytes: ref.maxSeedBytes }));
    const c = await buildCase(ref.seed, ref.index, pools.get(ref.maxSeedBytes), { seedFile: ref.expect.seedFile });
    if (c) out.push(ref);
    else console.warn(`regression ${ref.seed}:${ref.index}: its seed ${ref.expect.seedFile} is not in the pool: skipped (corpus missing or changed)`);
  }
  return out;
}

describe('fuzz run against a node', () => {
  it(
    '152 mutated files and the regression cases: no crash, no stuck job, no 5xx, every failure with a reason written for a person',
    async () => {
      const main = caseIndices({ count: CASES }).map((index: number) => ({ seed: SEED, index, maxSeedBytes: MAX_SEED_BYTES }));
      const regressions = await replayableRegressions();
      const run = await new FuzzRun({
        seed: SEED,
        refs: [...main, ...regressions],
        concurrency: 4,
        maxSeedBytes: MAX_SEED_BYTES,
        isolate: 8,
        progressEvery: 25,
      }).run();
      console.log(summaryMarkdown(run, { title: `fuzz test, seed ${SEED}, ${main.length} cases + ${regressions.length} regressions` }));

      const records = [...run.records, ...run.isolation];
      const describeCase = (r: any, what: string) => `${replayCommand(r)} (${r.family} ${r.seedFile}; ${r.mutation}): ${what}`;
      const crashes = run.crashes.map((c: any) => `crash #${c.id}: ${c.reason}; in flight: ${c.inFlight.map((r: any) => replayCommand(r)).join(', ')}`);
      const stuck = records.filter((r: any) => r.outcome === 'stuck').map((r: any) => describeCase(r, `stuck ${r.stuckFor} s`));
      const server5xx = records.filter((r: any) => r.server5xx.length).map((r: any) => describeCase(r, JSON.stringify(r.server5xx)));
      const noReason = records.filter((r: any) => r.noReason).map((r: any) => describeCase(r, 'failed without a reason'));
      const rawReasons = records.filter((r: any) => r.rawReason).map((r: any) => describeCase(r, `raw reason: ${r.rawReason}`));
      const otherEnds = records
        .filter((r: any) => !['completed', 'failed', 'rejected', 'crash', 'stuck'].includes(r.outcome) || r.anomaly)
        .map((r: any) => describeCase(r, findingsOf(r).join('; ')));

      expect(crashes, 'node crashes').toEqual([]);
      expect(stuck, 'stuck jobs').toEqual([]);
      expect(server5xx, '5xx responses').toEqual([]);
      expect(run.orphan5xx, '5xx outside cases').toEqual([]);
      expect(noReason, 'failures without a reason').toEqual([]);
      // A reason is a sentence about the document; the library's own error goes to the log.
      expect(rawReasons, 'failure reasons that are raw JavaScript errors').toEqual([]);
      expect(otherEnds, 'jobs that did not end completed or failed').toEqual([]);
      expect(run.records.length).toBe(main.length + regressions.length);
      fs.rmSync(run.o.outDir, { recursive: true, force: true }); // kept (cases.jsonl, node logs) when an assertion fails
    },
    40 * 60_000,
  );
});
