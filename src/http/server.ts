// HTTP front on uWebSockets.js: takes each request (request-head.ts), routes it, runs the
// route's auth hook and validation, hands the handler its context, answers (reply-writer.ts,
// error-reply.ts), writes the access log, and drains gracefully. Bodies stream in through
// body.ts (buffered ones via parsed-body.ts), watched for slowness by slow-body.ts.
import type { HttpRequest, HttpResponse, TemplatedApp, us_listen_socket } from 'uWebSockets.js';
import type { Logger } from 'pino';
import { loadUws, type UwsModule } from './uws.js';
import { BodyStream, ClientAbortedError } from './body.js';
import { Context, Exchange } from './exchange.js';
import { errorReply } from './error-reply.js';
import { optionsReply } from './options-reply.js';
import { readParsedBody } from './parsed-body.js';
import { ReplyWriter } from './reply-writer.js';
import { readRequestHead } from './request-head.js';
import { SLOW_BODY_TIMEOUT_MS, SlowBodyWatch, UWS_BODY_BYTES_PER_TIMEOUT } from './slow-body.js';
import { problem, problems } from './problem.js';
import { Router } from './router.js';
import type { ForwardedRequest, RegionRouter } from './regions.js';
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
  /** Multi-region deployments (DOCPARSE_REGION_URLS): requests of other regions go there (regions.ts). */
  regions?: RegionRouter | null;
  /**
   * Told of every finished exchange: its route (undefined when none matched), status (499 when
   * the client left first) and seconds since it arrived. Called on the request path: it must
   * count in place (src/metrics/request-tallies.ts).
   */
  observeRequest?: (route: RouteDef | undefined, status: number, seconds: number) => void;
}

/** uWS's ListenOptions.LIBUS_LISTEN_EXCLUSIVE_PORT; its typings have the option only for listen(port, …). */
const LISTEN_EXCLUSIVE_PORT = 1;
type ExclusiveListen = (host: string, port: number, options: number, cb: (sock: us_listen_socket | false) => void) => TemplatedApp;

const isPromise = <T>(v: T | Promise<T>): v is Promise<T> => typeof (v as Promise<T>)?.then === 'function';

export class HttpServer {
  readonly router = new Router();
  private readonly uws: UwsModule;
  private readonly app: TemplatedApp;
  private readonly writer: ReplyWriter;
  private listenSocket: us_listen_socket | null = null;
  private draining = false;
  private idleWaiters: (() => void)[] = [];
  /** Requests received and not yet fully answered. */
  activeRequests = 0;
  /** Handlers whose promise has not settled yet, their exchange ended or not. */
  private handlersRunning = 0;
  totalRequests = 0;
  private readonly slowBodyMs: number;
  private readonly slowBodyBytes: number;
  /** Null in a single-region deployment: then the region check is this one comparison. */
  private readonly regions: RegionRouter | null;

  constructor(private readonly opts: HttpServerOptions) {
    this.regions = opts.regions ?? null;
    this.slowBodyMs = opts.slowBodyTimeoutMs ?? SLOW_BODY_TIMEOUT_MS;
    this.slowBodyBytes = opts.slowBodyBytes ?? UWS_BODY_BYTES_PER_TIMEOUT;
    this.writer = new ReplyWriter(opts.logger, this.finish);
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
      // Exclusive: uWS binds with SO_REUSEPORT otherwise, and a second node started on a taken
      // port would start too and share its connections with the first (two signing keys, each
      // refusing the other's tokens) instead of failing.
      (this.app as unknown as { listen: ExclusiveListen }).listen(host, port, LISTEN_EXCLUSIVE_PORT, (sock) => {
        if (!sock) return reject(new Error(`could not listen on ${host}:${port} (in use or not permitted)`));
        this.listenSocket = sock;
        resolve(this.uws.us_socket_local_port(sock));
      });
    });
  }

  /**
   * The node is going away: `accepting` turns false at once (node-state and readiness say so,
   * so balancers stop sending here) while requests are still answered, each closing its
   * connection after the response.
   */
  beginDrain(): void {
    this.draining = true;
  }

  /** Stops accepting connections, lets in-flight requests finish (up to graceMs), then closes all. */
  async drain(graceMs: number): Promise<void> {
    this.beginDrain();
    if (this.listenSocket) this.uws.us_listen_socket_close(this.listenSocket);
    this.listenSocket = null;
    if (!this.idle()) {
      await Promise.race([new Promise<void>((r) => this.idleWaiters.push(r)), new Promise<void>((r) => setTimeout(r, graceMs).unref())]);
    }
    // close() exists on the native app (closes every socket) but is missing from its typings.
    (this.app as unknown as { close(): void }).close();
  }

  private onRequest(res: HttpResponse, req: HttpRequest): void {
    const head = readRequestHead(req);
    const { framing, headers } = head;
    const ex = new Exchange(
      res,
      head.method,
      head.path,
      head.requestId,
      headers.origin,
      performance.now(),
      head.headerBytes,
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
      // The body copies the bytes out of uWS's memory (valid only during the call), once.
      res.onData((ab, isLast) => body.push(new Uint8Array(ab), isLast));
    }
    this.dispatch(ex, headers, head.rawQuery);
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

  private errorReply(err: unknown, ex: Exchange): Reply {
    return errorReply(err, ex, this.opts.logger);
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
      // Counted until it settles, even when its client has gone: drain waits for it.
      this.handlersRunning++;
      reply
        .then(
          (r) => this.respond(ex, r),
          (err) => this.respond(ex, this.errorReply(err, ex)),
        )
        .finally(() => {
          this.handlersRunning--;
          this.wakeIfIdle();
        });
    } else {
      this.respond(ex, reply);
    }
  }

  private respond(ex: Exchange, reply: Reply): void {
    // Finished already: the front answered on its own (a 408 for a slow body).
    if (ex.aborted || ex.finished) return;
    try {
      this.writer.send(ex, reply, this.draining);
    } catch (err) {
      // e.g. a JSON reply that cannot be serialised (BigInt, cycles): nothing was written yet,
      // so the client still gets a problem; an unhandled rejection here would end the process.
      this.opts.logger.error({ err, requestId: ex.requestId, path: ex.path }, 'could not send the reply');
      if (ex.aborted || ex.finished) return;
      try {
        this.writer.send(ex, this.errorReply(problems.internal(), ex), this.draining);
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
      throw problem('headers_too_large', `The request line and headers take ${ex.headerBytes} bytes; the limit is ${this.opts.maxHeaderBytes}.`, {
        maxBytes: this.opts.maxHeaderBytes,
      });
    }
    // The only way a NUL reaches a path (uWS hands it undecoded); query and body values are
    // checked by validateBody, path parameters too when their route declares them.
    if (ex.path.includes('%00')) throw problems.invalidParameter('path', 'The path contains %00 (a NUL character), which no path here may hold.');
    if (ex.method === 'OPTIONS') return optionsReply(this.router, ex.path, headers);
    const match = this.router.match(ex.method, ex.path);
    if (match.kind === 'not_found') throw problems.notFound(`No endpoint at ${ex.path}. See /openapi/v1.json.`);
    if (match.kind === 'method_not_allowed') {
      ex.errorFormat = match.routes.find((r) => r.errorReply)?.errorReply;
      throw problems.methodNotAllowed(match.allow);
    }
    const route = match.route;
    ex.route = route;
    ex.errorFormat = route.errorReply;
    if (ex.body && !route.body) {
      throw problems.invalidParameter('body', `${ex.method} ${route.path} takes no request body.`);
    }
    const ctx = new Context(ex, match.params, headers);
    // A signed upload URL of another region: passed on before anything here reads or stores it.
    if (this.regions !== null && route.regionOf !== undefined) {
      const code = route.regionOf(ctx);
      const to = code === null ? null : this.regions.elsewhere(code);
      if (to !== null) return this.regions.pass(to, this.forwarded(ex, headers, rawQuery));
    }
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
      // The token's app lives in another region: its request is passed on, unread.
      if (this.regions !== null) {
        const to = this.regions.elsewhere(ctx.principal.licenseRegionCode);
        if (to !== null) return this.regions.pass(to, this.forwarded(ex, headers, rawQuery));
      }
    }
    ctx.query = parseQuery(route.query, rawQuery);
    if (route.params) validateBody(route.params, ctx.params, 'path');
    if (route.body && route.body.kind !== 'raw') ctx.body = await readParsedBody(route.body, ex.body, headers['content-type']);
    return route.handler(ctx);
  }

  private forwarded(ex: Exchange, headers: Record<string, string>, rawQuery: string): ForwardedRequest {
    return { method: ex.method, path: ex.path, rawQuery, headers, body: ex.body, signal: ex.signal, requestId: ex.requestId };
  }

  /** Access log line and drain bookkeeping; called once per exchange, however it ended. */
  private readonly finish = (ex: Exchange): void => {
    if (ex.finished) return;
    ex.finished = true;
    ex.body?.stopWatch();
    this.activeRequests--;
    const status = ex.aborted && !ex.status ? 499 : ex.status;
    const ms = performance.now() - ex.started;
    this.opts.observeRequest?.(ex.route, status, ms / 1000);
    if (this.opts.logger.isLevelEnabled('info'))
      this.opts.logger.info(
        {
          requestId: ex.requestId,
          method: ex.method,
          path: ex.path,
          remote: ex.remoteAddress,
          status,
          ms: Math.round(ms * 100) / 100,
          bytesIn: ex.body?.received ?? 0,
          bytesOut: ex.bytesOut,
          aborted: ex.aborted || undefined,
        },
        'request',
      );
    this.wakeIfIdle();
  };

  /** No exchange open and no handler running (one may outlive its aborted exchange). */
  private idle(): boolean {
    return this.activeRequests === 0 && this.handlersRunning === 0;
  }

  private wakeIfIdle(): void {
    if (this.idle() && this.idleWaiters.length) for (const w of this.idleWaiters.splice(0)) w();
  }
}
