// Bench server: `node bench/http/server.mjs uws|node` prints {"port":N} when listening.
//
// Both flavours serve the SAME RouteDefs — the real `healthRoutes` (/health/node-state,
// /health/live) and a JSON route (/bench/json?name=..&count=..) — through the same Router,
// the same query parser/validator (parseQuery from dist/http/validation.js on the raw query string), the same
// JSON.stringify, the same response headers (X-Request-Id, Cache-Control, Content-Type) and
// the same access-log call on a silent pino logger. Only the transport differs:
//   uws  — the real HttpServer from dist/http/server.js (uWebSockets.js);
//   node — a node:http adapter below that mirrors HttpServer.onRequest/route/send for GET.
// Reference pair (transport only, no application layer): uws-raw (uWS.App, one handler)
// and node-raw (http.createServer, one handler), both answering a two-field JSON with the
// same headers.
import http from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { randomUUID } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { pino } from 'pino';

// The run script passes a snapshot of dist/ in BENCH_DIST; standalone, the live ../../dist.
const dist = (rel) => import(process.env.BENCH_DIST ? pathToFileURL(path.join(process.env.BENCH_DIST, rel)).href : `../../dist/${rel}`);
const { HttpServer } = await dist('http/server.js');
const { loadUws } = await dist('http/uws.js');
const { Router } = await dist('http/router.js');
const { parseQuery, precompile } = await dist('http/validation.js');
const { ProblemError, problems, toProblemBody } = await dist('http/problem.js');
const { healthRoutes } = await dist('api/health.js');

const flavour = process.argv[2];
if (!['uws', 'node', 'uws-raw', 'node-raw'].includes(flavour)) {
  console.error('usage: server.mjs uws|node|uws-raw|node-raw');
  process.exit(2);
}

// Same logger for both: pino at level 'silent' (every log call is a no-op after its argument
// object has been built, as in production with logging filtered out).
const logger = pino({ level: 'silent' });

const JsonQuery = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 64 }), count: Type.Integer({ minimum: 0, maximum: 100 }) },
  { additionalProperties: false },
);
const jsonRoute = {
  method: 'GET',
  path: '/bench/json',
  operationId: 'benchJson',
  summary: 'bench',
  tags: ['bench'],
  auth: 'public',
  query: JsonQuery,
  responses: { 200: { description: 'ok' } },
  handler: async (ctx) => {
    const { name, count } = ctx.query;
    const items = [];
    for (let i = 0; i < count; i++) items.push({ index: i, label: `${name}-${i}`, square: i * i, even: i % 2 === 0 });
    return { status: 200, json: { hello: name, count, requestId: ctx.requestId, items } };
  },
};

let active = 0;
let accepting = true;
let uwsServer = null;
const health = healthRoutes({
  nodeId: 'bench-node',
  region: 'bench',
  roles: ['api', 'worker', 'auth'],
  version: '0.0.0-bench',
  checks: [],
  activeRequests: () => (uwsServer ? uwsServer.activeRequests : active),
  accepting: () => (uwsServer ? uwsServer.accepting : accepting),
  poolStats: () => ({ threads: 2, queued: 0, running: 0, utilization: 0 }),
  queueDepth: async () => ({ waiting: 0, active: 0, delayed: 0 }),
  openapi: () => ({}),
});
const routes = [jsonRoute, ...health.routes];

let port;
let close;
if (flavour === 'uws-raw') {
  // Transport only: uWS.App with one handler, no router/validation/promise (reference row).
  const uws = loadUws(16 * 1024);
  const app = uws.App();
  app.get('/*', (res) => {
    const requestId = randomUUID();
    const payload = JSON.stringify({ hello: 'world', requestId });
    res.cork(() => {
      res.writeStatus('200 OK');
      res.writeHeader('X-Request-Id', requestId);
      res.writeHeader('Cache-Control', 'no-store');
      res.writeHeader('Content-Type', 'application/json');
      res.end(payload);
    });
  });
  let sock;
  port = await new Promise((resolve) => app.listen('127.0.0.1', 0, (s) => resolve(uws.us_socket_local_port((sock = s)))));
  close = async () => {
    uws.us_listen_socket_close(sock);
    app.close();
  };
} else if (flavour === 'node-raw') {
  const server = http.createServer((req, res) => {
    const requestId = randomUUID();
    const payload = JSON.stringify({ hello: 'world', requestId });
    res.writeHead(200, {
      'X-Request-Id': requestId,
      'Cache-Control': 'no-store',
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(payload),
    });
    res.end(payload);
  });
  server.keepAliveTimeout = 30_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = server.address().port;
  close = () =>
    new Promise((r) => {
      server.close(() => r());
      server.closeAllConnections();
    });
} else if (flavour === 'uws') {
  uwsServer = new HttpServer({ logger, maxHeaderBytes: 16 * 1024, trustProxy: false });
  for (const r of routes) uwsServer.add(r);
  port = await uwsServer.listen('127.0.0.1', 0);
  close = () => uwsServer.drain(1000);
} else {
  const server = nodeHttpServer(routes);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = server.address().port;
  close = () =>
    new Promise((r) => {
      accepting = false;
      server.close(() => r());
      server.closeAllConnections();
    });
}
process.stdout.write(JSON.stringify({ port, flavour, pid: process.pid }) + '\n');
process.once('SIGTERM', async () => {
  await close();
  health.stop();
  process.exit(0);
});

// ---- node:http adapter: HttpServer's per-request work, for GET routes without a body ----
// Mirrors HttpServer: request id, router (exact-path index, then the tree), a context object
// with lazy members, parseQuery on the raw string, a synchronous route with the reply sent
// from the handler's promise, problem mapping, JSON.stringify, the same response headers and
// the access-log call.
function nodeHttpServer(routeDefs) {
  const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
  const router = new Router();
  for (const r of routeDefs) {
    if (r.query) precompile(r.query);
    router.add(r);
  }
  class Context {
    query = {};
    body = undefined;
    principal = null;
    bodyStream = null;
    constructor(ex, params, headers) {
      this.ex = ex;
      this.params = params;
      this.headers = headers;
    }
    get method() {
      return this.ex.method;
    }
    get path() {
      return this.ex.path;
    }
    get requestId() {
      return this.ex.requestId;
    }
    get remoteAddress() {
      return this.ex.req.socket.remoteAddress ?? '';
    }
    get signal() {
      if (!this.ex.controller) {
        this.ex.controller = new AbortController();
        if (this.ex.aborted) this.ex.controller.abort(new Error('client aborted'));
      }
      return this.ex.controller.signal;
    }
  }
  const server = http.createServer({ maxHeaderSize: 16 * 1024 }, (req, res) => {
    const url = req.url;
    const q = url.indexOf('?');
    const headers = req.headers;
    const incomingId = headers['x-request-id'];
    const ex = {
      req,
      res,
      method: req.method,
      path: q < 0 ? url : url.slice(0, q),
      requestId: typeof incomingId === 'string' && REQUEST_ID.test(incomingId) ? incomingId : randomUUID(),
      started: performance.now(),
      status: 0,
      bytesOut: 0,
      aborted: false,
      controller: undefined,
    };
    // HttpServer's onAborted: every request learns when its client goes away.
    res.once('close', () => {
      if (!res.writableFinished) {
        ex.aborted = true;
        ex.controller?.abort(new Error('client aborted'));
        active--;
      }
    });
    active++;
    let reply;
    try {
      reply = route(ex, headers, q < 0 ? '' : url.slice(q + 1));
    } catch (err) {
      reply = errorReply(err, ex);
    }
    if (typeof reply?.then === 'function')
      reply.then(
        (r) => send(ex, r),
        (err) => send(ex, errorReply(err, ex)),
      );
    else send(ex, reply);
  });
  server.keepAliveTimeout = 30_000;

  function errorReply(err, ex) {
    const p = err instanceof ProblemError ? err : problems.internal();
    return { status: p.status, headers: p.headers, contentType: 'application/problem+json', json: toProblemBody(p, ex.path, ex.requestId) };
  }
  function send(ex, reply) {
    const { res } = ex;
    if (ex.aborted) return;
    const payload = JSON.stringify(reply.json);
    const h = {
      'X-Request-Id': ex.requestId,
      'Cache-Control': 'no-store',
      ...reply.headers,
      'Content-Type': reply.contentType ?? 'application/json',
      'Content-Length': Buffer.byteLength(payload),
    };
    ex.status = reply.status;
    res.writeHead(reply.status, h);
    res.end(payload);
    active--;
    if (logger.isLevelEnabled('info')) {
      logger.info(
        {
          requestId: ex.requestId,
          method: ex.method,
          path: ex.path,
          status: ex.status,
          ms: Math.round((performance.now() - ex.started) * 100) / 100,
          bytesIn: 0,
          bytesOut: Buffer.byteLength(payload),
        },
        'request',
      );
    }
  }
  function route(ex, headers, rawQuery) {
    const match = router.match(ex.method, ex.path);
    if (match.kind === 'not_found') throw problems.notFound(`No endpoint at ${ex.path}.`);
    if (match.kind === 'method_not_allowed') throw problems.methodNotAllowed(match.allow);
    const ctx = new Context(ex, match.params, headers);
    ctx.query = parseQuery(match.route.query, rawQuery);
    return match.route.handler(ctx);
  }
  return server;
}
