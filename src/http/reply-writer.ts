// Writes a handler's Reply to uWS: status line, request id, no-store, CORS and the reply's
// own headers, then a JSON or text payload, no body, a HEAD answer, or a stream
// (stream-reply.ts). Tuned for the common JSON reply: one cork, no closure per response.
import type { Logger } from 'pino';
import type { Exchange } from './exchange.js';
import type { Reply } from './route.js';
import { streamReply } from './stream-reply.js';

const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  204: 'No Content',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  421: 'Misdirected Request',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};
/** "200 OK" etc., built once: the status line is written on every response. */
const STATUS_LINE: Record<number, string> = Object.fromEntries(Object.entries(STATUS_TEXT).map(([code, text]) => [code, `${code} ${text}`]));
const statusLine = (status: number) => STATUS_LINE[status] ?? `${status} `;
// Upload-Offset …: the answers of resumable (tus) uploads, read by browser tus clients.
const CORS_EXPOSE_HEADERS = 'X-Request-Id, Retry-After, WWW-Authenticate, Location, Upload-Offset, Upload-Length, Tus-Resumable, Tus-Version';

interface PendingSend {
  ex: Exchange;
  reply: Reply;
  payload: string | undefined;
  contentType: string | undefined;
  closeAfter: boolean;
}

export class ReplyWriter {
  constructor(
    private readonly logger: Logger,
    /** Ends the exchange's bookkeeping once its last byte is handed to uWS. */
    private readonly finish: (ex: Exchange) => void,
  ) {}

  /**
   * Sends the reply; throws before writing anything when it cannot be serialised. With
   * `closing` (the server drains) the connection is closed after it.
   */
  send(ex: Exchange, reply: Reply, closing: boolean): void {
    const { res } = ex;
    ex.status = reply.status;
    // Answered: how slowly the rest of the body comes no longer matters.
    ex.body?.stopWatch();
    // A body nobody read (an early error): close the connection rather than drain it.
    const closeAfter = closing || ex.closeAfter || (ex.body !== null && !ex.body.ended);
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
      streamReply(ex, reply.stream, reply.length, this.logger, this.finish);
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
      if (payload !== undefined && this.logger.isLevelEnabled('info')) ex.bytesOut = Buffer.byteLength(payload);
    }
    this.finish(ex);
  }

  private pendingSend: PendingSend | null = null;
  private readonly writePending = (): void => {
    const { ex, reply, payload, contentType, closeAfter } = this.pendingSend!;
    this.writeHead(ex, reply);
    if (contentType) ex.res.writeHeader('Content-Type', contentType);
    if (payload === undefined) ex.res.endWithoutBody(0, closeAfter);
    else ex.res.end(payload, closeAfter);
  };

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
}
