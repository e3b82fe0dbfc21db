// A throwaway single-node Ceph cluster serving S3 through the RADOS Gateway, from Debian's
// packages (bookworm: Ceph 16):
//
//   apt-get install --no-install-recommends radosgw ceph-mon ceph-osd
//
// Why: s3rver re-reads and concatenates the parts of a multipart upload when it completes it,
// so any multipart upload costs it several times a PutObject; a real S3 server (AWS, MinIO,
// RGW) completes one as metadata. RGW is the real one that Debian packages (MinIO cannot be
// installed here).
//
// One monitor, one OSD (BlueStore on a sparse file, or MemStore) and one radosgw, all in a
// temporary directory, on free ports of 127.0.0.1, without cephx (S3 requests are still
// signed: RGW checks its own users' keys). Nothing is written outside the directory, and
// nothing talks to other services. Run as a module (startRgw) or from the shell:
//
//   node bench/lib/rgw.mjs [--dir PARENT] [--bucket bench] [--store bluestore|memstore] [--gib 10] [--tls 0|1]
//
// which prints {"endpoint", "accessKeyId", "secretAccessKey", "bucket", …} as one JSON line,
// then runs until SIGINT/SIGTERM, and stops the daemons and removes the directory. With tls,
// the gateway answers HTTPS only, with a self-signed certificate for 127.0.0.1 made by
// `openssl` in the directory; its path is "ca" (a client's trust: NODE_EXTRA_CA_CERTS, or an
// agent's ca).
import { spawn, execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const DAEMONS = ['ceph-mon', 'ceph-osd', 'radosgw'];

/** Whether the Ceph daemons are installed (the packages above). */
export function rgwInstalled() {
  return DAEMONS.every((d) => fs.existsSync(`/usr/bin/${d}`));
}

/** A port free on 127.0.0.1 now (the OS's pick; taken again by the daemon a moment later). */
async function freePort() {
  const s = net.createServer().listen(0, '127.0.0.1');
  await once(s, 'listening');
  const { port } = s.address();
  s.close();
  await once(s, 'close');
  return port;
}

function config({ dir, fsid, monPort, rgwPort, store, gib, tls }) {
  return `[global]
fsid = ${fsid}
mon host = v2:127.0.0.1:${monPort}
mon data = ${dir}/mon
osd data = ${dir}/osd
run dir = ${dir}/run
admin socket = ${dir}/run/$name.asok
pid file = ${dir}/run/$name.pid
log file = ${dir}/log/$name.log
# No cephx: a throwaway cluster on 127.0.0.1. radosgw asks for an encrypted ("secure") link to
# the monitor by default, which needs cephx; crc is what the others use without it.
auth cluster required = none
auth service required = none
auth client required = none
ms mon client mode = crc
keyring = /dev/null
# The OSD's own ports: a range away from Ceph's default 6800-7300.
ms bind port min = ${monPort + 1}
ms bind port max = ${monPort + 100}
# One OSD: one copy of everything, few placement groups (RGW creates ~8 pools, and a monitor
# refuses pools past 250 PGs an OSD), no autoscaler (it lives in the mgr, not started).
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
mon allow pool size one = true
mon warn on pool no redundancy = false
osd crush chooseleaf type = 0
[osd]
osd objectstore = ${store}
osd memory target = 1073741824
bluestore block path = ${dir}/osd-block
bluestore block create = true
bluestore block size = ${gib * 1024 ** 3}
memstore device bytes = ${gib * 1024 ** 3}
[client.rgw]
rgw frontends = beast ${tls ? `ssl_endpoint=127.0.0.1:${rgwPort} ssl_certificate=${dir}/tls/cert.pem ssl_private_key=${dir}/tls/key.pem` : `endpoint=127.0.0.1:${rgwPort}`} tcp_nodelay=1
`;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A key and a self-signed certificate for 127.0.0.1 in dir (a day's); the certificate's path. */
function selfSignedCertificate(dir) {
  fs.mkdirSync(dir);
  const cert = path.join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1'].concat([
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      path.join(dir, 'key.pem'),
      '-out',
      cert,
    ]),
    { stdio: 'ignore' },
  );
  return cert;
}

/** The status of a GET of url (or null when it does not answer), through agent for HTTPS. */
function statusOf(url, agent) {
  return new Promise((resolve) => {
    const req = (url.startsWith('https:') ? https : http).get(url, { agent }, (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.on('error', () => resolve(null));
  });
}

/** Runs a Ceph tool to its end (with a timeout: a tool that cannot reach the monitor waits 300 s). */
function tool(conf, cmd, args, timeoutMs = 60_000) {
  return execFileSync(cmd, ['-c', conf, ...args], { timeout: timeoutMs, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

async function until(what, timeoutMs, probe) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await probe()) return;
    } catch (e) {
      if (Date.now() > end) throw new Error(`${what}: ${e.message}`, { cause: e });
    }
    if (Date.now() > end) throw new Error(`${what}: not after ${timeoutMs / 1000} s`);
    await sleep(250);
  }
}

const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * Starts the cluster in a new directory under parent (os.tmpdir() unless given), with a user
 * and an empty bucket; store 'bluestore' (a sparse file of gib GiB) or 'memstore' (gib GiB of
 * the OSD's memory at most).
 */
export async function startRgw({ parent = os.tmpdir(), bucket = 'bench', store = 'bluestore', gib = 10, tls = false } = {}) {
  if (!rgwInstalled()) throw new Error('Ceph is not installed: apt-get install --no-install-recommends radosgw ceph-mon ceph-osd');
  const t0 = performance.now();
  const dir = fs.mkdtempSync(path.join(parent, 'dp-rgw-'));
  for (const d of ['mon', 'osd', 'run', 'log']) fs.mkdirSync(path.join(dir, d));
  const conf = path.join(dir, 'ceph.conf');
  const fsid = randomUUID();
  const monPort = await freePort();
  const rgwPort = await freePort();
  fs.writeFileSync(conf, config({ dir, fsid, monPort, rgwPort, store, gib, tls }));
  const ca = tls ? selfSignedCertificate(path.join(dir, 'tls')) : null;

  const children = [];
  const daemon = (cmd, args) => {
    // -f: in the foreground, so that the pid is the child's and its end is an 'exit' event.
    const child = spawn(cmd, ['-f', '-c', conf, ...args], { stdio: ['ignore', 'ignore', fs.openSync(path.join(dir, 'log', `${cmd}.stderr`), 'w')] });
    children.push(child);
    return child;
  };
  const stop = async () => {
    // In reverse: the gateway first, the monitor last (the OSD tells it it is going down).
    for (const child of children.reverse()) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const killed = setTimeout(() => child.kill('SIGKILL'), 20_000);
        await once(child, 'exit');
        clearTimeout(killed);
      }
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };

  try {
    execFileSync('monmaptool', ['--create', '--fsid', fsid, '--addv', 'a', `[v2:127.0.0.1:${monPort}]`, path.join(dir, 'monmap')], { stdio: 'ignore' });
    tool(conf, 'ceph-mon', ['-i', 'a', '--mkfs', '--monmap', path.join(dir, 'monmap')]);
    const mon = daemon('ceph-mon', ['-i', 'a']);
    await until('monitor', 30_000, () => alive(mon.pid) && tool(conf, 'ceph', ['--connect-timeout', '5', 'mon', 'stat'], 10_000));

    const osdUuid = randomUUID();
    const osdId = tool(conf, 'ceph', ['osd', 'new', osdUuid]).trim();
    tool(conf, 'ceph-osd', ['-i', osdId, '--mkfs', '--osd-uuid', osdUuid], 120_000);
    const osd = daemon('ceph-osd', ['-i', osdId]);
    await until('OSD up', 60_000, () => alive(osd.pid) && JSON.parse(tool(conf, 'ceph', ['osd', 'dump', '--format', 'json'])).osds[0]?.up === 1);

    // The user before the gateway: radosgw-admin creates RGW's pools as it goes.
    const accessKeyId = `DP${randomUUID().replaceAll('-', '').slice(0, 18).toUpperCase()}`;
    const secretAccessKey = randomUUID().replaceAll('-', '') + randomUUID().replaceAll('-', '').slice(0, 8);
    tool(
      conf,
      'radosgw-admin',
      ['user', 'create', '--uid=docparse', '--display-name=docparse', `--access-key=${accessKeyId}`, `--secret=${secretAccessKey}`],
      120_000,
    );

    const rgw = daemon('radosgw', ['-n', 'client.rgw']);
    const endpoint = `${tls ? 'https' : 'http'}://127.0.0.1:${rgwPort}`;
    const agent = ca ? new https.Agent({ ca: fs.readFileSync(ca) }) : undefined;
    await until('radosgw', 60_000, async () => alive(rgw.pid) && (await statusOf(endpoint, agent)) === 200);

    const { S3Client, CreateBucketCommand } = await import('@aws-sdk/client-s3');
    const sdk = new S3Client({
      endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId, secretAccessKey },
      ...(agent ? { requestHandler: { httpsAgent: agent } } : {}),
    });
    await sdk.send(new CreateBucketCommand({ Bucket: bucket }));
    sdk.destroy();

    return {
      endpoint,
      region: 'us-east-1',
      bucket,
      accessKeyId,
      secretAccessKey,
      store,
      dir,
      ca,
      pids: { mon: mon.pid, osd: osd.pid, rgw: rgw.pid },
      startSeconds: (performance.now() - t0) / 1000,
      stop,
    };
  } catch (e) {
    const logs = fs.existsSync(path.join(dir, 'log')) ? fs.readdirSync(path.join(dir, 'log')).join(', ') : '';
    await stop().catch(() => {});
    throw new Error(`RGW did not start (${e.message}); its logs were ${logs}`, { cause: e });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { args } = await import('../e2e/lib.mjs');
  const o = args({ dir: os.tmpdir(), bucket: 'bench', store: 'bluestore', gib: 10, tls: 0 });
  const rgw = await startRgw({ parent: o.dir, bucket: o.bucket, store: o.store, gib: o.gib, tls: Boolean(o.tls) });
  const { stop, ...shown } = rgw;
  console.log(JSON.stringify(shown));
  const end = async () => {
    await stop();
    process.exit(0);
  };
  process.once('SIGINT', end);
  process.once('SIGTERM', end);
}
