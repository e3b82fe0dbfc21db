// The fuzzer's public surface, shared by the CLI (bench/fuzz/fuzz.mjs) and the test
// (test/fuzz/fuzz.test.ts).
export { FAMILIES, loadSeedPool, poolSummary, seedKey, DEFAULT_CORPUS_DIR } from './seeds.mjs';
export { buildCase, caseIndices, familyOfCase } from './cases.mjs';
export { BYTE_MUTATORS, mutate } from './mutators.mjs';
export { Rng, mulberry32 } from './prng.mjs';
export { FuzzRun, runFuzz, DEFAULT_MAX_SEED_BYTES } from './runner.mjs';
export { summaryMarkdown, findingsOf, replayCommand } from './report.mjs';
export { readRegressions, regressionRefs, newRegressions, appendRegressions, REGRESSIONS_FILE } from './regressions.mjs';
export { RAW_REASON, judgeFailure } from './verdict.mjs';
