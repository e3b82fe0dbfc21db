#!/usr/bin/env node
// docparse fuzzer CLI. Starts its own node (`node dist/bin.js serve`, temp data dir), sends
// mutated files of every family through the HTTP API and prints a markdown summary.
//
//   node bench/fuzz/fuzz.mjs --cases 3000 --seed 1 [--family pdf,csv] [--concurrency 4]
//   node bench/fuzz/fuzz.mjs --seed 1 --case 1234[,77]     replay cases
//   node bench/fuzz/fuzz.mjs --replay-regressions          replay test/fuzz/regressions.json
//   node bench/fuzz/fuzz.mjs --check-seeds                 every seed once, unmutated
//
// Other options: --first N (first case index), --max-seed-bytes B (default 2 MiB),
// --task-timeout S (DOCPARSE_TASK_TIMEOUT_SECONDS, default 60), --threads N (worker threads),
// --isolate N (replay at most N crash suspects alone, default 24), --no-corpus,
// --corpus DIR (default: the corpus, $DOCPARSE_CORPUS_DIR), --out DIR, --record
// (append crash culprits and 5xx cases to test/fuzz/regressions.json), --live-dist (run
// dist/ itself instead of a snapshot of it), --dist DIR (run another build, e.g. an older
// commit's, built elsewhere: DIR/../package.json and node_modules must resolve), --note TEXT
// (stored as `build` in the regression entries this run records).
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  FAMILIES,
  FuzzRun,
  DEFAULT_MAX_SEED_BYTES,
  summaryMarkdown,
  readRegressions,
  regressionRefs,
  newRegressions,
  appendRegressions,
  loadSeedPool,
} from './lib.mjs';

const { values } = parseArgs({
  options: {
    cases: { type: 'string', default: '100' },
    seed: { type: 'string', default: '1' },
    first: { type: 'string', default: '0' },
    case: { type: 'string' },
    family: { type: 'string' },
    concurrency: { type: 'string', default: '4' },
    'max-seed-bytes': { type: 'string', default: String(DEFAULT_MAX_SEED_BYTES) },
    'task-timeout': { type: 'string', default: '60' },
    threads: { type: 'string' },
    isolate: { type: 'string', default: '24' },
    'no-corpus': { type: 'boolean', default: false },
    corpus: { type: 'string' },
    out: { type: 'string' },
    record: { type: 'boolean', default: false },
    'replay-regressions': { type: 'boolean', default: false },
    'check-seeds': { type: 'boolean', default: false },
    'live-dist': { type: 'boolean', default: false },
    dist: { type: 'string' },
    note: { type: 'string' },
  },
  strict: true,
});

const int = (name) => {
  const n = Number(values[name]);
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} must be a whole number, got ${values[name]}`);
  return n;
};

const seed = int('seed');
const maxSeedBytes = int('max-seed-bytes');
const families = values.family ? values.family.split(',').map((f) => f.trim()) : FAMILIES;
for (const f of families) if (!FAMILIES.includes(f)) throw new Error(`unknown family ${f}; one of ${FAMILIES.join(', ')}`);

let refs = null;
if (values.case) refs = values.case.split(',').map((c) => ({ seed, index: Number(c) }));
if (values['replay-regressions']) refs = regressionRefs(readRegressions());
if (values['check-seeds']) {
  const pool = loadSeedPool({ corpusDir: values.corpus, maxSeedBytes, useCorpus: !values['no-corpus'] });
  refs = families.flatMap((f) => pool[f].map((s, i) => ({ seed, index: i, identity: s })));
}

const run = new FuzzRun({
  seed,
  cases: int('cases'),
  first: int('first'),
  families,
  refs,
  concurrency: int('concurrency'),
  maxSeedBytes,
  taskTimeoutSeconds: int('task-timeout'),
  workerThreads: values.threads ? int('threads') : null,
  isolate: int('isolate'),
  useCorpus: !values['no-corpus'],
  corpusDir: values.corpus,
  outDir: values.out ? path.resolve(values.out) : null,
  snapshot: !values['live-dist'],
  dist: values.dist ?? null,
  note: values.note ?? null,
});
process.stderr.write(`docparse fuzz: seed ${seed}; output in ${run.o.outDir}\n`);
await run.run();

const command = `node bench/fuzz/fuzz.mjs ${process.argv.slice(2).join(' ')}`.trim();
const md = summaryMarkdown(run, { title: `docparse fuzz, seed ${seed}`, command });
fs.writeFileSync(path.join(run.o.outDir, 'summary.md'), md);
fs.writeFileSync(path.join(run.o.outDir, 'crashes.json'), JSON.stringify(run.crashes, null, 2));
if (values['check-seeds']) {
  for (const r of run.records)
    process.stdout.write(
      `${r.outcome.padEnd(10)} ${r.seedFile} ${r.error?.message ? `— ${r.error.message.slice(0, 140)}` : r.rejectCode ? `— ${r.rejectCode}` : ''}\n`,
    );
}
process.stdout.write(`${md}\n`);
if (values.record) {
  const added = appendRegressions(newRegressions(run));
  process.stderr.write(`regressions: ${added} new case(s) added to test/fuzz/regressions.json\n`);
}
