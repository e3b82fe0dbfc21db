// Resumable (tus) upload of a large file against the floors of the same run, on the node's
// disk store and on an S3-compatible server (s3rver, in its own process, over HTTP; or, as
// store rgw, Ceph's RADOS Gateway: a throwaway one-node cluster from bench/lib/rgw.mjs, which
// needs Debian's radosgw, ceph-mon and ceph-osd installed).
//
//   node bench/e2e/resumable-upload.mjs [--size 1073741824] [--patch-mb 16] [--stores disk,s3,rgw]
//        [--rgw-store bluestore|memstore] [--multipart-in-flight 0] [--fresh-server auto|0|1] [--tls 0|1]
//
// Per store, one fresh embedded node (startBenchServer) and, in order (with --fresh-server 1,
// the default for RGW on MemStore, a fresh S3 server and node for each phase, below):
//   floor   disk: `cp` of the same bytes as a file next to the store, then sync; S3: one PutObject
//           of them with the SDK, streamed (the issue's floor), and an SDK multipart upload of
//           them in 8 MiB parts (what the server makes of any multipart upload), with
//           --multipart-in-flight N also one with N parts on their way at a time;
//   put     a single PUT of the whole file to an upload-request URL (chunked);
//   tus     the same file as PATCHes of --patch-mb MiB to the same kind of URL (tus 1.0:
//           Upload-Offset, Content-Type: application/offset+octet-stream), then HEAD;
//           --patch-mb 0: the whole file as one PATCH, as tus-js-client sends it by default
//           (its chunkSize is Infinity), with its Content-Length; from 10^9 bytes on chunked
//           instead, since uWS closes the connection on a longer Content-Length (framing.ts);
// --tls 1 (RGW only): the gateway over HTTPS (a self-signed certificate the node and the
// floor's SDK trust): the node's uploads then go UNSIGNED-PAYLOAD (payloadSigning in
// src/storage/s3-blob-store.ts), the floor's streamed PutObject as before.
// Seconds and the node's peak RSS in each phase (VmHWM, reset to the current RSS at the
// phase's start through /proc/<pid>/clear_refs). Sessions are removed (tus DELETE) after each
// phase so the bytes do not pile up. The bytes are one random block of --patch-mb (16 MiB
// when 0) repeated.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import {
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { startRgw } from '../lib/rgw.mjs';
import { args, client, getToken, startBenchServer, fmt, cpuSeconds, ROOT, uptimeLine } from './lib.mjs';

const o = args({ size: 1024 ** 3, 'patch-mb': 16, stores: 'disk,s3', 'rgw-store': 'bluestore', 'multipart-in-flight': 0, 'fresh-server': 'auto', tls: 0 });
const PATCH = o['patch-mb'] ? o['patch-mb'] * 1024 * 1024 : o.size;
const block = randomBytes(o['patch-mb'] ? PATCH : 16 * 1024 * 1024);
if (o.size % PATCH !== 0 || PATCH % block.length !== 0) throw new Error('--size must be a multiple of --patch-mb (and of 16 MiB for --patch-mb 0)');
const blocks = o.size / block.length;
const patches = o.size / PATCH;

const vm = (pid) => {
  const t = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(t)?.[1] ?? NaN) / 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
};

/** The S3 server's processes (s3rver's one; RGW's gateway, OSD and monitor) while a store's phases run on them. */
let s3Pids = {};
const s3CpuSeconds = () => Object.fromEntries(Object.entries(s3Pids).map(([name, pid]) => [name, cpuSeconds(pid)]));

/**
 * Runs fn as one phase: seconds, the node's CPU seconds, its RSS at the start and its peak
 * during it; the S3 server's CPU seconds (its own process) when there is one, and this
 * process's (the client, and the SDK of the S3 floors).
 */
async function phase(pid, name, fn) {
  fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
  const start = vm(pid);
  const cpu0 = cpuSeconds(pid);
  const s3Cpu0 = s3CpuSeconds();
  const self0 = process.cpuUsage();
  const t0 = performance.now();
  const extra = await fn();
  const seconds = (performance.now() - t0) / 1000;
  const end = vm(pid);
  const s3Cpu = Object.fromEntries(Object.entries(s3CpuSeconds()).map(([name, s]) => [name, s - s3Cpu0[name]]));
  const s3Total = Object.values(s3Cpu).reduce((a, b) => a + b, 0);
  const hasS3 = Object.keys(s3Cpu).length > 0;
  const r = {
    seconds,
    mbPerSec: o.size / 1e6 / seconds,
    nodeCpuSeconds: cpuSeconds(pid) - cpu0,
    ...(hasS3 ? { s3CpuSeconds: s3Total, s3CpuSecondsByProcess: s3Cpu } : {}),
    benchCpuSeconds: ((u) => (u.user + u.system) / 1e6)(process.cpuUsage(self0)),
    rssStartMiB: start.rss,
    peakRssMiB: end.hwm,
    peakGrowthMiB: end.hwm - start.rss,
    load: uptimeLine(),
    ...extra,
  };
  console.error(
    `  ${name}: ${fmt(seconds, 1)} s (${fmt(r.mbPerSec, 0)} MB/s), node CPU ${fmt(r.nodeCpuSeconds, 1)} s${
      hasS3
        ? `, S3 server CPU ${fmt(s3Total, 1)} s${
            Object.keys(s3Cpu).length > 1
              ? ` (${Object.entries(s3Cpu)
                  .map(([n, s]) => `${n} ${fmt(s, 1)}`)
                  .join(', ')})`
              : ''
          }`
        : ''
    }, node peak RSS ${fmt(end.hwm, 0)} MiB (+${fmt(r.peakGrowthMiB, 0)} over ${fmt(start.rss, 0)})`,
  );
  return r;
}

/** One request with a body written block by block (no Content-Length: chunked; else the given length). */
function send(port, method, p, headers, writeBody) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path: p, headers }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, text }));
    });
    req.on('error', reject);
    writeBody(req).then(() => req.end(), reject);
  });
}
const writeBlocks = (n) => async (req) => {
  for (let i = 0; i < n; i++) if (!req.write(block)) await once(req, 'drain');
};

/** s3rver in a child process, on a free port, with one bucket. */
async function startS3rver() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dp-bench-s3-'));
  const script = `
    const S3rver = require(${JSON.stringify(path.join(ROOT, 'node_modules/s3rver'))});
    new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: ${JSON.stringify(dir)}, configureBuckets: [{ name: 'bench' }] })
      .run().then(({ port }) => console.log(JSON.stringify({ port })));`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = await once(child.stdout, 'data');
  const { port } = JSON.parse(String(line));
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket: 'bench',
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    pids: { s3rver: child.pid },
    stop: async () => {
      child.kill('SIGTERM');
      await once(child, 'exit');
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A new RGW answers its first writes slowly (≈ 100 ms a small PUT while its pools and bucket
 * index settle, 4–6 ms after): a few small objects and one of 32 MiB, removed again, before
 * anything is measured on it.
 */
/** The SDK's settings for this server: over HTTPS (--tls) trusting its certificate, with the SDK's own agent settings. */
const sdkConnection = (s3) => ({
  endpoint: s3.endpoint,
  region: 'us-east-1',
  forcePathStyle: true,
  credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
  ...(s3.ca ? { requestHandler: { httpsAgent: new https.Agent({ ca: fs.readFileSync(s3.ca), keepAlive: true, maxSockets: 50 }) } } : {}),
});

async function warmUp(s3) {
  const sdk = new S3Client({ ...sdkConnection(s3), requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' });
  try {
    const keys = [...Array(24).keys()].map((i) => `warm-up/${i}`);
    for (const Key of keys) await sdk.send(new PutObjectCommand({ Bucket: s3.bucket, Key, Body: Buffer.from(Key) }));
    await sdk.send(new PutObjectCommand({ Bucket: s3.bucket, Key: 'warm-up/large', Body: block.subarray(0, Math.min(block.length, 32 * 1024 * 1024)) }));
    for (const Key of [...keys, 'warm-up/large']) await sdk.send(new DeleteObjectCommand({ Bucket: s3.bucket, Key }));
  } finally {
    sdk.destroy();
  }
}

/**
 * The S3 server (none for disk) and a fresh embedded node on it, with a token and the
 * helpers the phases use; close() stops both.
 */
async function openServers(store) {
  const s3 = store === 's3' ? await startS3rver() : store === 'rgw' ? await startRgw({ bucket: 'bench', store: o['rgw-store'], tls: Boolean(o.tls) }) : null;
  if (store === 'rgw') {
    console.error(`  RGW (${s3.store}) started in ${fmt(s3.startSeconds, 1)} s`);
    await warmUp(s3);
  }
  s3Pids = s3?.pids ?? {};
  const s3Env = s3
    ? {
        DOCPARSE_S3_BUCKET: s3.bucket,
        DOCPARSE_S3_ENDPOINT: s3.endpoint,
        DOCPARSE_S3_ACCESS_KEY_ID: s3.accessKeyId,
        DOCPARSE_S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
        DOCPARSE_S3_FORCE_PATH_STYLE: 'true',
      }
    : {};
  // The node trusts the gateway's certificate as an operator's would a private CA's.
  const srv = await startBenchServer('embedded', { ...s3Env, ...(s3?.ca ? { NODE_EXTRA_CA_CERTS: s3.ca } : {}) });
  const c = client(srv.url);
  const close = async () => {
    c.close();
    await srv.stop();
    await s3?.stop();
  };
  try {
    const token = await getToken(c, srv.clientId, srv.clientSecret);
    const auth = { authorization: `Bearer ${token}` };
    const session = async () => {
      const r = await c.request('POST', '/api/v1/documents/upload-request', {
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ fileName: 'big.bin', sizeBytes: o.size }),
      });
      if (r.status !== 201) throw new Error(`upload-request ${r.status} ${r.text}`);
      const u = new URL(r.json.uploadUrl);
      return u.pathname + u.search;
    };
    const remove = async (url) => {
      const r = await c.request('DELETE', url, { headers: { 'tus-resumable': '1.0.0' } });
      if (r.status !== 204) throw new Error(`DELETE ${r.status} ${r.text}`);
    };
    return { s3, srv, c, session, remove, close };
  } catch (err) {
    await close();
    throw err;
  }
}

async function runStore(store) {
  console.error(`${store}: ${fmt(o.size / 1024 ** 3, 2)} GiB, ${patches === 1 ? 'one PATCH' : `PATCHes of ${o['patch-mb']} MiB`}`);
  // RGW on MemStore costs its OSD several times the CPU a GiB once a few GiB are held in RAM
  // (2 → 8–10 s a GiB after ≈ 3 GiB, whoever writes; BlueStore does not): phases run one
  // after another on one server would each find it slower than the last. So there, by
  // default, each phase gets a server (and a node) of its own.
  const fresh = o['fresh-server'] === 'auto' ? store === 'rgw' && o['rgw-store'] === 'memstore' : String(o['fresh-server']) === '1';
  const shared = fresh ? null : await openServers(store);
  const onServers = async (fn) => {
    if (shared) return fn(shared);
    const e = await openServers(store);
    try {
      return await fn(e);
    } finally {
      await e.close();
    }
  };
  const out = { store, freshServerPerPhase: fresh };
  try {
    if (store !== 'disk') {
      const sdkFor = (s3) =>
        new S3Client({
          ...sdkConnection(s3),
          // RGW 16 answers a streamed body with the SDK's default trailing CRC (aws-chunked)
          // 411 MissingContentLength: there the floor sends checksums only where required, as
          // the node's store does with the DOCPARSE_S3_* settings.
          ...(store === 'rgw' ? { requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' } : {}),
        });
      out.floor = await onServers(async ({ s3, srv }) => {
        const sdk = sdkFor(s3);
        try {
          return await phase(srv.pid, 'floor (SDK PutObject, streamed)', async () => {
            async function* body() {
              for (let i = 0; i < blocks; i++) yield block;
            }
            const { Readable } = await import('node:stream');
            await sdk.send(new PutObjectCommand({ Bucket: 'bench', Key: 'floor.bin', Body: Readable.from(body()), ContentLength: o.size }));
            return { what: 'PutObject' };
          });
        } finally {
          sdk.destroy();
        }
      });
      // s3rver assembles a multipart upload by copying its parts into the object: the floor
      // of any multipart upload there, ours included (RGW completes one as metadata).
      // inFlight parts sent at a time; the seconds of CompleteMultipartUpload on their own.
      const multipart = (sdk, Key, inFlight) => async () => {
        const { UploadId } = await sdk.send(new CreateMultipartUploadCommand({ Bucket: 'bench', Key }));
        const part = 8 * 1024 * 1024;
        const Parts = [];
        let next = 0;
        const sender = async () => {
          for (let at = next * part; at < o.size; at = next * part) {
            const n = ++next;
            const i = Math.floor(at / block.length);
            const Body = block.subarray(at - i * block.length, at - i * block.length + part);
            const r = await sdk.send(new UploadPartCommand({ Bucket: 'bench', Key, UploadId, PartNumber: n, Body, ContentLength: Body.length }));
            Parts.push({ PartNumber: n, ETag: r.ETag });
          }
        };
        await Promise.all(Array.from({ length: inFlight }, sender));
        Parts.sort((a, b) => a.PartNumber - b.PartNumber);
        const t0 = performance.now();
        await sdk.send(new CompleteMultipartUploadCommand({ Bucket: 'bench', Key, UploadId, MultipartUpload: { Parts } }));
        return { what: 'multipart', inFlight, completeSeconds: (performance.now() - t0) / 1000 };
      };
      const multipartPhase = (name, Key, inFlight) =>
        onServers(async ({ s3, srv }) => {
          const sdk = sdkFor(s3);
          try {
            return await phase(srv.pid, name, multipart(sdk, Key, inFlight));
          } finally {
            sdk.destroy();
          }
        });
      out.floorMultipart = await multipartPhase('floor (SDK multipart, 8 MiB parts, one at a time)', 'floor-multipart.bin', 1);
      // What a multipart upload can reach on the server when parts overlap.
      if (o['multipart-in-flight'] > 1) {
        out.floorMultipartInFlight = await multipartPhase(
          `floor (SDK multipart, 8 MiB parts, ${o['multipart-in-flight']} in flight)`,
          'floor-multipart-in-flight.bin',
          o['multipart-in-flight'],
        );
      }
    } else {
      out.floor = await onServers(async ({ srv }) => {
        const src = path.join(srv.dataDir, 'cp-source.bin');
        const fd = fs.openSync(src, 'w');
        for (let i = 0; i < blocks; i++) fs.writeSync(fd, block);
        fs.closeSync(fd);
        // The source's own dirty pages are flushed first: the timed sync is the copy's alone
        // (it once also wrote the source, 1.5–14 s for the same 1 GiB copy).
        spawnSync('sync');
        const r = await phase(srv.pid, 'floor (cp)', async () => {
          const cp = spawnSync('cp', [src, path.join(srv.dataDir, 'cp-copy.bin')]);
          if (cp.status !== 0) throw new Error(`cp: ${cp.stderr}`);
          spawnSync('sync');
          return { what: 'cp + sync' };
        });
        fs.rmSync(src);
        fs.rmSync(path.join(srv.dataDir, 'cp-copy.bin'));
        return r;
      });
    }

    out.put = await onServers(async ({ srv, session, remove }) => {
      const putUrl = await session();
      const r = await phase(srv.pid, 'single PUT', async () => {
        const res = await send(srv.port, 'PUT', putUrl, { 'content-type': 'application/octet-stream' }, writeBlocks(blocks));
        if (res.status !== 204) throw new Error(`PUT ${res.status} ${res.text}`);
        return { status: res.status };
      });
      await remove(putUrl);
      return r;
    });

    out.tus = await onServers(async ({ srv, c, session, remove }) => {
      const tusUrl = await session();
      const r = await phase(srv.pid, `tus, ${patches} PATCH${patches === 1 ? '' : 'es'}`, async () => {
        let offset = 0;
        const length = PATCH < 1e9 ? { 'content-length': String(PATCH) } : {};
        for (let i = 0; i < patches; i++) {
          const res = await send(
            srv.port,
            'PATCH',
            tusUrl,
            { 'tus-resumable': '1.0.0', 'upload-offset': String(offset), 'content-type': 'application/offset+octet-stream', ...length },
            writeBlocks(PATCH / block.length),
          );
          if (res.status !== 204) throw new Error(`PATCH at ${offset}: ${res.status} ${res.text}`);
          offset = Number(res.headers['upload-offset']);
        }
        const h = await c.request('HEAD', tusUrl, { headers: { 'tus-resumable': '1.0.0' } });
        if (Number(h.headers['upload-offset']) !== o.size) throw new Error(`HEAD says ${h.headers['upload-offset']}`);
        return { patches, headOffset: Number(h.headers['upload-offset']) };
      });
      await remove(tusUrl);
      return r;
    });
    out.tusVsFloor = out.floor.seconds / out.tus.seconds;
    if (out.floorMultipart) out.tusVsMultipartFloor = out.floorMultipart.seconds / out.tus.seconds;
    if (out.floorMultipartInFlight) out.tusVsMultipartInFlightFloor = out.floorMultipartInFlight.seconds / out.tus.seconds;
    out.putVsFloor = out.floor.seconds / out.put.seconds;
    out.tusVsPut = out.put.seconds / out.tus.seconds;
    console.error(
      `  tus: ${fmt(out.tusVsFloor, 2)}× the floor's speed${out.floorMultipart ? ` (${fmt(out.tusVsMultipartFloor, 2)}× the multipart floor's)` : ''}${
        out.floorMultipartInFlight ? `, ${fmt(out.tusVsMultipartInFlightFloor, 2)}× the multipart floor's with parts in flight` : ''
      }, ${fmt(out.tusVsPut, 2)}× the single PUT's; the single PUT ${fmt(out.putVsFloor, 2)}× the floor's`,
    );
  } finally {
    await shared?.close();
  }
  return out;
}

const results = [];
for (const store of o.stores.split(',')) results.push(await runStore(store));
console.log(JSON.stringify({ sizeBytes: o.size, patchBytes: PATCH, results }, null, 2));
