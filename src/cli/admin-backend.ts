// What `docparse admin` commands need from the control plane beyond the ControlPlaneStore,
// in one interface with two implementations: local-backend.ts (the database, the master key,
// the key ring) and remote-backend.ts (a node's management API with an operator key). The
// commands (commands/*.ts) are written once against it, so they print the same wherever
// they run.
import type { MailView } from '../mail/view.js';
import type { Statement, TenantUsage } from '../tenancy/billing-store.js';
import type { App, ControlPlaneStore, NewStorageConfig, OperatorKey, StorageConfig } from '../tenancy/types.js';

export interface NewAppInput {
  tenantId: string;
  name: string;
  licenseRegion: string;
  dbCode: string;
  allowedDomains: string[];
  planId: string | null;
}

/** An app with the client secret made for it (shown once). */
export interface AppWithSecret {
  app: App;
  clientSecret: string;
}

/** One app's month against its plan's quota. */
export interface AppUsage {
  unitsUsed: number;
  quota: number | null;
  planId: string | null;
  planName: string | null;
  documents: number;
  byFormat: Record<string, number>;
}

export type MailSummary = Omit<MailView, 'text' | 'html'>;

/** A storage config as the operator gives it: the secret key in clear, sealed where it is saved. */
export type NewStorageInput = Omit<NewStorageConfig, 'id' | 'secretAccessKeySealed'> & { secretAccessKey: string };

export type PublicStorageConfig = Omit<StorageConfig, 'secretAccessKeySealed'>;

export interface AdminBackend {
  /** Tenants, apps, plans and storage configs. */
  readonly store: ControlPlaneStore;
  createApp(input: NewAppInput): Promise<AppWithSecret>;
  rotateSecret(appId: string): Promise<AppWithSecret>;
  tenantUsage(tenantId: string, month: string, granularity: 'month' | 'day'): Promise<TenantUsage>;
  /** Every charge of the tenant's month as CSV (manage/api/billing-csv.ts usageLinesCsv). */
  tenantUsageLinesCsv(tenantId: string, month: string): Promise<string>;
  appUsage(app: App, month: string): Promise<AppUsage>;
  appUsageLinesCsv(app: App, month: string): Promise<string>;
  statement(tenantId: string, month: string): Promise<Statement>;
  statementCsv(tenantId: string, month: string): Promise<string>;
  mailList(filter: { pendingOnly: boolean; tenantId: string | undefined; limit: number }): Promise<MailSummary[]>;
  /** null when there is no such e-mail. */
  mailShow(id: string): Promise<MailView | null>;
  /**
   * Saves a storage config; with `verify`, checks the bucket first and saves it anyway when
   * it cannot be reached, saying why in `unreachable` (operators may set up the bucket later).
   */
  createStorageConfig(input: NewStorageInput, verify: boolean): Promise<{ config: PublicStorageConfig; unreachable: string | null }>;
  rotateSigningKey(): Promise<unknown>;
  listSigningKeys(): Promise<unknown[]>;
  createOperatorKey(name: string): Promise<{ key: string; operatorKey: OperatorKey }>;
  listOperatorKeys(): Promise<OperatorKey[]>;
  /** null when there is no such key. */
  revokeOperatorKey(id: string): Promise<OperatorKey | null>;
}
