// The only module that imports uWebSockets.js: loads the native build (refusing the slow
// pure-JS fallback), so another build can drop in here.
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
