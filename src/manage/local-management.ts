// The loopback management listener: the management API (/manage/v1, every route, exactly as
// on the public port) for whoever holds the data dir, authenticated by the local operator
// credential alone, plus what only the person at this machine may ask for (a one-time
// dashboard sign-in link). A node runs it while it holds its data dir (its URL is in the lock
// file, its credential in the data dir); `docparse admin` runs one for a single command when
// no node does. Reachable from this host only; the public router and its OpenAPI never see it.
import { Type } from '@sinclair/typebox';
import type { Logger } from 'pino';
import { HttpServer } from '../http/server.js';
import type { RouteDef } from '../http/route.js';
import { manageApiRoutes } from './api/index.js';
import type { ManageDeps } from './api/kit.js';
import { manageRoute, ok } from './api/kit.js';
import { problem } from '../http/problem.js';
import { localOperatorAuthenticator } from './principal.js';

const LOOPBACK = '127.0.0.1';
export const SIGN_IN_LINK_PATH = '/local/sign-in-link';

export interface LocalManagement {
  /** Base URL, e.g. http://127.0.0.1:41234 */
  url: string;
  /** Stops accepting, lets a running request finish (up to graceMs). */
  close(graceMs: number): Promise<void>;
}

export interface LocalManagementOptions {
  /** The management routes' dependencies; `authenticate` is replaced by the local credential's. */
  deps: ManageDeps;
  credential: { matches(secret: string): boolean };
  /** A new one-time dashboard sign-in link (a full URL); null where this process has no dashboard. */
  createSignInLink: (() => Promise<string>) | null;
  logger: Logger;
  maxHeaderBytes: number;
}

/** What only the loopback listener offers. */
function localOnlyRoutes(deps: ManageDeps, createSignInLink: LocalManagementOptions['createSignInLink']): RouteDef[] {
  return [
    manageRoute(deps, {
      method: 'POST',
      path: SIGN_IN_LINK_PATH,
      operationId: 'createLocalSignInLink',
      summary: 'A new one-time dashboard sign-in link for the local operator (15 minutes, one use)',
      tags: ['local'],
      responses: { 201: { description: 'The link, to open in a browser.', schema: Type.Object({ url: Type.String() }) } },
      errors: ['service_unavailable'],
      handler: async () => {
        if (!createSignInLink)
          throw problem('service_unavailable', 'This node serves no dashboard (it runs without the api role), so it has no sign-in link to give.');
        return ok({ url: await createSignInLink() }, 201);
      },
    }),
  ];
}

export async function startLocalManagement(opts: LocalManagementOptions): Promise<LocalManagement> {
  const deps: ManageDeps = { ...opts.deps, authenticate: localOperatorAuthenticator(opts.credential) };
  const server = new HttpServer({ logger: opts.logger, maxHeaderBytes: opts.maxHeaderBytes, trustProxy: false });
  // The management API's own document is served on the public port; here it would only repeat it.
  const routes = manageApiRoutes(deps, () => ({}));
  for (const r of routes) if (r.auth === 'manage') server.add(r);
  for (const r of localOnlyRoutes(deps, opts.createSignInLink)) server.add(r);
  const port = await server.listen(LOOPBACK, 0);
  return { url: `http://${LOOPBACK}:${port}`, close: (graceMs) => server.drain(graceMs) };
}
