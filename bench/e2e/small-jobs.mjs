// Small-job throughput and CPU per job, the service against bare BullMQ on the same Redis in
// the same run (issue 28).
//
//   node bench/e2e/small-jobs.mjs [--mode embedded|redis] [--jobs 2000] [--concurrency 32] [--runs 3] [--warmup 200] [--poll-ms 20] [--rows 50]
//
// The service: C clients, each uploading a small CSV (csvRoute=Tabular) and waiting for its
// completion, which one watcher sees by batch status (POST /api/v1/documents/status/batch, ≤ 100
// ids a request, every poll-ms); the plan allows 100,000 concurrent jobs, so its limit is never
// what bounds the run. CPU per job: the node and its parsing process together, and each alone (/proc, all
// threads), over the measured jobs. The baseline: bench/e2e/bullmq-bare.mjs, C producers and a
// worker of concurrency C in one process (its CPU), on the same Redis. Runs alternate.
import path from 'node:path';
import {
  args,
  client,
  filesystemOf,
  fmt,
  getToken,
  runSmallJobs,
  HERE,
  median,
  processTree,
  runToEnd,
  smallCsv,
  startBenchServer,
  treeCpuSeconds,
  uptimeLine,
} from './lib.mjs';

const o = args({ mode: 'embedded', jobs: 2000, concurrency: 32, runs: 3, warmup: 200, 'poll-ms': 20, rows: 50 });
const csv = smallCsv(o.rows);

async function bareBullmq() {
  const r = await runToEnd(process.execPath, [path.join(HERE, 'bullmq-bare.mjs'), '--jobs', String(o.jobs), '--concurrency', String(o.concurrency)]);
  if (r.status !== 0) throw new Error(`bare BullMQ failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').at(-1));
}

const server = await startBenchServer(o.mode);
const c = client(server.url, { maxSockets: o.concurrency + 8 });
const out = { mode: o.mode, jobs: o.jobs, concurrency: o.concurrency, csvBytes: csv.length, dataDir: filesystemOf(server.dataDir), runs: [] };
try {
  const token = await getToken(c, server.clientId, server.clientSecret);
  const auth = { authorization: `Bearer ${token}` };
  const serviceRun = (total) => runSmallJobs(c, auth, csv, { total, concurrency: o.concurrency, pollMs: o['poll-ms'], idPrefix: 'small' });

  await serviceRun(o.warmup);
  for (let run = 1; run <= o.runs; run++) {
    const load = uptimeLine();
    const measure = async () => {
      const pids = processTree(server.pid);
      // The node alone, and its parsing process (with what that starts) alone.
      const parsing = pids.slice(1);
      const cpu0 = treeCpuSeconds(pids);
      const parsing0 = treeCpuSeconds(parsing);
      const r = await serviceRun(o.jobs);
      const perJob = (s) => (s * 1000) / o.jobs;
      const parsingMs = perJob(treeCpuSeconds(parsing) - parsing0);
      const cpuMsPerJob = perJob(treeCpuSeconds(pids) - cpu0);
      return { ...r, cpuMsPerJob, nodeCpuMsPerJob: cpuMsPerJob - parsingMs, parsingCpuMsPerJob: parsingMs, pids: pids.length };
    };
    let svc;
    let bare;
    if (run % 2 === 1) {
      svc = await measure();
      bare = await bareBullmq();
    } else {
      bare = await bareBullmq();
      svc = await measure();
    }
    const row = {
      run,
      load,
      serviceJobsPerSec: o.jobs / svc.seconds,
      serviceCpuMsPerJob: svc.cpuMsPerJob,
      nodeCpuMsPerJob: svc.nodeCpuMsPerJob,
      parsingCpuMsPerJob: svc.parsingCpuMsPerJob,
      serviceFailed: svc.failed,
      bareJobsPerSec: bare.jobsPerSec,
      bareCpuMsPerJob: bare.cpuMsPerJob,
      ratio: o.jobs / svc.seconds / bare.jobsPerSec,
    };
    out.runs.push(row);
    console.error(
      `[${o.mode}] run ${run}: service ${fmt(row.serviceJobsPerSec)} jobs/s, ${fmt(row.serviceCpuMsPerJob, 2)} ms CPU/job (node ${fmt(row.nodeCpuMsPerJob, 2)} + parsing process ${fmt(row.parsingCpuMsPerJob, 2)}, ${svc.failed} failed); bare BullMQ ${fmt(row.bareJobsPerSec)} jobs/s, ${fmt(row.bareCpuMsPerJob, 2)} ms CPU/job; ratio ${fmt(row.ratio, 3)}; load ${load}`,
    );
  }
  out.median = {
    serviceJobsPerSec: median(out.runs.map((r) => r.serviceJobsPerSec)),
    serviceCpuMsPerJob: median(out.runs.map((r) => r.serviceCpuMsPerJob)),
    nodeCpuMsPerJob: median(out.runs.map((r) => r.nodeCpuMsPerJob)),
    parsingCpuMsPerJob: median(out.runs.map((r) => r.parsingCpuMsPerJob)),
    bareJobsPerSec: median(out.runs.map((r) => r.bareJobsPerSec)),
    bareCpuMsPerJob: median(out.runs.map((r) => r.bareCpuMsPerJob)),
    ratio: median(out.runs.map((r) => r.ratio)),
  };
  console.error(
    `[${o.mode}] median: ${fmt(out.median.serviceJobsPerSec)} jobs/s, ${fmt(out.median.serviceCpuMsPerJob, 2)} ms CPU/job (node ${fmt(out.median.nodeCpuMsPerJob, 2)}, parsing process ${fmt(out.median.parsingCpuMsPerJob, 2)}); ratio to bare BullMQ ${fmt(out.median.ratio, 3)}`,
  );
} finally {
  c.close();
  await server.stop();
}
process.stdout.write(JSON.stringify(out, null, 2) + '\n');
