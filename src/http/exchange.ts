// One request/response pair as the front tracks it (Exchange), and the handler's view of it
// (RequestContext). Both read what they can lazily: most requests never ask for the peer
// address or an abort signal.
import type { HttpResponse } from 'uWebSockets.js';
import { BodyStream, ClientAbortedError } from './body.js';
import type { Principal, RequestContext, RouteDef } from './route.js';

/** One request/response pair, from the uWS callback to the last byte. */
export class Exchange {
  /** The matched path's own error format (RouteDef.errorReply), once routed. */
  errorFormat: RouteDef['errorReply'] = undefined;
  /** The matched route, once routed (metrics count by its pattern, never the raw path). */
  route: RouteDef | undefined = undefined;
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
export class Context implements RequestContext {
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
