// The server of bench/http/region-check.mjs: the real HttpServer (from BENCH_DIST, else
// ../../dist) with one bearer route answering a small JSON document, as a status call does.
// The token check is a fixed principal (the bench measures the front, not ES256), handed out
// as a resolved promise like the verifier's cached answer.
//   node region-server.mjs none    — no region table (DOCPARSE_REGION_URLS unset)
//   node region-server.mjs local   — a table eu/us, this node eu, the token's region eu-central-1
//                                    (the check runs in full and finds the request local)
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { pino } from 'pino';

const dist = (rel) => import(process.env.BENCH_DIST ? pathToFileURL(path.join(process.env.BENCH_DIST, rel)).href : `../../dist/${rel}`);
const { HttpServer } = await dist('http/server.js');

const mode = process.argv[2];
if (!['none', 'local'].includes(mode)) {
  console.error('usage: region-server.mjs none|local');
  process.exit(2);
}
const logger = pino({ level: 'silent' });
let regions = null;
if (mode === 'local') {
  const { RegionRouter } = await dist('http/regions.js');
  const { RegionTable } = await dist('http/region-table.js');
  const table = new RegionTable(
    new Map([
      ['eu', 'http://127.0.0.1:9'],
      ['us', 'http://127.0.0.1:10'],
    ]),
  );
  regions = new RegionRouter({ table, local: 'eu', forwarding: true, timeoutMs: 30_000, outboundAllow: [], logger });
}
const principal = {
  tenantId: 't1',
  appId: 'a1',
  clientId: 'c1',
  licenseRegionCode: 'eu-central-1',
  dbCode: 'db1',
  allowedDomains: [],
  entitlements: null,
  exp: Math.floor(Date.now() / 1000) + 3600,
};
const answer = Promise.resolve(principal);
const server = new HttpServer({ logger, maxHeaderBytes: 16 * 1024, trustProxy: false, authenticate: () => answer, regions });
server.add({
  method: 'GET',
  path: '/api/v1/documents/:documentId/status',
  operationId: 'benchStatus',
  summary: 'bench',
  tags: ['bench'],
  auth: 'bearer',
  responses: { 200: { description: 'ok' } },
  handler: async (ctx) => ({ status: 200, json: { documentId: ctx.params.documentId, status: 'Completed', statusInt: 8 } }),
});
const port = await server.listen('127.0.0.1', 0);
console.log(JSON.stringify({ port }));
process.on('SIGTERM', () => server.drain(100).then(() => process.exit(0)));
