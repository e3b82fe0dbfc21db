// HTTP front on uWebSockets.js: routing, validation, auth hook, body streaming, problem
// responses, request ids, access logs, CORS, and graceful draining.
import type { HttpRequest, HttpResponse, TemplatedApp, us_listen_socket } from 'uWebSockets.js';
import type { Readable } from 'node:stream';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { loadUws, type UwsModule } from './uws.js';
import { BodyStream, ClientAbortedError } from './body.js';
import { requestFraming } from './framing.js';
import { SLOW_BODY_TIMEOUT_MS, SlowBodyWatch, UWS_BODY_BYTES_PER_TIMEOUT } from './slow-body.js';
import { ProblemError, problem, problems, toProblemBody } from './problem.js';
import { DependencyUnavailableError } from '../jobs/dependency-unavailable.js';
import { Router } from './router.js';
import type { Principal, Reply, RequestContext, RouteDef } from './route.js';
import { parseQuery, precompile, validateBody } from './validation.js';

export interface HttpServerOptions {
  logger: Logger;
  maxHeaderBytes: number;
  trustProxy: boolean;
  /** Verifies the bearer token of a 'bearer' route; throws ProblemError on refusal. */
  authenticate?: (ctx: RequestContext) => Promise<Principal>;
  /** A request body that brings fewer than slowBodyBytes in this time gets 408 (slow-body.ts). */
  slowBodyTimeoutMs?: number;
  slowBodyBytes?: number;
}

const REQUEST_ID = /^[A-Za-z0-9._:\-]{1,128}$/;
const STATUS_TEXT: Record<number, string> = {
  200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No Content', 400: 'Bad Request', 401: 'Unauthorized',
  403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed', 408: 'Request Timeout', 409: 'Conflict', 413: 'Payload Too Large',
  415: 'Unsupported Media Type', 422: 'Unprocessable Content', 429: 'Too Many Requests', 431: 'Request Header Fields Too Large',
  500: 'Internal Server Error', 501: 'Not Implemented', 503: 'Service Unavailable',
};
/** "200 OK" etc., built once: the status line is written on every response. */
const STATUS_LINE: Record<number, string> = Object.fromEntries(Object.entries(STATUS_TEXT).map(([code, text]) => [code, `${code} ${text}`]));
const statusLine = (status: number) => STATUS_LINE[status] ?? `${status} `;
/** uWS hands the method as sent; the common spellings map to upper case without allocating. */
const METHOD_UPPER: Record<string, string> = Object.fromEntries(
  ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'].flatMap((m) => [[m, m], [m.toLowerCase(), m]]),
);
const CORS_ALLOW_HEADERS = 'Authorization, Content-Type, X-Request-Id';
const CORS_EXPOSE_HEADERS = 'X-Request-Id, Retry-After, WWW-Authenticate, Location';

/** One request/response pair, from the uWS callback to the last byte. */
class Exchange {
  /** The matched path's own error format (RouteDef.errorReply), once routed. */
  errorFormat: RouteDef['errorReply'] = undefined;
  aborted = false;
  finished = false;
  body: BodyStream | null = null;
  status = 0;
  bytesOut = 0;
  /** Aborted when the client goes away; created only if a handler asks for ctx.signal. */
  controller: AbortController | undefined = undefined;
  /** Set while a response stream runs, to stop it when the client goes away. */
  onAbort: (() => void) | undefined = undefined;
  /** Close the connection after this response (the request cannot be trusted to be framed). */
  closeAfter = false;
  private remote: string | undefined = undefined;

  constructor(
    readonly res: HttpResponse,
    readonly method: string,
    readonly path: string,
    readonly requestId: string,
    readonly origin: string | undefined,
    readonly started: number,
    /** Size of the request line and header block as received. */
    readonly headerBytes: number,
    private readonly forwardedFor: string | undefined,
  ) {}

  /**
   * Peer address, read on first use. Behind a trusted proxy: the last X-Forwarded-For entry,
   * the one that proxy added — earlier entries came from the client and may be forged.
   */
  get remoteAddress(): string {
    if (this.remote === undefined) {
      if (this.forwardedFor) this.remote = this.forwardedFor.slice(this.forwardedFor.lastIndexOf(',') + 1).trim();
      else this.remote = this.aborted ? '' : Buffer.from(this.res.getRemoteAddressAsText()).toString('latin1');
    }
    return this.remote;
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(new ClientAbortedError());
    }
    return this.controller.signal;
  }
}

/** The handler's view of a request. A class so the lazy members cost nothing until read. */
class Context implements RequestContext {
  query: Record<string, unknown> = {};
  body: unknown = undefined;
  principal: Principal | null = null;
  constructor(
    private readonly ex: Exchange,
    readonly params: Record<string, string>,
    readonly headers: Record<string, string>,
  ) {}
  get method(): string {
    return this.ex.method;
  }
  get path(): string {
    return this.ex.path;
  }
  get requestId(): string {
    return this.ex.requestId;
  }
  get bodyStream(): BodyStream | null {
    return this.ex.body;
  }
  get remoteAddress(): string {
    return this.ex.remoteAddress;
  }
  get signal(): AbortSignal {
    return this.ex.signal;
  }
}

const isPromise = <T>(v: T | Promise<T>): v is Promise<T> => typeof (v as Promise<T>)?.then === 'function';

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
  private readonly slowBodyMs: number;
  private readonly slowBodyBytes: number;

  constructor(private readonly opts: HttpServerOptions) {
    this.slowBodyMs = opts.slowBodyTimeoutMs ?? SLOW_BODY_TIMEOUT_MS;
    this.slowBodyBytes = opts.slowBodyBytes ?? UWS_BODY_BYTES_PER_TIMEOUT;
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
    const sentMethod = req.getCaseSensitiveMethod();
    const method = METHOD_UPPER[sentMethod] ?? sentMethod.toUpperCase();
    const path = req.getUrl();
    const rawQuery = req.getQuery() ?? '';
    const headers: Record<string, string> = {};
    // uWS 20.30 ignores UWS_HTTP_MAX_HEADERS_SIZE: it only refuses header blocks over 4 KiB
    // that arrive split across reads, and accepts up to its 512 KiB read buffer in one read.
    // The configured limit is therefore enforced here ("Name: value\r\n" per header).
    let headerBytes = method.length + path.length + rawQuery.length + 12;
    // Every line of the framing headers, not just the last one the map keeps (framing.ts).
    let contentLengths: string[] | undefined;
    let transferEncodings: string[] | undefined;
    req.forEach((k, v) => {
      headers[k] = v;
      headerBytes += k.length + v.length + 4;
      if (k === 'content-length') (contentLengths ??= []).push(v);
      else if (k === 'transfer-encoding') (transferEncodings ??= []).push(v);
    });
    const framing = requestFraming(contentLengths, transferEncodings);
    const incomingId = headers['x-request-id'];
    const ex = new Exchange(
      res,
      method,
      path,
      incomingId !== undefined && REQUEST_ID.test(incomingId) ? incomingId : randomUUID(),
      headers.origin,
      performance.now(),
      headerBytes,
      this.opts.trustProxy ? headers['x-forwarded-for'] : undefined,
    );
    res.onAborted(() => {
      ex.aborted = true;
      ex.controller?.abort(new ClientAbortedError());
      ex.body?.fail(new ClientAbortedError());
      ex.onAbort?.();
      this.finish(ex);
    });
    this.activeRequests++;
    this.totalRequests++;
    // The access log names the peer even when the client aborts (res is unusable by then).
    if (this.logEnabled()) void ex.remoteAddress;

    if (framing.kind === 'refused') {
      // Where this body ends is in doubt: no handler sees it; the answer closes the
      // connection. It is sent once uWS has parsed the rest of this packet: a close asked
      // for inside uWS's request handler is forgotten when the same packet holds another
      // request, which uWS would then serve; answered later, uWS finds this request still
      // pending and closes the connection instead of serving the next one.
      ex.closeAfter = true;
      setImmediate(() => this.respond(ex, this.errorReply(framing.problem, ex)));
      return;
    }
    if (framing.kind !== 'none') {
      const watch = new SlowBodyWatch(this.slowBodyMs, () => this.slowBody(ex), this.slowBodyBytes);
      const body = new BodyStream(res, framing.kind === 'length' ? framing.length : null, watch);
      ex.body = body;
      res.onData((ab, isLast) => body.push(Buffer.from(new Uint8Array(ab)), isLast));
    }
    this.dispatch(ex, headers, rawQuery);
  }

  /**
   * The body came too slowly (slow-body.ts): 408 now, before uWS closes the connection
   * without a word, and the body fails so the handler drops whatever it stored of it.
   */
  private slowBody(ex: Exchange): void {
    if (ex.aborted || ex.finished || ex.status !== 0) return;
    const timeout = problems.requestTimeout(
      `The request body arrived too slowly (under ${Math.ceil(this.slowBodyBytes / 1024)} KiB in ${this.slowBodyMs / 1000} s); nothing of it was kept.`,
    );
    ex.body?.fail(timeout);
    ex.closeAfter = true;
    this.respond(ex, this.errorReply(timeout, ex));
  }

  private logEnabled(): boolean {
    return this.opts.logger.isLevelEnabled('info');
  }

  /**
   * Routes and answers. Synchronous as far as the route allows: most public routes answer
   * without any await, and the reply goes out from the handler's promise in one hop.
   */
  private dispatch(ex: Exchange, headers: Record<string, string>, rawQuery: string): void {
    let reply: Reply | Promise<Reply>;
    try {
      reply = this.route(ex, headers, rawQuery);
    } catch (err) {
      reply = this.errorReply(err, ex);
    }
    if (isPromise(reply)) {
      reply.then(
        (r) => this.respond(ex, r),
        (err) => this.respond(ex, this.errorReply(err, ex)),
      );
    } else {
      this.respond(ex, reply);
    }
  }

  private respond(ex: Exchange, reply: Reply): void {
    // Finished already: the front answered on its own (a 408 for a slow body).
    if (ex.aborted || ex.finished) return;
    try {
      this.send(ex, reply);
    } catch (err) {
      // e.g. a JSON reply that cannot be serialised (BigInt, cycles): nothing was written yet,
      // so the client still gets a problem; an unhandled rejection here would end the process.
      this.opts.logger.error({ err, requestId: ex.requestId, path: ex.path }, 'could not send the reply');
      if (ex.aborted || ex.finished) return;
      try {
        this.send(ex, this.errorReply(problems.internal(), ex));
      } catch (err2) {
        this.opts.logger.error({ err: err2, requestId: ex.requestId }, 'could not send the error reply');
        ex.res.close();
        this.finish(ex);
      }
    }
  }

  private route(ex: Exchange, headers: Record<string, string>, rawQuery: string): Reply | Promise<Reply> {
    if (ex.headerBytes > this.opts.maxHeaderBytes) {
      ex.closeAfter = true;
      throw problem('headers_too_large', `The request line and headers take ${ex.headerBytes} bytes; the limit is ${this.opts.maxHeaderBytes}.`, { maxBytes: this.opts.maxHeaderBytes });
    }
    if (ex.method === 'OPTIONS') return this.options(ex, headers);
    const match = this.router.match(ex.method, ex.path);
    if (match.kind === 'not_found') throw problems.notFound(`No endpoint at ${ex.path}. See /openapi/v1.json.`);
    if (match.kind === 'method_not_allowed') {
      ex.errorFormat = match.routes.find((r) => r.errorReply)?.errorReply;
      throw problems.methodNotAllowed(match.allow);
    }
    const route = match.route;
    ex.errorFormat = route.errorReply;
    if (ex.body && !route.body) {
      throw problems.invalidParameter('body', `${ex.method} ${route.path} takes no request body.`);
    }
    const ctx = new Context(ex, match.params, headers);
    if (route.auth === 'bearer' || (route.body && route.body.kind !== 'raw')) return this.routeAsync(ex, route, ctx, headers, rawQuery);
    ctx.query = parseQuery(route.query, rawQuery);
    if (route.params) validateBody(route.params, ctx.params, 'path');
    return route.handler(ctx);
  }

  /** Routes that wait before their handler: bearer-token checks and buffered bodies. */
  private async routeAsync(ex: Exchange, route: RouteDef, ctx: Context, headers: Record<string, string>, rawQuery: string): Promise<Reply> {
    if (route.auth === 'bearer') {
      if (!this.opts.authenticate) throw problems.unavailable('Authentication is not configured on this node.');
      ctx.principal = await this.opts.authenticate(ctx);
    }
    ctx.query = parseQuery(route.query, rawQuery);
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
    if (allow.has('GET')) allow.add('HEAD');
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
    let refusal: ProblemError;
    if (err instanceof ProblemError) refusal = err;
    else if (err instanceof ClientAbortedError) refusal = problem('client_aborted', err.message);
    else if (err instanceof DependencyUnavailableError) {
      // An outage, not a bug: 503 with Retry-After, logged without a stack trace.
      this.opts.logger.warn({ requestId: ex.requestId, path: ex.path, dependency: err.dependency, reason: err.reason }, 'dependency unreachable');
      refusal = problems.dependencyUnavailable(err);
    } else {
      this.opts.logger.error({ err, requestId: ex.requestId, path: ex.path }, 'unhandled error');
      refusal = problems.internal();
    }
    if (ex.errorFormat) return ex.errorFormat(refusal);
    return {
      status: refusal.status,
      headers: refusal.headers,
      contentType: 'application/problem+json',
      json: toProblemBody(refusal, ex.path, ex.requestId),
    };
  }

  /** Status line, request id, no-store, CORS and the reply's own headers. Call inside cork(). */
  private writeHead(ex: Exchange, reply: Reply): void {
    const { res } = ex;
    res.writeStatus(statusLine(reply.status));
    res.writeHeader('X-Request-Id', ex.requestId);
    const extra = reply.headers;
    // no-store unless the reply says otherwise (the dashboard's content-hashed assets).
    if (extra?.['Cache-Control'] === undefined) res.writeHeader('Cache-Control', 'no-store');
    if (ex.origin) {
      res.writeHeader('Access-Control-Allow-Origin', ex.origin);
      res.writeHeader('Vary', 'Origin');
      res.writeHeader('Access-Control-Expose-Headers', CORS_EXPOSE_HEADERS);
    }
    if (extra) for (const k in extra) res.writeHeader(k, extra[k]);
  }

  private send(ex: Exchange, reply: Reply): void {
    const { res } = ex;
    ex.status = reply.status;
    // Answered: how slowly the rest of the body comes no longer matters.
    ex.body?.stopWatch();
    // A body nobody read (an early error): close the connection rather than drain it.
    const closeAfter = this.draining || ex.closeAfter || (ex.body !== null && !ex.body.ended);
    const head = () => this.writeHead(ex, reply);
    // HEAD: the GET's headers without its body. uWS 20.30's endWithoutBody(n) with n > 0
    // leaves the response unfinished (the connection then stalls), so the length is written
    // as a plain header and endWithoutBody() is called without one.
    const endHead = (length: number | undefined) => {
      if (length !== undefined) res.writeHeader('Content-Length', String(length));
      if (closeAfter) res.writeHeader('Connection', 'close');
      res.endWithoutBody();
    };
    if ('stream' in reply && ex.method === 'HEAD') {
      reply.stream.destroy();
      res.cork(() => {
        head();
        res.writeHeader('Content-Type', reply.contentType);
        endHead(reply.length);
      });
      this.finish(ex);
      return;
    }
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
    if (ex.method === 'HEAD') {
      res.cork(() => {
        this.writeHead(ex, reply);
        if (contentType) res.writeHeader('Content-Type', contentType);
        endHead(payload === undefined ? undefined : Buffer.byteLength(payload));
      });
    } else {
      // The common case, without a closure per response: cork() runs the bound writer at once.
      this.pendingSend = { ex, reply, payload, contentType, closeAfter };
      res.cork(this.writePending);
      this.pendingSend = null;
      // Bytes out only feed the access log.
      if (payload !== undefined && this.logEnabled()) ex.bytesOut = Buffer.byteLength(payload);
    }
    this.finish(ex);
  }

  private pendingSend: { ex: Exchange; reply: Reply; payload: string | undefined; contentType: string | undefined; closeAfter: boolean } | null = null;
  private readonly writePending = (): void => {
    const { ex, reply, payload, contentType, closeAfter } = this.pendingSend!;
    this.writeHead(ex, reply);
    if (contentType) ex.res.writeHeader('Content-Type', contentType);
    if (payload === undefined) ex.res.endWithoutBody(0, closeAfter);
    else ex.res.end(payload, closeAfter);
  };

  /**
   * Streams a Readable with backpressure; with a known length, as a Content-Length body.
   * One onWritable handler per response, reading the pending chunk from shared state: uWS
   * keeps calling the first handler registered, so a handler per chunk would resend the
   * wrong bytes. The request is finished when the last byte is handed to uWS, not on the
   * stream's 'end' (which can come while the last chunk still waits for the socket).
   */
  private pipe(ex: Exchange, stream: Readable, length: number | undefined): void {
    const { res } = ex;
    /** res was ended or closed: it must not be touched again. */
    let responded = false;
    let pending: { chunk: Buffer; start: number } | null = null;
    let streamEnded = false;
    let writableRegistered = false;

    const complete = () => {
      responded = true;
      if (!streamEnded) stream.destroy();
      this.finish(ex);
    };
    const abandon = (why: string, err?: unknown) => {
      this.opts.logger.error({ err, requestId: ex.requestId, path: ex.path }, why);
      if (!responded && !ex.aborted) res.close();
      responded = true;
      stream.destroy();
      this.finish(ex);
    };
    const shortBody = () => abandon(`response stream ended after ${ex.bytesOut} of ${length} declared bytes`);
    const onWritable = (offset: number): boolean => {
      if (ex.aborted || responded) return true;
      if (length === undefined) {
        stream.resume();
        return true;
      }
      if (!pending) return true;
      const [ok, done] = res.tryEnd(pending.chunk.subarray(offset - pending.start), length);
      if (done) {
        pending = null;
        complete();
        return true;
      }
      if (ok) {
        pending = null;
        if (streamEnded) shortBody();
        else stream.resume();
      }
      return ok;
    };
    const waitWritable = () => {
      stream.pause();
      if (!writableRegistered) {
        writableRegistered = true;
        res.onWritable(onWritable);
      }
    };

    ex.onAbort = () => stream.destroy();
    stream.on('error', (err) => abandon('response stream failed', err));
    stream.on('end', () => {
      streamEnded = true;
      if (ex.aborted || responded) return;
      if (length === undefined) {
        responded = true;
        res.cork(() => res.end());
        this.finish(ex);
        return;
      }
      if (pending) return; // onWritable finishes it
      if (length === 0) {
        responded = true;
        res.cork(() => res.end());
        this.finish(ex);
        return;
      }
      shortBody();
    });
    stream.on('data', (data: Buffer | string) => {
      if (ex.aborted || responded) return;
      const chunk = typeof data === 'string' ? Buffer.from(data) : data;
      ex.bytesOut += chunk.length;
      if (length === undefined) {
        let ok = true;
        res.cork(() => {
          ok = res.write(chunk);
        });
        if (!ok) waitWritable();
        return;
      }
      const start = res.getWriteOffset();
      let result: [boolean, boolean] = [false, false];
      res.cork(() => {
        result = res.tryEnd(chunk, length);
      });
      const [ok, done] = result;
      if (done) complete();
      else if (!ok) {
        pending = { chunk, start };
        waitWritable();
      }
    });
  }

  private finish(ex: Exchange): void {
    if (ex.finished) return;
    ex.finished = true;
    ex.body?.stopWatch();
    this.activeRequests--;
    if (this.opts.logger.isLevelEnabled('info')) this.opts.logger.info(
      {
        requestId: ex.requestId,
        method: ex.method,
        path: ex.path,
        remote: ex.remoteAddress,
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
      throw problems.unsupportedMediaType('application/json');
    }
    if (raw.length === 0) throw problems.invalidParameter('body', 'A JSON request body is required.');
    try {
      return JSON.parse(raw.toString('utf8'));
    } catch (e) {
      throw problems.invalidParameter('body', `The request body is not valid JSON: ${(e as Error).message}`);
    }
  }
  if (ct !== 'application/x-www-form-urlencoded') {
    throw problems.unsupportedMediaType('application/x-www-form-urlencoded');
  }
  const form: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(raw.toString('utf8'))) form[k] = v;
  return form;
}
