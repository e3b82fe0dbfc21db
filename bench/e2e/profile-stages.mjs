// Where a node's CPU goes, by stage of the job path, from V8 CPU profiles of the bench server
// (BENCH_SERVER_NODE_ARGS="--cpu-prof --cpu-prof-dir=DIR" node bench/e2e/small-jobs.mjs …).
//
//   node bench/e2e/profile-stages.mjs DIR/*.cpuprofile [--jobs N] [--top 25] [--from S] [--to S] [--timeline]
//
// Each sample goes to the stage of the frame nearest its leaf that belongs to a stage (the
// service's own modules, and the libraries that are a stage of their own: pino for logging,
// uWS for HTTP). Frames of a client library (ioredis, pg, PGlite, BullMQ) and of Node's own
// internals go to the service frame that called them; a sample with no service frame above it
// (a reply parsed on a socket event, PGlite running a query after an await) goes to the
// row of the outermost such library, Node's internals last. With --jobs, the table gives ms per job (the profile covers warm-up,
// runs and start-up alike: pass the number of jobs the profile saw, or compare shares).
import fs from 'node:fs';

const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? Number(argv.splice(i, 2)[1]) : dflt;
};
const jobs = opt('jobs', 0);
const top = opt('top', 25);
// Seconds from the start of each profile to count (skip start-up and warm-up), and to stop.
const fromS = opt('from', 0);
const toS = opt('to', Infinity);
const timeline = argv.includes('--timeline');
// Prints the heaviest whole stacks of one stage (its name as in the table), to see who calls.
const stacksOf = (() => {
  const i = argv.indexOf('--stacks');
  return i >= 0 ? argv.splice(i, 2)[1] : null;
})();
const stacks = new Map();
const files = argv.filter((a) => a.endsWith('.cpuprofile'));
if (!files.length) throw new Error('usage: profile-stages.mjs PROFILE.cpuprofile… [--jobs N] [--top 25]');

/** [stage, test on the frame's url and function name]; the first that matches wins. */
const STAGES = [
  ['logging', (u) => /node_modules\/(pino|sonic-boom|thread-stream|pino-std-serializers)\//.test(u) || /\/src\/log\.[jt]s$/.test(u)],
  ['auth (token verification)', (u) => /\/(identity)\/(verifier|keyring|domains)\.[jt]s$/.test(u) || /node_modules\/jose\//.test(u)],
  ['token endpoint', (u) => /\/identity\//.test(u)],
  ['limits and admission', (u) => /\/(tenancy\/plan-limits|tenancy\/change-feed|api\/byte-rate|jobs\/(embedded|redis)-counters)\.[jt]s$/.test(u)],
  ['upload intake (detect, accept)', (u) => /\/(api\/intake|api\/uploads|api\/custom-metadata|formats\/detect|formats\/registry|engines\/)/.test(u)],
  ['status polls (documents API)', (u) => /\/api\/documents\.[jt]s$/.test(u)],
  ['blob store', (u) => /\/storage\//.test(u)],
  ['job store', (u) => /\/jobs\/(embedded-store|redis-store|transitions|support)\.[jt]s$/.test(u)],
  ['queue', (u) => /\/jobs\/(embedded-queue|redis-queue|tenant-slots)\.[jt]s$/.test(u) || /node_modules\/bullmq\//.test(u)],
  ['quota and usage (control plane)', (u) => /\/(pipeline\/(job-usage|unit-meter)|tenancy\/store\/usage|tenancy\/month)\.[jt]s$/.test(u)],
  ['worker loop and parsing-process IPC', (u) => /\/pipeline\//.test(u)],
  ['control plane (other)', (u) => /\/(tenancy|db)\//.test(u)],
  ['HTTP front (parse, route, validate, reply)', (u) => /\/http\//.test(u) || /node_modules\/uWebSockets\.js\//.test(u)],
  ['other service code', (u) => /\/(dist|src)\//.test(u) && !/node_modules/.test(u)],
];
/** Libraries whose time belongs to their caller; alone, they get a row of their own. */
const CARRIERS = [
  ['Redis client, no service caller (replies)', (u) => /node_modules\/(ioredis|redis-parser|@ioredis|cluster-key-slot|denque)\//.test(u)],
  ['PostgreSQL client, no service caller', (u) => /node_modules\/(pg|pg-protocol|pg-pool|pg-types|postgres-[a-z]+)\//.test(u)],
  ['PGlite, no service caller', (u) => /node_modules\/@electric-sql\//.test(u) || u.startsWith('wasm://')],
  ['ajv / typebox, no service caller', (u) => /node_modules\/(ajv|ajv-formats|@sinclair)\//.test(u)],
  ['Node internals, no service caller', (u) => u.startsWith('node:') || u === ''],
];
const SPECIAL = { '(garbage collector)': 'GC', '(idle)': null, '(program)': 'native, outside JS ((program))', '(root)': null };

const totals = new Map();
const selfByFrame = new Map();
let sampledMs = 0;
for (const file of files) {
  const prof = JSON.parse(fs.readFileSync(file, 'utf8'));
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const stageOf = new Map();
  const classify = (id) => {
    if (stageOf.has(id)) return stageOf.get(id);
    const leaf = byId.get(id);
    const special = SPECIAL[leaf.callFrame.functionName];
    let stage;
    if (special !== undefined && leaf.callFrame.url === '') stage = special;
    else {
      // Without a service frame: the first carrier in CARRIERS' order (a client library before Node's internals).
      let carrier = CARRIERS.length;
      for (let cur = id; cur !== undefined && stage === undefined; cur = parent.get(cur)) {
        const { url } = byId.get(cur).callFrame;
        const own = STAGES.find(([, test]) => test(url));
        if (own) stage = own[0];
        else {
          const c = CARRIERS.findIndex(([, test]) => test(url));
          if (c >= 0 && c < carrier) carrier = c;
        }
      }
      stage ??= CARRIERS[carrier]?.[0] ?? 'unattributed';
    }
    stageOf.set(id, stage);
    return stage;
  };
  const deltas = prof.timeDeltas;
  const busyPerSecond = [];
  let at = 0;
  for (let i = 0; i < prof.samples.length; i++) {
    at += deltas[i] / 1e6;
    const ms = (deltas[i + 1] ?? deltas[i] ?? 0) / 1000;
    const stage = classify(prof.samples[i]);
    if (stage === null) continue;
    busyPerSecond[Math.floor(at)] = (busyPerSecond[Math.floor(at)] ?? 0) + ms;
    if (at < fromS || at > toS) continue;
    sampledMs += ms;
    totals.set(stage, (totals.get(stage) ?? 0) + ms);
    const f = byId.get(prof.samples[i]).callFrame;
    const key = `${stage} | ${f.functionName || '(anonymous)'} ${f.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/(dist|src)\//, '$1/')}:${f.lineNumber + 1}`;
    selfByFrame.set(key, (selfByFrame.get(key) ?? 0) + ms);
    if (stacksOf === stage) {
      const names = [];
      for (let cur = prof.samples[i]; cur !== undefined && names.length < 14; cur = parent.get(cur)) {
        const cf = byId.get(cur).callFrame;
        if (cf.functionName === '(root)') break;
        names.push(`${cf.functionName || '(anon)'}@${cf.url.split('/').pop()}:${cf.lineNumber + 1}`);
      }
      const sig = names.join(' < ');
      stacks.set(sig, (stacks.get(sig) ?? 0) + ms);
    }
  }
  // Busy ms in each second of the profile: where start-up, warm-up and the runs lie.
  if (timeline) console.log(`${file}: busy ms per second\n${Array.from(busyPerSecond, (v, s) => `${s}:${Math.round(v ?? 0)}`).join(' ')}\n`);
}

const rows = [...totals].sort((a, b) => b[1] - a[1]);
const per = (ms) => (jobs ? (ms / jobs).toFixed(3) : '');
console.log(`profiles: ${files.length}; busy (not idle) CPU sampled: ${(sampledMs / 1000).toFixed(2)} s${jobs ? `; jobs: ${jobs}` : ''}\n`);
console.log(`| stage | ms | share |${jobs ? ' ms per job |' : ''}`);
console.log(`|:--|--:|--:|${jobs ? '--:|' : ''}`);
for (const [stage, ms] of rows) console.log(`| ${stage} | ${ms.toFixed(0)} | ${((100 * ms) / sampledMs).toFixed(1)} % |${jobs ? ` ${per(ms)} |` : ''}`);
console.log(`| **total** | ${sampledMs.toFixed(0)} | 100 % |${jobs ? ` ${per(sampledMs)} |` : ''}`);
console.log(`\nTop ${top} frames by self time (stage | function location):\n`);
for (const [k, ms] of [...selfByFrame].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${ms.toFixed(0).padStart(7)} ms  ${k}`);
if (stacksOf) {
  console.log(`\nHeaviest stacks of "${stacksOf}" (leaf first):\n`);
  for (const [k, ms] of [...stacks].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${ms.toFixed(0).padStart(7)} ms  ${k}`);
}
