// Baseline for bench/e2e/front.mjs: the comparable minimum of the node's three front routes in
// plain node:http, with the libraries the node uses. Prints one JSON line {port, clientId,
// clientSecret, documentId, pid} when listening; SIGTERM closes it and removes its files.
//
//   POST /connect/token             form body; client_id checked, the secret verified against a
//                                   salted scrypt hash (N=2^14, r=8, p=1, as src/identity/secrets.ts),
//                                   a JWT with the node's claims signed ES256 by jose. No store,
//                                   no attempt limiter.
//   GET  /api/v1/documents/:id/status   the bearer token verified by jose (ES256, issuer) once and
//                                   then taken from a Map, as the node's token cache does; the
//                                   record looked up in a Map, its JSON answered.
//   POST /api/v1/documents/upload   the same bearer check; the body streamed to a file of its own
//                                   with its sha256; 202 with {documentId, status, statusInt}.
//                                   No quota, no job record, no queue, no fsync.
//
// Every answer carries the node's response headers (X-Request-Id, Cache-Control, Content-Type).
//
//   node bench/e2e/front-baseline.mjs [status.json]   (the status record to serve; a small one by default)
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash, randomBytes, randomUUID, scrypt as scryptCb, timingSafeEqual } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { SignJWT, generateKeyPair, jwtVerify } from 'jose';

const scrypt = promisify(scryptCb);
const SCRYPT = { N: 1 << 14, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
const ISSUER = 'http://127.0.0.1';
const TOKEN_SECONDS = 900;
const FORM_MAX_BYTES = 8 * 1024;

// Named by pid so front.mjs can remove it after a stop that had no time to.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), `dp-bench-front-baseline-${process.pid}-`));
const { publicKey, privateKey } = await generateKeyPair('ES256');
const kid = randomUUID();

const app = { clientId: `baseline-${randomUUID()}`, tenantId: randomUUID(), appId: randomUUID() };
const clientSecret = randomBytes(32).toString('base64url');
const salt = randomBytes(16);
const secretHash = await scrypt(clientSecret, salt, 32, SCRYPT);

// The status record: the node's own (front.mjs passes it), or a small one.
const record = process.argv[2]
  ? JSON.parse(fs.readFileSync(process.argv[2], 'utf8'))
  : { documentId: 'front-baseline-doc', status: 'completed', statusInt: 8, format: 'csv', fileName: 'small.csv', sizeBytes: 2023, documentUnits: 1 };
const documentId = record.documentId;
const records = new Map([[`${app.tenantId}/${documentId}`, record]]);

function send(res, status, json, headers = {}) {
  const payload = JSON.stringify(json);
  res.writeHead(status, {
    'X-Request-Id': randomUUID(),
    'Cache-Control': 'no-store',
    ...headers,
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(payload),
  });
  res.end(payload);
}

async function readForm(req) {
  const parts = [];
  let size = 0;
  for await (const c of req) {
    size += c.length;
    if (size > FORM_MAX_BYTES) return null;
    parts.push(c);
  }
  return new URLSearchParams(Buffer.concat(parts).toString('utf8'));
}

async function issueToken(req, res) {
  const form = await readForm(req);
  if (!form || form.get('grant_type') !== 'client_credentials') return send(res, 400, { error: 'invalid_request' });
  const secret = form.get('client_secret') ?? '';
  const actual = await scrypt(secret, salt, secretHash.length, SCRYPT);
  if (form.get('client_id') !== app.clientId || !timingSafeEqual(actual, secretHash)) return send(res, 401, { error: 'invalid_client' });
  const iat = Math.floor(Date.now() / 1000);
  const claims = {
    iss: ISSUER,
    sub: app.clientId,
    tenantid: app.tenantId,
    appId: app.appId,
    licenseRegionCode: 'local',
    dbCode: 'db1',
    entitlements: { maxDocumentUnitsPerMonth: 100_000_000, advancedPdfExtraction: true, ocrPdfExtraction: true },
    iat,
    exp: iat + TOKEN_SECONDS,
    jti: randomUUID(),
  };
  const accessToken = await new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid, typ: 'JWT' }).sign(privateKey);
  send(res, 200, { access_token: accessToken, token_type: 'Bearer', expires_in: TOKEN_SECONDS, scope: 'Service.API' }, { Pragma: 'no-cache' });
}

// Verified tokens by their string, until they expire (one signature check per token, as the node).
const verified = new Map();
async function principalOf(req) {
  const m = /^bearer[ \t]+(\S+)$/i.exec(req.headers.authorization ?? '');
  if (!m) return null;
  const token = m[1];
  const now = Math.floor(Date.now() / 1000);
  const cached = verified.get(token);
  if (cached) return cached.exp > now ? cached : null;
  try {
    const { payload } = await jwtVerify(token, publicKey, { issuer: ISSUER, algorithms: ['ES256'], requiredClaims: ['exp', 'iat', 'sub'] });
    verified.set(token, payload);
    return payload;
  } catch {
    return null;
  }
}

async function upload(req, res) {
  const documentId = randomUUID();
  const hash = createHash('sha256');
  let bytes = 0;
  const meter = async function* (src) {
    for await (const chunk of src) {
      bytes += chunk.length;
      hash.update(chunk);
      yield chunk;
    }
  };
  await pipeline(req, meter, fs.createWriteStream(path.join(dir, documentId), { mode: 0o600 }));
  if (bytes === 0) return send(res, 400, { code: 'invalid_parameter', parameter: 'body' });
  hash.digest('hex');
  send(res, 202, { documentId, status: 'Queued', statusInt: 2 }, { Location: `/api/v1/documents/${documentId}/status` });
}

const STATUS = /^\/api\/v1\/documents\/([^/]+)\/status$/;

async function route(req, res) {
  const q = req.url.indexOf('?');
  const pathname = q < 0 ? req.url : req.url.slice(0, q);
  if (req.method === 'POST' && pathname === '/connect/token') return issueToken(req, res);
  const principal = await principalOf(req);
  if (!principal) return send(res, 401, { code: 'invalid_token' });
  if (req.method === 'POST' && pathname === '/api/v1/documents/upload') return upload(req, res);
  const status = req.method === 'GET' ? STATUS.exec(pathname) : null;
  if (status) {
    const job = records.get(`${principal.tenantid}/${decodeURIComponent(status[1])}`);
    return job ? send(res, 200, job) : send(res, 404, { code: 'document_not_found' });
  }
  send(res, 404, { code: 'not_found' });
}

const server = http.createServer((req, res) => {
  route(req, res).catch((err) => {
    process.stderr.write(`baseline: ${err?.stack ?? err}\n`);
    if (!res.headersSent) send(res, 500, { code: 'internal' });
    else res.destroy();
  });
});
server.keepAliveTimeout = 30_000;
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));

const close = () => {
  server.close();
  server.closeAllConnections();
  fs.rmSync(dir, { recursive: true, force: true });
  process.exit(0);
};
process.once('SIGTERM', close);
process.once('SIGINT', close);
process.stdout.write(JSON.stringify({ port: server.address().port, clientId: app.clientId, clientSecret, documentId, pid: process.pid }) + '\n');
