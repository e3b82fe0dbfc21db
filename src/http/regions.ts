// Requests of another region (multi-region deployments, DOCPARSE_REGION_URLS): a document
// request whose token (or signed upload URL) names a license region another region serves is
// never handled here, so nothing of it is stored in this region. It is forwarded to that
// region's API when forwarding is on — the request body streamed to it as it arrives, its
// answer streamed back, the caller's Authorization passed on, abandoned when no byte moves
// for the timeout — or refused with 421 wrong_region naming that region's base URL. The
// connections go through the outbound address policy; the region URLs are the operator's own
// configuration, so an IP literal among them is allowed as such (a host name is judged by the
// addresses it resolves to, as any outbound request).
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { Readable, pipeline } from 'node:stream';
import type { Logger } from 'pino';
import { OutboundPolicy, OutboundRefusedError } from '../outbound/outbound-policy.js';
import { ClientAbortedError, type BodyStream } from './body.js';
import { problem, ProblemError } from './problem.js';
import type { RegionTable } from './region-table.js';
import type { Reply } from './route.js';

/** Set on a forwarded request: the region that forwarded it, so it is never forwarded again (a loop). */
export const FORWARDED_FROM_HEADER = 'x-docparse-forwarded-from';

/** Seconds a client is told to wait after region_unavailable. */
const RETRY_AFTER_SECONDS = 5;

/** Hop-by-hop and framing headers (RFC 9110 §7.6.1), and the ones the front writes itself. */
const NOT_FORWARDED = new Set(['host', 'connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'expect']);
const NOT_RETURNED = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'trailer',
  'upgrade',
  'content-length',
  'content-type',
  'date',
  'server',
  'uwebsockets',
  'x-request-id',
  'vary',
  'access-control-allow-origin',
  'access-control-expose-headers',
  'access-control-allow-credentials',
]);

/** Where the requests of one license region go when this node does not serve it. */
export interface Destination {
  region: string | null;
  /** That region's API base URL; null when no region of the table covers the code. */
  baseUrl: string | null;
  /** The license region code the request carried. */
  code: string;
}

/** What the front hands over of a request it does not serve. */
export interface ForwardedRequest {
  method: string;
  path: string;
  rawQuery: string;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: BodyStream | null;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
  requestId: string;
}

export interface RegionRoutingOptions {
  table: RegionTable;
  /** This node's region (DOCPARSE_REGION), covered by one of the table's. */
  local: string;
  forwarding: boolean;
  timeoutMs: number;
  /** Ranges the operator allows besides public unicast (DOCPARSE_OUTBOUND_ALLOW). */
  outboundAllow: readonly string[];
  logger: Logger;
}

/** How long a kept-alive connection to another region may sit unused. */
const IDLE_CONNECTION_MS = 4000;

/** Verdicts kept per license code; there are few codes, this only bounds a flood of made-up ones. */
const MAX_VERDICTS = 1024;

export class RegionRouter {
  /** The table's region this node belongs to. */
  readonly home: string;
  private readonly verdicts = new Map<string, Destination | null>();
  private readonly agents: { http: http.Agent; https: https.Agent };

  constructor(private readonly o: RegionRoutingOptions) {
    const home = o.table.regionOf(o.local);
    if (!home) throw new Error(`region ${o.local} is in no region of the table`);
    this.home = home;
    const literals = [...o.table.urls.values()].map((u) => new URL(u).hostname.replace(/^\[|\]$/g, '')).filter((h) => net.isIP(h) !== 0);
    const policy = new OutboundPolicy({ allow: [...o.outboundAllow, ...literals], log: o.logger });
    // Idle connections are dropped before the other region's front drops them (uWS: 10 s), so a
    // request is not sent down a connection that is being closed.
    this.agents = policy.agents({ keepAlive: true, timeout: IDLE_CONNECTION_MS });
  }

  /** Where requests of license region `code` go, or null when this node serves them. */
  elsewhere(code: string): Destination | null {
    let v = this.verdicts.get(code);
    if (v === undefined) {
      const region = this.o.table.regionOf(code);
      v = region === this.home ? null : { region, baseUrl: region === null ? null : this.o.table.urls.get(region)!, code };
      if (this.verdicts.size >= MAX_VERDICTS) this.verdicts.clear();
      this.verdicts.set(code, v);
    }
    return v;
  }

  /** Forwards the request to its region, or refuses it with 421 wrong_region. */
  pass(to: Destination, req: ForwardedRequest): Promise<Reply> {
    if (to.baseUrl === null || to.region === null) {
      throw problem('wrong_region', `No region of this deployment serves license region ${JSON.stringify(to.code)}; nothing was stored.`, {
        region: null,
        baseUrl: null,
      });
    }
    const from = req.headers[FORWARDED_FROM_HEADER];
    if (!this.o.forwarding || from !== undefined) {
      const why = from !== undefined ? ` (it was forwarded here by region ${from}, and is not forwarded twice)` : '';
      throw problem('wrong_region', `License region ${to.code} is served by region ${to.region} at ${to.baseUrl}: send the request there${why}.`, {
        region: to.region,
        baseUrl: to.baseUrl,
      });
    }
    return this.forward(to.region, to.baseUrl, req);
  }

  private forward(region: string, baseUrl: string, req: ForwardedRequest): Promise<Reply> {
    const target = new URL(baseUrl);
    target.pathname = target.pathname.replace(/\/+$/, '') + req.path;
    target.search = req.rawQuery ? `?${req.rawQuery}` : '';
    const headers: Record<string, string> = {};
    for (const k in req.headers) if (!NOT_FORWARDED.has(k)) headers[k] = req.headers[k];
    headers['x-request-id'] = req.requestId;
    headers[FORWARDED_FROM_HEADER] = this.home;
    const https_ = target.protocol === 'https:';
    const unavailable = (reason: string) =>
      problem(
        'region_unavailable',
        `Region ${region} (${baseUrl}) could not be reached: ${reason}. Nothing was stored here.`,
        { region, reason },
        { 'Retry-After': String(RETRY_AFTER_SECONDS) },
      );

    return new Promise<Reply>((resolve, reject) => {
      const client = (https_ ? https : http).request(target, {
        method: req.method,
        headers,
        agent: https_ ? this.agents.https : this.agents.http,
        timeout: this.o.timeoutMs,
      });
      let answered = false;
      let source: Readable | null = null;
      const onAbort = () => client.destroy(new ClientAbortedError());
      req.signal.addEventListener('abort', onAbort, { once: true });
      client.on('timeout', () => client.destroy(Object.assign(new Error('idle timeout'), { code: 'ETIMEDOUT' })));
      client.on('close', () => {
        req.signal.removeEventListener('abort', onAbort);
        // The region answered without reading the whole body: stop feeding it.
        source?.destroy();
      });
      client.on('error', (err: NodeJS.ErrnoException) => {
        if (answered) return; // the response stream carries it (the client's connection is cut)
        if (err instanceof ProblemError || err instanceof ClientAbortedError) return reject(err);
        this.o.logger.warn({ err, region, requestId: req.requestId }, 'forwarding to another region failed');
        if (err instanceof OutboundRefusedError) return reject(unavailable(`its address is refused by the outbound policy (${err.addressClass})`));
        if (err.code === 'ETIMEDOUT') return reject(unavailable(`no byte moved for ${this.o.timeoutMs / 1000} s`));
        if (err.code === 'ECONNREFUSED') return reject(unavailable('connection refused'));
        if (err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN') return reject(unavailable('its host name does not resolve'));
        reject(unavailable('the connection failed'));
      });
      client.on('response', (upstream) => {
        answered = true;
        resolve(replyOf(upstream, req.method));
      });
      if (req.body) {
        source = Readable.from(req.body, { objectMode: false });
        pipeline(source, client, () => {
          // Errors reach the 'error' handler above through the destroyed request.
        });
      } else client.end();
    });
  }
}

/** The other region's answer as this node's reply: status and headers kept, the body streamed. */
function replyOf(upstream: http.IncomingMessage, method: string): Reply {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(upstream.headers)) {
    if (v === undefined || NOT_RETURNED.has(k) || k.startsWith('access-control-')) continue;
    headers[canonicalName(k)] = Array.isArray(v) ? v.join(', ') : v;
  }
  const status = upstream.statusCode ?? 502;
  const declared = upstream.headers['content-length'];
  const length = declared === undefined ? undefined : Number(declared);
  const contentType = upstream.headers['content-type'];
  if (status === 204 || status === 304 || contentType === undefined || (length === 0 && method !== 'HEAD')) {
    upstream.resume();
    return { status, headers, empty: true };
  }
  return { status, headers, stream: upstream, contentType, length };
}

/** `upload-offset` → `Upload-Offset`, so the front's own header checks (Cache-Control) see it. */
function canonicalName(name: string): string {
  return name.replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => dash + c.toUpperCase());
}
