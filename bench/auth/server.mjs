// Auth bench server: `node bench/auth/server.mjs <dataDir> on|off` prints {"port":N} when
// listening. The real HttpServer (uWS) with the real identity module (createIdentity: token
// endpoint + bearer verifier) over a PGlite control-plane store in <dataDir> (seeded by
// run.mjs), embedded rate counters, failure limits raised out of the way, and:
//   GET /bench/protected — auth 'bearer', returns a few principal fields (trivial handler);
//   GET /bench/public    — the same handler without auth (baseline).
// Verification cache: 'on' (default behaviour) or 'off' (createIdentity({ cache: false })).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Type } from '@sinclair/typebox';
import { pino } from 'pino';
import { pathToFileURL } from 'node:url';

// The run script passes a snapshot of dist/ in BENCH_DIST; standalone, the live ../../dist.
const dist = (rel) => import(process.env.BENCH_DIST ? pathToFileURL(path.join(process.env.BENCH_DIST, rel)).href : `../../dist/${rel}`);
const { HttpServer } = await dist('http/server.js');
const { openControlPlaneStore } = await dist('tenancy/sql-store.js');
const { EmbeddedRateCounters } = await dist('jobs/embedded-counters.js');
const { Sealer } = await dist('crypto/sealed.js');
const { createIdentity } = await dist('identity/index.js');

const [dataDir, cacheArg] = process.argv.slice(2);
if (!dataDir || !['on', 'off'].includes(cacheArg)) {
  console.error('usage: server.mjs <dataDir> on|off');
  process.exit(2);
}

const logger = pino({ level: 'silent' });
const store = await openControlPlaneStore({ dataDir });
const sealer = new Sealer(readFileSync(path.join(dataDir, 'master.key'), 'utf8').trim());
const counters = new EmbeddedRateCounters();
const identity = await createIdentity({
  store,
  sealer,
  authUrl: 'http://127.0.0.1',
  counters,
  logger,
  cache: cacheArg === 'on',
  failureLimits: { perClient: 1e9, perAddress: 1e9 },
});
const http = new HttpServer({ logger, maxHeaderBytes: 16 * 1024, trustProxy: false, authenticate: identity.authenticate });
for (const r of identity.routes) http.add(r);

const NoQuery = Type.Object({}, { additionalProperties: false });
const handler = async (ctx) => ({ status: 200, json: { ok: true, tenantId: ctx.principal?.tenantId ?? null, appId: ctx.principal?.appId ?? null } });
const base = { method: 'GET', tags: ['bench'], query: NoQuery, responses: { 200: { description: 'ok' } }, handler };
http.add({ ...base, path: '/bench/protected', operationId: 'benchProtected', summary: 'bench', auth: 'bearer' });
http.add({ ...base, path: '/bench/public', operationId: 'benchPublic', summary: 'bench', auth: 'public' });

await identity.ready();
const port = await http.listen('127.0.0.1', 0);
process.stdout.write(JSON.stringify({ port, pid: process.pid, cache: cacheArg }) + '\n');
process.once('SIGTERM', async () => {
  await http.drain(1000);
  await counters.close();
  await store.close();
  process.exit(0);
});
