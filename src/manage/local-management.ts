// The node's local management listener: the local admin endpoint on a loopback port of its
// own, apart from the public API. It is reachable only from this host (its URL is published
// in the data dir's lock file), and the public router and OpenAPI document never see it.
import type { Logger } from 'pino';
import { HttpServer } from '../http/server.js';
import type { AdminResult } from '../cli/admin-command.js';
import { OperatorCredential } from '../data-dir/operator-credential.js';
import { localAdminRoutes } from './local-admin-routes.js';

const LOOPBACK = '127.0.0.1';

export interface LocalManagement {
  /** Base URL, e.g. http://127.0.0.1:41234 */
  url: string;
  /** The operator credential it asks for (the management API on the main port accepts it too). */
  credential: OperatorCredential;
  /** Stops accepting, lets a running command finish (up to graceMs), deletes the credential. */
  close(graceMs: number): Promise<void>;
}

export interface LocalManagementOptions {
  dataDir: string;
  logger: Logger;
  maxHeaderBytes: number;
  run(args: string[]): Promise<AdminResult>;
}

export async function startLocalManagement(opts: LocalManagementOptions): Promise<LocalManagement> {
  const credential = await OperatorCredential.create(opts.dataDir);
  const server = new HttpServer({ logger: opts.logger, maxHeaderBytes: opts.maxHeaderBytes, trustProxy: false });
  for (const r of localAdminRoutes({ credential, run: opts.run })) server.add(r);
  let port: number;
  try {
    port = await server.listen(LOOPBACK, 0);
  } catch (err) {
    await credential.remove();
    throw err;
  }
  return {
    url: `http://${LOOPBACK}:${port}`,
    credential,
    close: async (graceMs) => {
      await server.drain(graceMs);
      await credential.remove();
    },
  };
}
