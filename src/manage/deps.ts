// What the management routes run on, put together in one place for everyone who serves them:
// a node (public port and loopback listener) and `docparse admin` holding the data dir itself.
import type { Config } from '../config.js';
import { RegionTable } from '../http/region-table.js';
import type { Sealer } from '../crypto/sealed.js';
import type { KeyRing } from '../identity/keyring.js';
import type { RateCounters } from '../jobs/types.js';
import type { OutboundPolicy } from '../outbound/outbound-policy.js';
import { mailSettingsOf } from '../mail/settings.js';
import { AppSettingsStore } from '../tenancy/app-settings-store.js';
import { AuditStore } from '../tenancy/audit-store.js';
import { BillingStore } from '../tenancy/billing-store.js';
import { MembersStore } from '../tenancy/members-store.js';
import { OperatorKeysStore } from '../tenancy/operator-keys-store.js';
import type { SqlControlPlaneStore } from '../tenancy/sql-store.js';
import type { ChangeFeed } from '../tenancy/change-feed.js';
import type { ManageDeps, ManageEvents } from './api/kit.js';
import type { ManageAuthenticator } from './principal.js';

/** The management side's stores, on the control plane's connection. */
export type ManageStores = Pick<ManageDeps, 'members' | 'operatorKeys' | 'audit' | 'appSettings' | 'billing'>;

export function manageStores(controlPlane: SqlControlPlaneStore): ManageStores {
  const db = controlPlane.db;
  return {
    members: new MembersStore(db),
    operatorKeys: new OperatorKeysStore(db),
    audit: new AuditStore(db),
    appSettings: new AppSettingsStore(db, controlPlane),
    billing: new BillingStore(db),
  };
}

export interface ManageDepsParts {
  controlPlane: SqlControlPlaneStore;
  /** Made by manageStores when the caller has none yet. */
  stores?: ManageStores;
  config: Pick<Config, 'regions' | 'regionUrls' | 'smtpUrl' | 'mailFrom' | 'dashboardUrl'>;
  sealer: Sealer;
  keyring: KeyRing;
  counters: RateCounters;
  outbound: OutboundPolicy;
  authenticate: ManageAuthenticator;
  events?: ManageEvents;
  /** Where changes to apps, plans and tenants are announced (the node's change feed). */
  changes?: ChangeFeed;
}

export function createManageDeps(parts: ManageDepsParts): ManageDeps {
  const { controlPlane, config } = parts;
  return {
    store: controlPlane,
    ...(parts.stores ?? manageStores(controlPlane)),
    sealer: parts.sealer,
    keyring: parts.keyring,
    counters: parts.counters,
    outbound: parts.outbound,
    authenticate: parts.authenticate,
    regions: config.regions,
    regionTable: config.regionUrls ? new RegionTable(new Map(Object.entries(config.regionUrls))) : null,
    mail: mailSettingsOf(config),
    events: parts.events,
    changes: parts.changes,
  };
}
