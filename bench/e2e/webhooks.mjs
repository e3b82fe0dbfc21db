// Webhooks: what a callbackUrl adds to an upload, and how long after a job ends its webhook
// arrives. One embedded node in this process (dist/, temp data dir), a receiver on 127.0.0.1.
//
//   npx tsc -p tsconfig.json && node bench/e2e/webhooks.mjs [--jobs 40]
//
// Uploads a tiny CSV --jobs times without and with callbackUrl (alternating, sequential) and
// reports upload round-trip p50/p90 of each; then, for the jobs with a callback, the time from
// the job's completedAt (server clock) to the receiver's receipt (same clock) p50/p90/max.
import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
const { loadConfig } = await import('../../dist/config.js');
const { startNode } = await import('../../dist/node.js');
const { WebhookSecretStore } = await import('../../dist/webhooks/secret-store.js');
const { Sealer } = await import('../../dist/crypto/sealed.js');

const jobs = Number(process.argv[process.argv.indexOf('--jobs') + 1] || 40) || 40;
const received = new Map();
const server = http.createServer((req, res) => {
  let body = '';
  req
    .on('data', (c) => (body += c))
    .on('end', () => {
      received.set(JSON.parse(body).documentId, Date.now());
      res.writeHead(204).end();
    });
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const hook = `http://127.0.0.1:${server.address().port}/hook`;

const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'wh-bench-'));
const config = loadConfig({
  PORT: '0',
  DOCPARSE_DATA_DIR: dataDir,
  LOG_LEVEL: 'silent',
  DOCPARSE_WORKER_THREADS: '2',
  DOCPARSE_SEED_DEMO: 'true',
  DOCPARSE_DEMO_CLIENT_ID: 'bench',
  DOCPARSE_DEMO_CLIENT_SECRET: 'bench-secret-0123456789',
  DOCPARSE_ALLOW_HTTP_CALLBACKS: 'true',
  DOCPARSE_OUTBOUND_ALLOW: '127.0.0.1/32',
});
const node = await startNode(config, { logger: pino({ level: 'silent' }) });
const url = `http://127.0.0.1:${node.port}`;
const app = (await node.controlPlane.listApps()).find((a) => a.clientId === 'bench');
const { resolveMasterKey } = await import('../../dist/data-dir/master-key.js');
await new WebhookSecretStore(node.controlPlane.db, new Sealer(await resolveMasterKey(config))).rotate(app.id);
const tok = await (
  await fetch(`${url}/connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: 'bench', client_secret: 'bench-secret-0123456789' }),
  })
).json();
const auth = { authorization: `Bearer ${tok.access_token}` };

const times = { plain: [], callback: [] };
const ids = [];
for (let i = 0; i < 2 * jobs; i++) {
  const withHook = i % 2 === 1;
  const q = new URLSearchParams({ fileName: 'a.csv', csvRoute: 'Tabular', ...(withHook ? { callbackUrl: hook } : {}) });
  const t0 = performance.now();
  const res = await fetch(`${url}/api/v1/documents/upload?${q}`, { method: 'POST', headers: auth, body: `a,b\n${i},2\n` });
  const { documentId } = await res.json();
  (withHook ? times.callback : times.plain).push(performance.now() - t0);
  if (withHook) ids.push(documentId);
  if (res.status !== 202) throw new Error(`upload ${res.status}`);
}
const delays = [];
for (const id of ids) {
  for (;;) {
    const s = await (await fetch(`${url}/api/v1/documents/${id}/status`, { headers: auth })).json();
    if (s.webhook?.state === 'delivered' && received.has(id)) {
      delays.push(received.get(id) - Date.parse(s.completedAt));
      break;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
const pct = (a, p) => [...a].sort((x, y) => x - y)[Math.min(a.length - 1, Math.floor((p / 100) * a.length))].toFixed(1);
console.log(`upload without callbackUrl: p50 ${pct(times.plain, 50)} ms, p90 ${pct(times.plain, 90)} ms (n=${jobs})`);
console.log(`upload with callbackUrl:    p50 ${pct(times.callback, 50)} ms, p90 ${pct(times.callback, 90)} ms (n=${jobs})`);
console.log(`job end → webhook received: p50 ${pct(delays, 50)} ms, p90 ${pct(delays, 90)} ms, max ${pct(delays, 100)} ms`);
await node.close();
server.close();
await fs.rm(dataDir, { recursive: true, force: true });
