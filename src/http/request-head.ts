// Everything the front needs from uWS's HttpRequest, read at once: the request is invalid
// after the uWS callback returns. Counts the header block against the configured limit and
// decides how the body is framed (framing.ts) from every Content-Length and
// Transfer-Encoding line, not just the last one the header map keeps.
import type { HttpRequest } from 'uWebSockets.js';
import { randomUUID } from 'node:crypto';
import { requestFraming, type Framing } from './framing.js';

export interface RequestHead {
  /** Upper case. */
  method: string;
  path: string;
  rawQuery: string;
  /** Lower-case names; of a repeated header, the last line. */
  headers: Record<string, string>;
  /** Size of the request line and header block as received. */
  headerBytes: number;
  framing: Framing;
  /** The client's X-Request-Id when it is well-formed, else a new UUID. */
  requestId: string;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** uWS hands the method as sent; the common spellings map to upper case without allocating. */
const METHOD_UPPER: Record<string, string> = Object.fromEntries(
  ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'].flatMap((m) => [
    [m, m],
    [m.toLowerCase(), m],
  ]),
);

export function readRequestHead(req: HttpRequest): RequestHead {
  const sentMethod = req.getCaseSensitiveMethod();
  const method = METHOD_UPPER[sentMethod] ?? sentMethod.toUpperCase();
  const path = req.getUrl();
  const rawQuery = req.getQuery() ?? '';
  const headers: Record<string, string> = {};
  // uWS 20.30 ignores UWS_HTTP_MAX_HEADERS_SIZE: it only refuses header blocks over 4 KiB
  // that arrive split across reads, and accepts up to its 512 KiB read buffer in one read.
  // The configured limit is therefore enforced by the server ("Name: value\r\n" per header).
  let headerBytes = method.length + path.length + rawQuery.length + 12;
  let contentLengths: string[] | undefined;
  let transferEncodings: string[] | undefined;
  req.forEach((k, v) => {
    headers[k] = v;
    headerBytes += k.length + v.length + 4;
    if (k === 'content-length') (contentLengths ??= []).push(v);
    else if (k === 'transfer-encoding') (transferEncodings ??= []).push(v);
  });
  const incomingId = headers['x-request-id'];
  return {
    method,
    path,
    rawQuery,
    headers,
    headerBytes,
    framing: requestFraming(contentLengths, transferEncodings),
    requestId: incomingId !== undefined && REQUEST_ID.test(incomingId) ? incomingId : randomUUID(),
  };
}
