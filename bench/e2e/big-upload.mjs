// A 1 GiB CSV through the presigned path, with the server's RSS sampled every 100 ms.
//
//   node bench/e2e/big-upload.mjs [--size 1073741824] [--parse-timeout 420] [--poll-ms 500]
//
// The server is a child process (`node dist/bin.js serve`, embedded mode, temp data dir,
// LOG_LEVEL=warn, demo credentials chosen here: the demo plan allows 2 GiB files), so its
// /proc/<pid>/status VmRSS/VmHWM can be read. The CSV is generated on the fly (fixed 64-byte
// rows, nothing held in memory) and PUT with chunked transfer encoding to the uploadUrl
// returned by upload-request; then upload-complete with csvRoute=Tabular queues the parse,
// which runs in the same process's worker threads. Phases: baseline (idle, after a warm-up
// job), upload (the PUT), parse (upload-complete → completed/failed), after (3 s).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { args, ROOT, client, getToken, smallCsv, sleep, uptimeLine, fmt, cpuSeconds } from './lib.mjs';

const o = args({ 'warm-put-mb': 64, size: 1024 ** 3, 'parse-timeout': 420, 'poll-ms': 500, 'sample-ms': 100 });
const ROW = 64;
if (o.size % ROW !== 0 || o.size < 2 * ROW) throw new Error(`--size must be a multiple of ${ROW}`);
const rows = o.size / ROW - 1;

/** Row i as exactly 64 bytes: id,amount,flag,day,name\n with typed columns (integer, number, boolean, date, string). */
function row(i) {
  const flag = i % 3 === 0 ? 'false' : 'true';
  const amount = `${100000 + (i % 900000)}.${String(i % 100).padStart(2, '0')}`; // 9 chars
  const day = `20${String(10 + (i % 20))}-${String((i % 12) + 1).padStart(2, '0')}-${String((i % 28) + 1).padStart(2, '0')}`;
  const name = `item-${String(i).padStart(30 - flag.length - 5, '0')}`; // 26 or 25 chars
  return `${1000000000 + i},${amount},${flag},${day},${name}\n`;
}
const header = 'id,amount,flag,day,' + 'name'.padEnd(ROW - 20, '_') + '\n';
if (Buffer.byteLength(header) !== ROW || Buffer.byteLength(row(0)) !== ROW || Buffer.byteLength(row(rows)) !== ROW) throw new Error('row width');

// Fast generation: rows are copied from a table of precomputed 64-byte templates (amount, flag
// and day cycle with i), then the id and the name's last 8 digits are written in place, so the
// client keeps up with the server (string building ran at ~25 MB/s on this loaded machine).
const TEMPLATES = 4200;
const tpl = Buffer.alloc(TEMPLATES * ROW);
for (let j = 0; j < TEMPLATES; j++) tpl.write(row(j), j * ROW, 'latin1');
function writeDigits(buf, end, value, width) {
  for (let k = 1; k <= width; k++) {
    buf[end - k] = 48 + (value % 10);
    value = Math.floor(value / 10);
  }
}
async function* csvStream(chunkRows = 16384) {
  yield Buffer.from(header);
  for (let i = 0; i < rows; i += chunkRows) {
    const end = Math.min(rows, i + chunkRows);
    const buf = Buffer.allocUnsafe((end - i) * ROW);
    for (let k = i, off = 0; k < end; k++, off += ROW) {
      const j = k % TEMPLATES;
      tpl.copy(buf, off, j * ROW, j * ROW + ROW);
      writeDigits(buf, off + 10, 1000000000 + k, 10);
      writeDigits(buf, off + ROW - 1, k, 8);
    }
    yield buf;
  }
}
// Self-check: the fast rows equal row(i).
{
  const g = csvStream(7);
  await g.next();
  const first = (await g.next()).value;
  for (let k = 0; k < 7; k++) if (first.toString('latin1', k * ROW, k * ROW + ROW) !== row(k)) throw new Error(`row ${k} mismatch`);
}

const freePort = () =>
  new Promise((resolve, reject) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });

const readStatus = (pid) => {
  const t = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(t)?.[1] ?? NaN);
  return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024, threads: Number(/^Threads:\s+(\d+)/m.exec(t)?.[1]) };
};

const port = await freePort();
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dp-bench-big-'));
const clientId = `bench-demo-${randomBytes(3).toString('hex')}`;
const clientSecret = randomBytes(24).toString('base64url');
const env = {
  ...process.env,
  PORT: String(port),
  HOST: '127.0.0.1',
  DOCPARSE_DATA_DIR: dataDir,
  LOG_LEVEL: 'warn',
  DOCPARSE_DEMO_CLIENT_ID: clientId,
  DOCPARSE_DEMO_CLIENT_SECRET: clientSecret,
  DOCPARSE_NODE_ID: `bench-big-${randomBytes(3).toString('hex')}`,
};
for (const k of ['DATABASE_URL', 'REDIS_URL', 'DOCPARSE_MASTER_KEY', 'DOCPARSE_SEED_DEMO']) delete env[k];
const child = spawn(process.execPath, [path.join(ROOT, 'dist/bin.js'), 'serve'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
let serverLog = '';
child.stdout.on('data', (d) => (serverLog += d));
child.stderr.on('data', (d) => (serverLog += d));
const exited = new Promise((r) => child.once('exit', (code, sig) => r({ code, sig })));
let cleaned = false;
async function cleanup() {
  if (cleaned) return;
  cleaned = true;
  if (child.exitCode === null && child.signalCode === null) {
    child.kill('SIGTERM');
    const t = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(t);
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
}
process.on('SIGINT', () => cleanup().finally(() => process.exit(130)));

// RSS sampler: a separate small process reading /proc/<pid>/status every sample-ms, so the
// samples keep their rhythm while this process is busy generating and sending the CSV. The
// phase label is sent over IPC; VmHWM (the kernel's peak RSS) cross-checks the sampled peak.
const SAMPLER = `
const fs = require('fs');
const pid = process.argv[1];
let phase = 'boot', last = performance.now(), maxGap = 0;
const samples = [];
const read = () => {
  const t = fs.readFileSync('/proc/' + pid + '/status', 'utf8');
  const f = {};
  for (const line of t.split(String.fromCharCode(10))) { const i = line.indexOf(':'); if (i > 0) f[line.slice(0, i)] = parseInt(line.slice(i + 1), 10); }
  return { rss: f.VmRSS / 1024, hwm: f.VmHWM / 1024, threads: f.Threads };
};
const timer = setInterval(() => {
  const now = performance.now();
  maxGap = Math.max(maxGap, now - last);
  last = now;
  try { samples.push({ t: Date.now(), phase, ...read() }); } catch {}
}, Number(process.argv[2]));
process.on('message', (m) => {
  if (m.phase) phase = m.phase;
  if (m.stop) { clearInterval(timer); process.send({ samples, maxGap }, () => process.exit(0)); }
});
`;
const sampler = spawn(process.execPath, ['-e', SAMPLER, String(child.pid), String(o['sample-ms'])], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
sampler.on('error', (err) => console.error(`sampler: ${err.message}`));
let samples = [];
let maxGap = 0;
const stopSampler = () =>
  new Promise((resolve) => {
    if (sampler.exitCode !== null || !sampler.connected) return resolve();
    sampler.once('message', (m) => {
      samples = m.samples;
      maxGap = m.maxGap;
      resolve();
    });
    sampler.once('exit', resolve);
    sampler.send({ stop: true });
  });
const marks = {};
/** Resets the kernel's peak-RSS counter (VmHWM) to the current RSS: `echo 5 > /proc/<pid>/clear_refs`. */
const resetHwm = () => {
  try {
    fs.writeFileSync(`/proc/${child.pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
};
const mark = (p) => {
  if (sampler.connected) sampler.send({ phase: p });
  if (p === 'upload' || p === 'parse') result.hwmReset = resetHwm();
  marks[p] = { t: performance.now(), ...readStatus(child.pid), load: uptimeLine() };
};
const result = { sizeBytes: o.size, rows: rows + 1, sampleMs: o['sample-ms'] };
try {
  const c = client(`http://127.0.0.1:${port}`);
  const t0 = Date.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited: ${serverLog}`);
    const r = await c.request('GET', '/health/ready').catch(() => null);
    if (r?.status === 200) break;
    if (Date.now() - t0 > 90_000) throw new Error('server not ready within 90 s');
    await sleep(200);
  }
  const token = await getToken(c, clientId, clientSecret);
  const auth = { authorization: `Bearer ${token}` };
  const waitJob = async (id, pollMs, timeoutMs) => {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const s = await c.request('GET', `/api/v1/documents/${id}/status`, { headers: auth });
      if (s.status !== 200) throw new Error(`status ${s.status} ${s.text}`);
      if (s.json.statusInt === 8 || s.json.statusInt === 9) return s.json;
      if (Date.now() > end) return { ...s.json, timedOut: true };
      await sleep(pollMs);
    }
  };
  // Warm-up: one small job through the pool so the baseline includes loaded worker threads.
  const w = await c.request('POST', '/api/v1/documents/upload?fileName=warm.csv&csvRoute=Tabular', {
    headers: { ...auth, 'content-type': 'text/csv' },
    body: smallCsv(),
  });
  if (w.status !== 202) throw new Error(`warm-up upload ${w.status} ${w.text}`);
  await waitJob(w.json.documentId, 20, 60_000);
  // Warm-up of the presigned path: a PUT of warm-put-mb MiB (never completed), so the baseline
  // is taken after the first large-body GC rather than on the garbage left by boot.
  if (o['warm-put-mb'] > 0) {
    const wb = o['warm-put-mb'] * 1024 * 1024;
    const wr = await c.request('POST', '/api/v1/documents/upload-request', {
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ fileName: 'warm.csv', sizeBytes: wb }),
    });
    if (wr.status !== 201) throw new Error(`warm-up upload-request ${wr.status} ${wr.text}`);
    const wu = new URL(wr.json.uploadUrl);
    const block = Buffer.alloc(1024 * 1024, 'a,b,c\n');
    const wp = await new Promise((resolve, reject) => {
      const r = http.request({ host: '127.0.0.1', port, method: 'PUT', path: wu.pathname + wu.search, headers: { 'content-type': 'text/csv' } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode));
      });
      r.on('error', reject);
      (async () => {
        for (let i = 0; i < o['warm-put-mb']; i++) if (!r.write(block)) await once(r, 'drain');
        r.end();
      })().catch(reject);
    });
    if (wp !== 204) throw new Error(`warm-up PUT ${wp}`);
  }
  await sleep(3000);

  mark('baseline');
  await sleep(3000);

  const req = await c.request('POST', '/api/v1/documents/upload-request', {
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ fileName: 'big.csv', sizeBytes: o.size }),
  });
  if (req.status !== 201) throw new Error(`upload-request ${req.status} ${req.text}`);
  const { uploadId, uploadUrl, documentId } = req.json;
  const u = new URL(uploadUrl);

  mark('upload');
  const cpuUp0 = cpuSeconds(child.pid);
  const put = http.request({ host: '127.0.0.1', port, method: 'PUT', path: u.pathname + u.search, headers: { 'content-type': 'text/csv' } }); // no Content-Length → chunked
  const putRes = new Promise((resolve, reject) => {
    put.on('response', (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode, text }));
    });
    put.on('error', reject);
  });
  let sent = 0;
  for await (const buf of csvStream()) {
    sent += buf.length;
    if (!put.write(buf)) await Promise.race([once(put, 'drain'), putRes]);
  }
  put.end();
  const pr = await putRes;
  const upSeconds = (performance.now() - marks.upload.t) / 1000;
  const afterUpload = readStatus(child.pid);
  result.upload = {
    status: pr.status,
    body: pr.text.slice(0, 300),
    chunked: put.getHeader('transfer-encoding') ?? 'chunked (no content-length)',
    sent,
    seconds: upSeconds,
    mbPerSec: sent / 1e6 / upSeconds,
    serverCpuSeconds: cpuSeconds(child.pid) - cpuUp0,
    hwmAfterUpload: afterUpload.hwm,
  };
  console.error(
    `PUT ${pr.status}: ${fmt(sent / 1e9, 3)} GB in ${fmt(upSeconds, 1)} s (${fmt(result.upload.mbPerSec, 0)} MB/s); VmHWM now ${fmt(afterUpload.hwm)} MiB`,
  );
  if (pr.status !== 204) throw new Error(`PUT ${pr.status} ${pr.text}`);

  mark('parse');
  const cpuParse0 = cpuSeconds(child.pid);
  const comp = await c.request('POST', '/api/v1/documents/upload-complete', {
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ uploadId, csvRoute: 'Tabular' }),
  });
  result.complete = { status: comp.status, body: comp.json, ms: performance.now() - marks.parse.t };
  if (comp.status !== 202) throw new Error(`upload-complete ${comp.status} ${comp.text}`);
  const fin = await waitJob(documentId, o['poll-ms'], o['parse-timeout'] * 1000);
  result.parse = {
    statusInt: fin.statusInt,
    status: fin.status,
    timedOut: !!fin.timedOut,
    error: fin.error ?? null,
    seconds: (performance.now() - marks.parse.t) / 1000,
    serverSeconds: fin.completedAt ? (Date.parse(fin.completedAt) - Date.parse(fin.startedAt)) / 1000 : null,
    serverCpuSeconds: cpuSeconds(child.pid) - cpuParse0,
    documentUnits: fin.documentUnits,
    hwmAfterParse: readStatus(child.pid).hwm,
  };
  console.error(
    `parse: ${fin.status} (${fin.statusInt}) after ${fmt(result.parse.seconds, 1)} s${fin.timedOut ? ' (TIMED OUT, stopped waiting)' : ''}${fin.error ? ' ' + JSON.stringify(fin.error) : ''}`,
  );

  // Artifact size on disk (largest files under the blob store).
  const files = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else files.push({ file: path.relative(dataDir, p), bytes: fs.statSync(p).size });
    }
  };
  walk(dataDir);
  result.largestFiles = files.sort((a, b) => b.bytes - a.bytes).slice(0, 4);

  mark('after');
  await sleep(3000);
  mark('end');
  c.close();
} catch (err) {
  result.error = String(err?.stack ?? err);
  console.error(err);
} finally {
  await stopSampler();
  result.serverExit = child.exitCode !== null ? { code: child.exitCode, signal: child.signalCode } : null;
  await cleanup();
}

const peak = (p) => {
  const s = samples.filter((x) => x.phase === p);
  return s.length
    ? { n: s.length, maxRss: Math.max(...s.map((x) => x.rss)), minRss: Math.min(...s.map((x) => x.rss)), maxThreads: Math.max(...s.map((x) => x.threads)) }
    : null;
};
const base = samples
  .filter((x) => x.phase === 'baseline')
  .map((x) => x.rss)
  .sort((a, b) => a - b);
const baseline = base[Math.floor(base.length / 2)];
result.rssMiB = {
  baseline,
  upload: peak('upload'),
  parse: peak('parse'),
  after: peak('after'),
  uploadGrowth: peak('upload') ? peak('upload').maxRss - baseline : null,
  uploadPeakByHwm: result.upload?.hwmAfterUpload ?? null,
  uploadGrowthByHwm: result.upload && result.hwmReset ? result.upload.hwmAfterUpload - baseline : null,
  parsePeakByHwm: result.parse?.hwmAfterParse ?? null,
  parseGrowthByHwm: result.parse && result.hwmReset ? result.parse.hwmAfterParse - baseline : null,
  parseGrowth: peak('parse') ? peak('parse').maxRss - baseline : null,
};
result.samples = samples.length;
result.maxSampleGapMs = maxGap;
result.loads = Object.fromEntries(Object.entries(marks).map(([k, v]) => [k, v.load]));
result.dataDirRemoved = !fs.existsSync(dataDir);
if (result.serverExit || result.error) result.serverLogTail = serverLog.slice(-2000);
console.log(JSON.stringify(result, null, 2));
if (process.env.BENCH_SAMPLES)
  fs.writeFileSync(
    process.env.BENCH_SAMPLES,
    samples.map((s) => `${(s.t - samples[0].t).toFixed(0)}\t${s.phase}\t${s.rss.toFixed(1)}\t${s.hwm.toFixed(1)}\t${s.threads}`).join('\n') + '\n',
  );
