// The regression list (test/fuzz/regressions.json): every case that ever crashed the node or
// the parsing process, or got a 5xx, as {seed, case, family, ...}; the bytes are rebuilt from seed + index each time.
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './seeds.mjs';
import { DEFAULT_MAX_SEED_BYTES } from './runner.mjs';

export const REGRESSIONS_FILE = path.join(REPO_ROOT, 'test/fuzz/regressions.json');

export function readRegressions(file = REGRESSIONS_FILE) {
  if (!fs.existsSync(file)) return [];
  return JSON.parse(fs.readFileSync(file, 'utf8')).cases ?? [];
}

/** Case references for the runner (maxSeedBytes decides the pool the index was drawn from). */
export function regressionRefs(entries) {
  return entries.map((e) => ({ seed: e.seed, index: e.case, maxSeedBytes: e.maxSeedBytes ?? DEFAULT_MAX_SEED_BYTES, expect: e }));
}

/** Entries for a run's node-crash culprits (confirmed alone), parse-process crashes and 5xx cases. */
export function newRegressions(run) {
  const out = [];
  const at = new Date().toISOString().slice(0, 10);
  const entry = (r, what) => ({
    seed: r.seed,
    case: r.index,
    family: r.family,
    maxSeedBytes: r.maxSeedBytes,
    seedFile: r.seedFile,
    mutation: r.mutation,
    what,
    found: at,
    ...(run.o.note ? { build: run.o.note } : {}),
  });
  for (const r of run.isolation.filter((x) => x.outcome === 'crash')) {
    const crash = run.crashes.find((c) => c.id === r.crash);
    out.push(entry(r, `crashes the node when run alone: ${crash?.reason ?? 'node exited'}${crash?.fatal ? `; log: ${crash.fatal}` : ''}`.slice(0, 400)));
  }
  for (const r of [...run.records, ...run.isolation].filter((x) => x.parserCrash)) {
    out.push(entry(r, `the parsing process crashed or was killed: ${r.error.message}`.slice(0, 400)));
  }
  for (const r of [...run.records, ...run.isolation].filter((x) => x.server5xx.length)) {
    out.push(entry(r, `5xx: ${r.server5xx.map((e) => `${e.what} ${e.status} ${e.body}`).join('; ')}`.slice(0, 400)));
  }
  return out;
}

/** Adds entries not already listed (same seed, case and pool); returns how many were added. */
export function appendRegressions(entries, file = REGRESSIONS_FILE) {
  const current = readRegressions(file);
  const key = (e) => `${e.seed}:${e.case}:${e.maxSeedBytes ?? DEFAULT_MAX_SEED_BYTES}`;
  const have = new Set(current.map(key));
  const added = entries.filter((e) => !have.has(key(e)) && have.add(key(e)));
  if (!added.length) return 0;
  const doc = {
    about:
      'Fuzz cases that crashed the node or its parsing process, or got a 5xx. Rebuilt from seed + case (bench/fuzz/cases.mjs) and replayed by test/fuzz/fuzz.test.ts; seedFile/mutation say what the case was when found (a changed corpus may change it). Replay one: node bench/fuzz/fuzz.mjs --seed S --case N [--max-seed-bytes B].',
    cases: [...current, ...added],
  };
  fs.writeFileSync(file, `${JSON.stringify(doc, null, 2)}\n`);
  return added.length;
}
