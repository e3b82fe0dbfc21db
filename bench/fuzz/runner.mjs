// The run loop: a node in its own process, cases uploaded `concurrency` at a time, each
// polled to the end and its result fetched; crashes (the process exiting, or /health/live
// failing) restart the node and are recorded with the cases that were in flight, which are
// then replayed one by one to find the one that does it.
import fs from 'node:fs';
import { setMaxListeners } from 'node:events';
import path from 'node:path';
import os from 'node:os';
import { FuzzNode, snapshotDist } from './node-process.mjs';
import { ApiClient } from './client.mjs';
import { TreeSampler, snapshot } from './proc-metrics.mjs';
import { buildCase, caseIndices } from './cases.mjs';
import { execFileSync } from 'node:child_process';
import { FAMILIES, loadSeedPool, poolSummary, REPO_ROOT } from './seeds.mjs';
import { judgeFailure, RUNNING, TERMINAL } from './verdict.mjs';

export const DEFAULT_MAX_SEED_BYTES = 2 * 1024 * 1024;
const UPLOAD_TIMEOUT_MS = 120_000;
const REQUEST_TIMEOUT_MS = 20_000;
const HEALTH_EVERY_MS = 1000;
const HEALTH_FAILURES = 6;
const MAX_ARTIFACT_PARSE = 64 * 1024 * 1024;

const sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal.reason);
    };
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** `uptime` output (load averages), for the report. */
function loadLine() {
  try {
    return execFileSync('uptime', { encoding: 'utf8' }).trim();
  } catch {
    return fs.readFileSync('/proc/loadavg', 'utf8').trim();
  }
}

/** The line of a dead node's log that says why (V8's fatal error, an uncaught exception …). */
function fatalLine(log) {
  const lines = log
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const why = lines.filter(
    (l) =>
      /Fatal JavaScript|FATAL ERROR|heap out of memory|Segmentation fault|Aborted|Uncaught|Unhandled|Error:/i.test(l) && !/^# Fatal error in , line 0$/.test(l),
  );
  return (why[0] ?? lines[lines.length - 1] ?? '').slice(0, 300);
}

const caseKey = (ref) => `${ref.seed}:${ref.index}${ref.identity ? `:${ref.identity.name}` : ''}`;
const trim = (s, n = 300) => (s.length > n ? `${s.slice(0, n)}…` : s);

export class FuzzRun {
  constructor(options) {
    this.o = {
      seed: 1,
      cases: 100,
      first: 0,
      families: FAMILIES,
      concurrency: 4,
      taskTimeoutSeconds: 60,
      // A job may first wait behind a suspect the parse host re-runs alone: a second timeout, plus 30 s.
      stuckMarginSeconds: 90,
      maxSeedBytes: DEFAULT_MAX_SEED_BYTES,
      corpusDir: undefined,
      useCorpus: true,
      isolate: 24,
      refs: null,
      snapshot: true,
      dist: null,
      note: null,
      workerThreads: null,
      nodeEnv: {},
      outDir: null,
      log: (line) => process.stderr.write(`${line}\n`),
      progressEvery: 50,
      ...options,
    };
    this.o.outDir ??= fs.mkdtempSync(path.join(os.tmpdir(), `docparse-fuzz-s${this.o.seed}-`));
    fs.mkdirSync(path.join(this.o.outDir, 'logs'), { recursive: true });
    this.pools = new Map();
    this.records = [];
    this.isolation = [];
    this.crashes = [];
    this.lives = [];
    this.phase = 'main';
    this.finishing = false;
    this.casesLog = fs.createWriteStream(path.join(this.o.outDir, 'cases.jsonl'));
  }

  /** Seed pools are loaded for all eight families, so a family filter does not change a case. */
  pool(maxSeedBytes = this.o.maxSeedBytes) {
    if (!this.pools.has(maxSeedBytes)) {
      this.pools.set(maxSeedBytes, loadSeedPool({ families: FAMILIES, corpusDir: this.o.corpusDir, maxSeedBytes, useCorpus: this.o.useCorpus }));
    }
    return this.pools.get(maxSeedBytes);
  }

  refs() {
    if (this.o.refs) return this.o.refs;
    return caseIndices({ first: this.o.first, count: this.o.cases, families: this.o.families }).map((index) => ({ seed: this.o.seed, index }));
  }

  async run() {
    const started = Date.now();
    this.startedAt = new Date(started).toISOString();
    this.poolSummary = poolSummary(this.pool());
    const env = { DOCPARSE_TASK_TIMEOUT_SECONDS: String(this.o.taskTimeoutSeconds), ...this.o.nodeEnv };
    if (this.o.workerThreads) env.DOCPARSE_WORKER_THREADS = String(this.o.workerThreads);
    // Another build (o.dist, e.g. an older commit's) runs as it is; our own dist/ from a snapshot.
    if (this.o.dist) this.snapshot = { dist: path.resolve(this.o.dist), cleanup() {} };
    else this.snapshot = this.o.snapshot ? snapshotDist() : { dist: path.join(REPO_ROOT, 'dist'), cleanup() {} };
    this.node = new FuzzNode({ dist: this.snapshot.dist, env, logDir: path.join(this.o.outDir, 'logs') });
    try {
      this.startNode();
      await this.ready;
      const refs = this.refs();
      this.total = refs.length;
      await this.pooled(refs, this.o.concurrency, (ref) => this.runCase(ref, this.records));
      await this.isolateCrashes();
      await this.finish();
    } finally {
      this.finishing = true;
      if (this.life && !this.life.proc.exit) await this.stopLife(this.life);
      this.node.cleanup();
      this.snapshot.cleanup();
      await new Promise((r) => this.casesLog.end(r));
    }
    this.durationMs = Date.now() - started;
    this.loadAtEnd = loadLine();
    return this;
  }

  async pooled(refs, concurrency, fn) {
    let next = 0;
    const worker = async () => {
      while (next < refs.length) await fn(refs[next++]);
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, refs.length)) }, worker));
  }

  // ---------------------------------------------------------------- the node's lives

  startNode(attempt = 1) {
    this.ready = (async () => {
      const proc = await this.node.start();
      const client = new ApiClient(proc.url, (what, status, body) => {
        if (status >= 500) this.orphan5xx.push({ what, status, body: trim(body), start: proc.start });
      });
      await client.fetchToken(AbortSignal.timeout(REQUEST_TIMEOUT_MS));
      const life = { proc, client, abort: new AbortController(), inFlight: new Map(), crashed: null, stopping: false, hang: null };
      setMaxListeners(0, life.abort.signal); // every in-flight request of every case listens to it
      life.before = snapshot(proc.pid);
      life.sampler = new TreeSampler(proc.pid, { context: () => [...life.inFlight.values()].map((r) => `${r.seed}:${r.index} ${r.family} ${r.seedFile}`) });
      this.life = life;
      this.lives.push(life);
      void proc.exited.then((exit) => this.onExit(life, exit));
      void this.watchHealth(life);
      this.o.log(`node #${proc.start} up: pid ${proc.pid}, ${proc.url}, fds ${life.before.nodeFds}, rss ${Math.round(life.before.treeRssKb / 1024)} MiB`);
      return life;
    })().catch((err) => {
      if (attempt >= 3 || this.finishing) throw err;
      this.o.log(`node start failed (${err.message.split('\n')[0]}); retrying`);
      return this.startNode(attempt + 1);
    });
    this.ready.catch(() => {});
    return this.ready;
  }

  orphan5xx = [];

  onExit(life, exit) {
    life.sampler.stop();
    if (life.stopping) return;
    const crash = {
      id: this.crashes.length + 1,
      phase: this.phase,
      nodeStart: life.proc.start,
      at: new Date(exit.at).toISOString(),
      exit: { code: exit.code, signal: exit.signal },
      reason: life.hang ?? `process exited (code ${exit.code}, signal ${exit.signal})`,
      logTail: this.node.logTail(life.proc, 4096).split('\n').filter(Boolean).slice(-12),
      fatal: fatalLine(this.node.logTail(life.proc, 32 * 1024)),
      peakTreeRssKb: life.sampler.peak.treeRssKb,
      inFlight: [...life.inFlight.values()].map((r) => ({
        seed: r.seed,
        index: r.index,
        family: r.family,
        seedFile: r.seedFile,
        mutation: r.mutation,
        maxSeedBytes: r.maxSeedBytes,
        documentId: r.documentId ?? null,
        lastState: r.lastState ?? null,
      })),
    };
    life.crashed = crash;
    this.crashes.push(crash);
    life.abort.abort(new Error('node crashed'));
    this.node.killGroup(life.proc);
    this.node.discard(life.proc);
    this.o.log(
      `CRASH #${crash.id}: node #${crash.nodeStart} ${crash.reason}; in flight: ${crash.inFlight.map((r) => `--seed ${r.seed} --case ${r.index} (${r.family} ${r.seedFile})`).join('; ') || 'none'}`,
    );
    if (crash.fatal) this.o.log(`  | ${trim(crash.fatal, 200)}`);
    if (!this.finishing) this.startNode();
  }

  /** /health/live every second; six failures in a row (the process alive but not serving) count as a crash. */
  async watchHealth(life) {
    let failures = 0;
    while (!life.crashed && !life.stopping && !life.proc.exit) {
      await sleep(HEALTH_EVERY_MS);
      if (life.crashed || life.stopping || life.proc.exit) return;
      const ok = await life.client.live(5000).catch(() => false);
      failures = ok ? 0 : failures + 1;
      if (failures >= HEALTH_FAILURES && !life.proc.exit) {
        life.hang = `health/live failing ${HEALTH_FAILURES} times in a row (process alive): killed`;
        this.node.killGroup(life.proc);
        return;
      }
    }
  }

  async stopLife(life) {
    life.stopping = true;
    life.sampler.stop();
    await this.node.terminate(life.proc);
    this.node.discard(life.proc);
  }

  /** The current life once it is up (waits through restarts). */
  async currentLife() {
    for (;;) {
      const life = await this.ready;
      if (!life.crashed) return life;
      await sleep(100);
    }
  }

  // ---------------------------------------------------------------- one case

  async runCase(ref, sink) {
    const maxSeedBytes = ref.maxSeedBytes ?? this.o.maxSeedBytes;
    const c = await buildCase(ref.seed, ref.index, this.pool(maxSeedBytes), { identity: ref.identity ?? null, seedFile: ref.expect?.seedFile ?? null });
    const rec = {
      seed: c.seed,
      index: c.index,
      family: c.family,
      seedFile: c.seedFile,
      mutation: c.mutation,
      query: c.query,
      size: c.bytes.length,
      maxSeedBytes,
      phase: this.phase,
      outcome: null,
      server5xx: [],
    };
    const life = await this.currentLife();
    const key = caseKey(ref);
    life.inFlight.set(key, rec);
    const t0 = Date.now();
    try {
      await this.drive(life, c, rec);
    } catch (err) {
      // A reset connection can arrive just before the exit event: give the exit a moment.
      if (!life.crashed) await Promise.race([life.proc.exited, sleep(2000)]);
      if (life.crashed) {
        rec.outcome = 'crash';
        rec.crash = life.crashed.id;
      } else {
        rec.outcome = 'transport-error';
        rec.error = trim(String(err?.cause?.code ?? err?.message ?? err));
      }
    } finally {
      life.inFlight.delete(key);
    }
    rec.ms = Date.now() - t0;
    rec.nodeStart = life.proc.start;
    sink.push(rec);
    this.casesLog.write(`${JSON.stringify(rec)}\n`);
    this.progress();
    return rec;
  }

  note5xx(rec, what, res) {
    if (res.status >= 500) rec.server5xx.push({ what, status: res.status, body: trim(res.text) });
  }

  async drive(life, c, rec) {
    const { client } = life;
    const signal = life.abort.signal;
    const within = (ms) => AbortSignal.any([signal, AbortSignal.timeout(ms)]);
    const up = await client.upload(c.bytes, c.query, within(UPLOAD_TIMEOUT_MS));
    this.note5xx(rec, 'upload', up);
    rec.uploadStatus = up.status;
    if (up.status !== 202) {
      rec.outcome = up.status >= 500 ? 'server-error' : 'rejected';
      try {
        rec.rejectCode = JSON.parse(up.text).code ?? String(up.status);
      } catch {
        rec.rejectCode = String(up.status);
      }
      return;
    }
    const documentId = JSON.parse(up.text).documentId;
    rec.documentId = documentId;
    const uploadedAt = Date.now();
    const runLimitMs = (this.o.taskTimeoutSeconds + this.o.stuckMarginSeconds) * 1000;
    // Safety net for a job that never even starts: every attempt, the queue ahead, backoffs.
    const hardLimitMs = runLimitMs * (3 + this.o.concurrency) + 60_000;
    let runningSince = null;
    let attempts = 0;
    let delay = 150;
    let job;
    let transient = 0;
    for (;;) {
      await sleep(delay, signal);
      delay = Math.min(1000, Math.round(delay * 1.4));
      let st;
      try {
        st = await client.status(documentId, within(REQUEST_TIMEOUT_MS));
      } catch (err) {
        if (signal.aborted || ++transient > 10) throw err;
        continue;
      }
      this.note5xx(rec, 'status', st);
      if (st.status === 404) {
        rec.outcome = 'vanished';
        return;
      }
      if (st.status !== 200) {
        if (++transient > 10) throw new Error(`status answered ${st.status} repeatedly`);
        continue;
      }
      job = JSON.parse(st.text);
      rec.lastState = job.statusInt;
      if (TERMINAL.has(job.statusInt)) break;
      const now = Date.now();
      if (RUNNING.has(job.statusInt) && (runningSince === null || job.attempts !== attempts)) runningSince = now;
      if (!RUNNING.has(job.statusInt)) runningSince = null;
      attempts = job.attempts;
      if ((runningSince !== null && now - runningSince > runLimitMs) || now - uploadedAt > hardLimitMs) {
        rec.outcome = 'stuck';
        rec.stuckFor = Math.round((now - (runningSince ?? uploadedAt)) / 1000);
        return;
      }
    }
    rec.attempts = job.attempts;
    rec.units = job.documentUnits ?? null;
    const res = await client.result(documentId, within(UPLOAD_TIMEOUT_MS));
    this.note5xx(rec, 'result', res);
    rec.resultStatus = res.status;
    if (job.statusInt === 8) {
      rec.outcome = 'completed';
      rec.artifactBytes = res.bytes.length;
      if (res.status !== 200) rec.anomaly = `completed but /result answered ${res.status}`;
      else if (res.bytes.length <= MAX_ARTIFACT_PARSE) {
        try {
          JSON.parse(res.bytes.toString('utf8'));
        } catch (err) {
          rec.anomaly = `artifact is not JSON: ${trim(err.message, 120)}`;
        }
      }
    } else {
      rec.outcome = 'failed';
      rec.error = job.error ?? null;
      Object.assign(rec, judgeFailure(job.error));
      if (res.status !== 422) rec.anomaly = `failed but /result answered ${res.status}`;
    }
  }

  // ---------------------------------------------------------------- after the main run

  /** Replays each case in flight at a crash alone: the ones that crash again are the culprits. */
  async isolateCrashes() {
    const suspects = new Map();
    for (const crash of this.crashes) for (const r of crash.inFlight) suspects.set(caseKey(r), r);
    const list = [...suspects.values()].slice(0, this.o.isolate);
    if (!list.length) return;
    this.phase = 'isolation';
    this.o.log(`isolating ${list.length} case(s) that were in flight at a crash, one at a time`);
    for (const ref of list) {
      const rec = await this.runCase(ref, this.isolation);
      this.o.log(`  --seed ${ref.seed} --case ${ref.index}: alone → ${rec.outcome}${rec.crash ? ' (CRASHES THE NODE)' : ''}`);
    }
    this.phase = 'main';
  }

  async finish() {
    const life = await this.currentLife();
    await sleep(3000); // let the last jobs' files and sockets close
    life.after = snapshot(life.proc.pid);
    await this.stopLife(life);
  }

  progress() {
    const done = this.records.length;
    if (this.phase !== 'main' || !this.o.progressEvery || done % this.o.progressEvery !== 0) return;
    const by = {};
    for (const r of this.records) by[r.outcome] = (by[r.outcome] ?? 0) + 1;
    const peak = Math.max(...this.lives.map((l) => l.sampler.peak.treeRssKb));
    this.o.log(
      `${done}/${this.total} ${Object.entries(by)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}; crashes ${this.crashes.length}; peak RSS ${Math.round(peak / 1024)} MiB`,
    );
  }
}

/** Runs a fuzz session; see FuzzRun for the options. */
export async function runFuzz(options) {
  return new FuzzRun(options).run();
}
