// `docparse admin` when no node serves the control plane for it (the CLI holds the data dir,
// or the control plane is PostgreSQL): the CLI runs the management API itself, for one
// command, on a loopback listener that only its own in-memory credential opens — the same
// listener and routes a node runs — and the command talks to it like to any node.
import { pino } from 'pino';
import type { Config } from '../config.js';
import type { Sealer } from '../crypto/sealed.js';
import { createDashboardAuth } from '../dashboard/auth/index.js';
import { OperatorCredential } from '../data-dir/operator-credential.js';
import { KeyRing } from '../identity/keyring.js';
import { EmbeddedRateCounters } from '../jobs/embedded-counters.js';
import { createManageAuthenticator } from '../manage/principal.js';
import { createManageDeps, manageStores } from '../manage/deps.js';
import { startLocalManagement } from '../manage/local-management.js';
import { OutboundPolicy } from '../outbound/outbound-policy.js';
import type { SqlControlPlaneStore } from '../tenancy/sql-store.js';
import { openChangeFeed } from '../tenancy/open-change-feed.js';
import { ManageClient } from './manage-client.js';

export interface OwnListenerParts {
  controlPlane: SqlControlPlaneStore;
  config: Config;
  sealer: Sealer;
}

/** Runs `fn` with a client of a management API this process serves on a loopback port. */
export async function withOwnListener<T>(parts: OwnListenerParts, fn: (client: ManageClient) => Promise<T>): Promise<T> {
  const { controlPlane, config, sealer } = parts;
  const logger = pino({ level: 'silent' });
  const stores = manageStores(controlPlane);
  const counters = new EmbeddedRateCounters();
  // With the cluster's Redis, the running nodes hear of this command's changes within a second.
  const changes = openChangeFeed({ redisUrl: config.redisUrl });
  const deps = createManageDeps({
    controlPlane,
    stores,
    config,
    sealer,
    // Loaded on first use: only the signing-key commands read it.
    keyring: new KeyRing({ store: controlPlane, sealer, logger }),
    counters,
    outbound: new OutboundPolicy({ allow: config.outboundAllow, log: logger }),
    // Replaced by the local credential's on the listener.
    authenticate: createManageAuthenticator({ operatorKeys: stores.operatorKeys, members: stores.members, operatorEmails: [] }),
    changes,
  });
  // The node's own sign-in links: the person at this machine may open one once a node serves the dashboard.
  const dashboard = createDashboardAuth({
    config,
    db: controlPlane.db,
    members: stores.members,
    operatorKeys: stores.operatorKeys,
    counters,
    csrfKey: sealer.deriveKey('docparse dashboard csrf v1'),
    logger,
  });
  const { credential, secret } = OperatorCredential.inMemory();
  const listener = await startLocalManagement({
    deps,
    credential,
    createSignInLink: () => dashboard.createSignInLink(),
    logger,
    maxHeaderBytes: config.maxHeaderBytes,
  });
  try {
    return await fn(new ManageClient(listener.url, secret, 'its own operator credential'));
  } finally {
    await listener.close(0);
    await counters.close();
    await changes.close();
  }
}
