// The only module that imports uWebSockets.js: loads the native build (refusing the slow
// pure-JS fallback), so another build can drop in here.
//
// What uWS 20.30 does on its own with request framing, before or around our handler
// (measured on raw sockets; the front's rules are in framing.ts and slow-body.ts):
// - Content-Length together with a non-empty Transfer-Encoding: closes the connection
//   without calling the handler, so no 400 can be sent.
// - A Content-Length that is not 1 to 9 digits ("5, 5", "5x", "+5", 10^9 or more): calls
//   the handler, then closes the connection and drops whatever it wrote. Bodies of 10^9
//   bytes or more can only be sent chunked.
// - Several Content-Length lines: frames by the first. Any Transfer-Encoding value is
//   taken as chunked. An empty Transfer-Encoding or Content-Length counts as absent / 0.
// - Chunk extensions ("5;name=value"), which RFC 9112 says to ignore: the connection is
//   closed mid-body.
// - Whitespace between a header name and its colon, or an HTTP/1.0 request line: the
//   request never reaches the app; the connection is closed when its idle timer ends.
// - A close asked for (end(body, true)) inside the request handler is forgotten when the
//   same packet carries another request, which is then served on the same connection.
// - A request body must bring 160 KiB per 10 s timer (restarted per 160 KiB, stopped while
//   paused), else the connection is closed 8 to 12 s later without a response.
import { createRequire } from 'node:module';

export type UwsModule = typeof import('uWebSockets.js');

let loaded: UwsModule | null = null;

export function loadUws(maxHeaderBytes: number): UwsModule {
  if (loaded) return loaded;
  // Newer uWS builds read this when the native module loads. 20.30 ignores it (it closes
  // header blocks over 4 KiB only when they arrive split across reads), so HttpServer
  // enforces maxHeaderBytes itself with a 431 problem.
  process.env.UWS_HTTP_MAX_HEADERS_SIZE ??= String(maxHeaderBytes);
  const require = createRequire(import.meta.url);
  const uws = require('uWebSockets.js') as UwsModule;
  if (!/native code/.test(String(uws.App))) {
    throw new Error('uWebSockets.js native binary did not load (pure-JS fallback in use); refusing to start. Check the platform and Node ABI.');
  }
  loaded = uws;
  return uws;
}
