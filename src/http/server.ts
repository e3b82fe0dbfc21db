// HTTP front on uWebSockets.js: routing, validation, auth hook, body streaming, problem
// responses, request ids, access logs, CORS, and graceful draining.
import type { HttpRequest, HttpResponse, TemplatedApp, us_listen_socket } from 'uWebSockets.js';
import type { Readable } from 'node:stream';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { loadUws, type UwsModule } from './uws.js';
import { BodyStream, ClientAbortedError } from './body.js';
import { ProblemError, problems, toProblemBody } from './problem.js';
import { Router } from './router.js';
import type { Principal, Reply, RequestContext, RouteDef } from './route.js';
import { parseQuery, precompile, validateBody } from './validation.js';

export interface HttpServerOptions {
  logger: Logger;
  maxHeaderBytes: number;
  trustProxy: boolean;
  /** Verifies the bearer token of a 'bearer' route; throws ProblemError on refusal. */
  authenticate?: (ctx: RequestContext) => Promise<Principal>;
}

const REQUEST_ID = /^[A-Za-z0-9._:\-]{1,128}$/;
const STATUS_TEXT: Record<number, string> = {
  200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No Content', 400: 'Bad Request', 401: 'Unauthorized',
  403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed', 409: 'Conflict', 413: 'Payload Too Large',
  415: 'Unsupported Media Type', 422: 'Unprocessable Content', 429: 'Too Many Requests', 431: 'Request Header Fields Too Large',
  500: 'Internal Server Error', 503: 'Service Unavailable',
};
const CORS_ALLOW_HEADERS = 'Authorization, Content-Type, X-Request-Id';
const CORS_EXPOSE_HEADERS = 'X-Request-Id, Retry-After, WWW-Authenticate, Location';

interface Exchange {
  res: HttpResponse;
  aborted: boolean;
  finished: boolean;
  method: string;
  path: string;
  requestId: string;
  origin: string | undefined;
  body: BodyStream | null;
  started: number;
  status: number;
  bytesOut: number;
  /** Set while a response stream runs, to stop it when the client goes away. */
  onAbort?: () => void;
}

export class HttpServer {
  readonly router = new Router();
  private readonly uws: UwsModule;
  private readonly app: TemplatedApp;
  private listenSocket: us_listen_socket | null = null;
  private draining = false;
  private idleWaiters: (() => void)[] = [];
  /** Requests received and not yet fully answered. */
  activeRequests = 0;
  totalRequests = 0;

  constructor(private readonly opts: HttpServerOptions) {
    this.uws = loadUws(opts.maxHeaderBytes);
    this.app = this.uws.App();
    this.app.any('/*', (res, req) => this.onRequest(res, req));
  }

  get accepting(): boolean {
    return this.listenSocket !== null && !this.draining;
  }

  add(route: RouteDef): void {
    if (route.query) precompile(route.query);
    if (route.params) precompile(route.params);
    if (route.body && route.body.kind !== 'raw') precompile(route.body.schema);
    this.router.add(route);
  }

  listen(host: string, port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      this.app.listen(host, port, (sock) => {
        if (!sock) return reject(new Error(`could not listen on ${host}:${port} (in use or not permitted)`));
        this.listenSocket = sock;
        resolve(this.uws.us_socket_local_port(sock));
      });
    });
  }

  /** Stops accepting connections, lets in-flight requests finish (up to graceMs), then closes all. */
  async drain(graceMs: number): Promise<void> {
    this.draining = true;
    if (this.listenSocket) this.uws.us_listen_socket_close(this.listenSocket);
    this.listenSocket = null;
    if (this.activeRequests > 0) {
      await Promise.race([
        new Promise<void>((r) => this.idleWaiters.push(r)),
        new Promise<void>((r) => setTimeout(r, graceMs).unref()),
      ]);
    }
    // close() exists on the native app (closes every socket) but is missing from its typings.
    (this.app as unknown as { close(): void }).close();
  }

  private onRequest(res: HttpResponse, req: HttpRequest): void {
    // Everything from req must be read now: it is invalid after this callback returns.
    const method = req.getCaseSensitiveMethod().toUpperCase();
    const path = req.getUrl();
    const rawQuery = req.getQuery() ?? '';
    const headers: Record<string, string> = {};
    req.forEach((k, v) => {
      headers[k] = v;
    });
    const incomingId = headers['x-request-id'];
    const ex: Exchange = {
      res,
      aborted: false,
      finished: false,
      method,
      path,
      requestId: incomingId && REQUEST_ID.test(incomingId) ? incomingId : randomUUID(),
      origin: headers.origin,
      body: null,
      started: performance.now(),
      status: 0,
      bytesOut: 0,
    };
    const controller = new AbortController();
    res.onAborted(() => {
      ex.aborted = true;
      controller.abort(new ClientAbortedError());
      ex.body?.fail(new ClientAbortedError());
      ex.onAbort?.();
      this.finish(ex);
    });
    this.activeRequests++;
    this.totalRequests++;

    const cl = headers['content-length'];
    if ((cl !== undefined && cl !== '0') || headers['transfer-encoding'] !== undefined) {
      const body = new BodyStream(res, cl !== undefined && /^\d+$/.test(cl) ? Number(cl) : null);
      ex.body = body;
      res.onData((ab, isLast) => body.push(Buffer.from(new Uint8Array(ab)), isLast));
    }
    let remoteAddress = Buffer.from(res.getRemoteAddressAsText()).toString();
    if (this.opts.trustProxy && headers['x-forwarded-for']) remoteAddress = headers['x-forwarded-for'].split(',')[0].trim();

    void this.dispatch(ex, headers, rawQuery, remoteAddress, controller.signal);
  }

  private async dispatch(ex: Exchange, headers: Record<string, string>, rawQuery: string, remoteAddress: string, signal: AbortSignal): Promise<void> {
    let reply: Reply;
    try {
      reply = await this.route(ex, headers, rawQuery, remoteAddress, signal);
    } catch (err) {
      reply = this.errorReply(err, ex);
    }
    if (ex.aborted) return;
    this.send(ex, reply);
  }

  private async route(ex: Exchange, headers: Record<string, string>, rawQuery: string, remoteAddress: string, signal: AbortSignal): Promise<Reply> {
    const match = this.router.match(ex.method === 'OPTIONS' ? 'GET' : ex.method, ex.path);
    if (ex.method === 'OPTIONS') return this.options(ex, headers);
    if (match.kind === 'not_found') throw problems.notFound(`No endpoint at ${ex.path}. See /openapi/v1.json.`);
    if (match.kind === 'method_not_allowed') throw problems.methodNotAllowed(match.allow);
    const route = match.route;
    if (ex.body && !route.body) {
      throw problems.invalidParameter('body', `${ex.method} ${route.path} takes no request body.`);
    }
    const ctx: RequestContext = {
      method: ex.method,
      path: ex.path,
      query: {},
      rawQuery: new URLSearchParams(rawQuery),
      params: match.params,
      headers,
      remoteAddress,
      requestId: ex.requestId,
      body: undefined,
      bodyStream: ex.body,
      principal: null,
      signal,
    };
    if (route.auth === 'bearer') {
      if (!this.opts.authenticate) throw problems.unavailable('Authentication is not configured on this node.');
      ctx.principal = await this.opts.authenticate(ctx);
    }
    ctx.query = parseQuery(route.query, ctx.rawQuery);
    if (route.params) validateBody(route.params, ctx.params, 'path');
    if (route.body && route.body.kind !== 'raw') {
      const raw = ex.body ? await ex.body.readAll(route.body.maxBytes ?? 1 << 20) : Buffer.alloc(0);
      ctx.body = validateBody(route.body.schema, parseBody(route.body.kind, raw, headers['content-type']));
    }
    return route.handler(ctx);
  }

  private options(ex: Exchange, headers: Record<string, string>): Reply {
    const match = this.router.match('GET', ex.path);
    const allow = new Set<string>(['OPTIONS']);
    for (const m of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
      if (this.router.match(m, ex.path).kind === 'found') allow.add(m);
    }
    if (match.kind === 'not_found' && allow.size === 1) throw problems.notFound(`No endpoint at ${ex.path}.`);
    const h: Record<string, string> = { Allow: [...allow].join(', ') };
    if (headers.origin && headers['access-control-request-method']) {
      // Preflight: answered for any origin; the allowed-domain check runs on the real request.
      h['Access-Control-Allow-Methods'] = [...allow].join(', ');
      h['Access-Control-Allow-Headers'] = CORS_ALLOW_HEADERS;
      h['Access-Control-Max-Age'] = '600';
    }
    return { status: 204, headers: h, empty: true };
  }

  private errorReply(err: unknown, ex: Exchange): Reply {
    let problem: ProblemError;
    if (err instanceof ProblemError) problem = err;
    else if (err instanceof ClientAbortedError) problem = new ProblemError(400, 'client_aborted', 'Client aborted', err.message);
    else {
      this.opts.logger.error({ err, requestId: ex.requestId, path: ex.path }, 'unhandled error');
      problem = problems.internal();
    }
    return {
      status: problem.status,
      headers: problem.headers,
      contentType: 'application/problem+json',
      json: toProblemBody(problem, ex.path, ex.requestId),
    };
  }

  private baseHeaders(ex: Exchange): [string, string][] {
    const h: [string, string][] = [['X-Request-Id', ex.requestId], ['Cache-Control', 'no-store']];
    if (ex.origin) {
      h.push(['Access-Control-Allow-Origin', ex.origin], ['Vary', 'Origin'], ['Access-Control-Expose-Headers', CORS_EXPOSE_HEADERS]);
    }
    return h;
  }

  private send(ex: Exchange, reply: Reply): void {
    const { res } = ex;
    ex.status = reply.status;
    // A body nobody read (an early error): close the connection rather than drain it.
    const closeAfter = this.draining || (ex.body !== null && !ex.body.ended);
    const head = () => {
      res.writeStatus(`${reply.status} ${STATUS_TEXT[reply.status] ?? ''}`);
      for (const [k, v] of this.baseHeaders(ex)) res.writeHeader(k, v);
      for (const [k, v] of Object.entries(reply.headers ?? {})) res.writeHeader(k, v);
    };
    if ('stream' in reply) {
      res.cork(() => {
        head();
        res.writeHeader('Content-Type', reply.contentType);
      });
      this.pipe(ex, reply.stream, reply.length);
      return;
    }
    let payload: string | undefined;
    let contentType: string | undefined;
    if ('json' in reply) {
      payload = JSON.stringify(reply.json);
      contentType = reply.contentType ?? 'application/json';
    } else if ('text' in reply) {
      payload = reply.text;
      contentType = reply.contentType;
    }
    res.cork(() => {
      head();
      if (contentType) res.writeHeader('Content-Type', contentType);
      if (payload === undefined || ex.method === 'HEAD') res.endWithoutBody(payload === undefined ? 0 : Buffer.byteLength(payload), closeAfter);
      else res.end(payload, closeAfter);
    });
    ex.bytesOut = payload ? Buffer.byteLength(payload) : 0;
    this.finish(ex);
  }

  /** Streams a Readable with backpressure; with a known length, as a Content-Length body. */
  private pipe(ex: Exchange, stream: Readable, length: number | undefined): void {
    const { res } = ex;
    ex.onAbort = () => stream.destroy();
    stream.on('error', (err) => {
      this.opts.logger.error({ err, requestId: ex.requestId }, 'response stream failed');
      if (!ex.aborted) res.close();
      this.finish(ex);
    });
    stream.on('end', () => {
      if (!ex.aborted && length === undefined) res.cork(() => res.end());
      this.finish(ex);
    });
    stream.on('data', (data: Buffer | string) => {
      if (ex.aborted) return;
      const chunk = typeof data === 'string' ? Buffer.from(data) : data;
      ex.bytesOut += chunk.length;
      if (length === undefined) {
        let ok = true;
        res.cork(() => {
          ok = res.write(chunk);
        });
        if (!ok) {
          stream.pause();
          res.onWritable(() => {
            stream.resume();
            return true;
          });
        }
        return;
      }
      const startOffset = res.getWriteOffset();
      let result: [boolean, boolean] = [false, false];
      res.cork(() => {
        result = res.tryEnd(chunk, length);
      });
      const [ok, done] = result;
      if (done) return;
      if (!ok) {
        stream.pause();
        res.onWritable((offset) => {
          if (ex.aborted) return true;
          const [ok2, done2] = res.tryEnd(chunk.subarray(offset - startOffset), length);
          if (ok2 && !done2) stream.resume();
          return ok2;
        });
      }
    });
  }

  private finish(ex: Exchange): void {
    if (ex.finished) return;
    ex.finished = true;
    this.activeRequests--;
    this.opts.logger.info(
      {
        requestId: ex.requestId,
        method: ex.method,
        path: ex.path,
        status: ex.aborted && !ex.status ? 499 : ex.status,
        ms: Math.round((performance.now() - ex.started) * 100) / 100,
        bytesIn: ex.body?.received ?? 0,
        bytesOut: ex.bytesOut,
        aborted: ex.aborted || undefined,
      },
      'request',
    );
    if (this.activeRequests === 0 && this.idleWaiters.length) {
      for (const w of this.idleWaiters.splice(0)) w();
    }
  }
}

function parseBody(kind: 'json' | 'form', raw: Buffer, contentType: string | undefined): unknown {
  const ct = (contentType ?? '').split(';')[0].trim().toLowerCase();
  if (kind === 'json') {
    if (ct && ct !== 'application/json' && !ct.endsWith('+json')) {
      throw new ProblemError(415, 'unsupported_media_type', 'Unsupported media type', 'Send the body as application/json.');
    }
    if (raw.length === 0) throw problems.invalidParameter('body', 'A JSON request body is required.');
    try {
      return JSON.parse(raw.toString('utf8'));
    } catch (e) {
      throw problems.invalidParameter('body', `The request body is not valid JSON: ${(e as Error).message}`);
    }
  }
  if (ct !== 'application/x-www-form-urlencoded') {
    throw new ProblemError(415, 'unsupported_media_type', 'Unsupported media type', 'Send the body as application/x-www-form-urlencoded.');
  }
  const form: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(raw.toString('utf8'))) form[k] = v;
  return form;
}
