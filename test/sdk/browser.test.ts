// The SDK in a browser: headless Chromium loads the compiled SDK (dist/sdk, as the package
// ships it, unbundled ES modules) from a page on another origin, and uploads, waits and reads
// the result from a real node over CORS, the app allowing the page's domain. The page's own
// server holds the client secret and hands the page tokens (getToken), as a backend would.
import http from 'node:http';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchBrowser } from '../helpers/browser.js';
import { freePort, REPO_ROOT } from '../helpers/http.js';
import { createApp, createTestEnv, destroyTestEnv, startTestNode, type TestEnv, type TestNode } from '../helpers/node.js';

let env: TestEnv;
let n: TestNode;
let page: http.Server;
let pageOrigin: string;
let browser: Browser;
let creds: { clientId: string; clientSecret: string; appId: string };
let tokenRequests = 0;

/** Serves an empty page and dist/sdk/*.js: the origin the SDK runs from. */
function servePage(port: number): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/token') {
        // The backend's token route: the secret stays here.
        tokenRequests++;
        const r = await fetch(`${n.url}/connect/token`, {
          method: 'POST',
          body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'Service.API', client_id: creds.clientId, client_secret: creds.clientSecret }),
        });
        const { access_token, expires_in } = (await r.json()) as { access_token: string; expires_in: number };
        res.writeHead(r.status, { 'content-type': 'application/json' }).end(JSON.stringify({ access_token, expires_in }));
        return;
      }
      if (url.pathname === '/') {
        // The page imports the SDK as a browser does, by its module URL.
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end('<!doctype html><title>sdk</title><script type="module">import * as sdk from "/sdk/index.js"; globalThis.sdk = sdk;</script>');
        return;
      }
      const m = /^\/sdk\/([a-z-]+\.js)$/.exec(url.pathname);
      const body = m ? await fs.readFile(path.join(REPO_ROOT, 'dist/sdk', m[1])).catch(() => null) : null;
      if (!body) res.writeHead(404).end();
      else res.writeHead(200, { 'content-type': 'text/javascript' }).end(body);
    })();
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

beforeAll(async () => {
  env = await createTestEnv('embedded');
  const port = await freePort();
  n = await startTestNode(env, { PORT: String(port), DOCPARSE_BASE_URL: `http://127.0.0.1:${port}`, DOCPARSE_DIRECT_UPLOAD_MAX_BYTES: '100' });
  const pagePort = await freePort();
  page = await servePage(pagePort);
  pageOrigin = `http://127.0.0.1:${pagePort}`;
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await new Promise((r) => page?.close(r));
  await n?.close();
  if (env) await destroyTestEnv(env);
});

it('uploads direct and presigned, waits and reads typed results from a browser page, tokens from its backend', async () => {
  creds = await createApp(n.node, {});
  await n.node.controlPlane.setAppDomains(creds.appId, [new URL(pageOrigin).host]);
  const tab = await browser.newPage();
  const errors: string[] = [];
  tab.on('pageerror', (e) => errors.push(e.message));
  await tab.goto(`${pageOrigin}/`);
  await tab.waitForFunction(() => 'sdk' in globalThis);
  const out = await tab.evaluate(
    async ({ baseUrl }) => {
      const { DocparseClient, DocparseError } = (globalThis as unknown as { sdk: typeof import('../../src/sdk/index.js') }).sdk;
      const c = new DocparseClient({ baseUrl, getToken: async () => (await fetch('/token')).json() });
      const small = new File(['city,lat,lon\nParis,48.85,2.35\n'], 'small.csv');
      const big = new File([`city,lat,lon\n${'Lyon,45.76,4.83\n'.repeat(10)}`], 'big.csv');
      const progress: number[] = [];
      const a = await c.upload(small, { csvRoute: 'Tabular', onProgress: (p) => progress.push(p.sentBytes) });
      const b = await c.upload(big, { csvRoute: 'Tabular' }); // over the node's 100 bytes: presigned
      const ends = await c.waitFor([a.documentId, b.documentId], { timeoutMs: 30_000 });
      // One job is followed on its event stream, read with fetch (a cross-origin stream with the
      // token): no further status request is made.
      const polls = () => performance.getEntriesByType('resource').filter((e) => e.name.includes('/status')).length;
      const before = polls();
      const one = await c.waitFor(a.documentId, { timeoutMs: 30_000 });
      const streamed = polls() === before;
      const ra = await c.result(a.documentId);
      const rb = await c.result(b.documentId);
      let code = '';
      try {
        await c.result('not-there');
      } catch (e) {
        code = e instanceof DocparseError ? `${e.status} ${e.code}` : String(e);
      }
      return {
        ends: ends.map((e) => e.status),
        one: [one.status, streamed],
        files: [ra.fileName, rb.fileName],
        formats: [ra.document_format, rb.document_format],
        lastProgress: progress.at(-1),
        code,
      };
    },
    { baseUrl: n.url },
  );
  expect(errors).toEqual([]);
  expect(out).toEqual({
    ends: ['completed', 'completed'],
    one: ['completed', true],
    files: ['small.csv', 'big.csv'],
    formats: ['csv', 'csv'],
    lastProgress: 30,
    code: '404 document_not_found',
  });
  expect(tokenRequests).toBe(1);
});
