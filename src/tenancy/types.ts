// Control-plane records: tenants, apps, plans, storage configs, signing keys, usage.
// One interface, two engines (PGlite embedded, PostgreSQL distributed) — see sql-store.ts.

export type TenantState = 'Pending Activation' | 'Active' | 'Deactivated';

export interface Tenant {
  id: string;
  name: string;
  state: TenantState;
  contactEmail: string | null;
  createdAt: string; // ISO 8601 UTC
  activatedAt: string | null;
}

export type PlanStatus = 'usable' | 'retired';

export interface Plan {
  id: string;
  name: string;
  status: PlanStatus;
  maxDocumentUnitsPerMonth: number;
  advancedPdfExtraction: boolean;
  ocrPdfExtraction: boolean;
  /** Largest accepted upload, bytes. */
  maxFileSizeBytes: number;
  /** Jobs of one app that may be unfinished at once. */
  maxConcurrentJobs: number;
  /** Upload bytes per second one app may push (averaged over a short window). */
  maxBytesPerSecond: number;
  createdAt: string;
}

export interface App {
  id: string;
  tenantId: string;
  name: string;
  licenseRegion: string | null;
  clientId: string;
  /** scrypt hash in the form produced by identity/secrets.ts; never the secret. */
  secretHash: string;
  dbCode: string | null;
  /** At most three host[:port] entries. */
  allowedDomains: string[];
  enabled: boolean;
  planId: string | null;
  storageConfigId: string | null;
  createdAt: string;
}

/** When a tenant storage's requests carry checksums (src/storage/presets.ts says which service needs which). */
export type ChecksumMode = 'when_required' | 'when_supported';

export interface StorageConfig {
  id: string;
  tenantId: string;
  /** A preset's id (src/storage/presets.ts): 's3' | 'r2' | 'b2' | 'wasabi' | 'spaces' | 'gcs-s3' | 'minio' | 'custom'. */
  provider: string;
  endpoint: string | null;
  region: string;
  bucket: string;
  prefix: string;
  accessKeyId: string;
  /** Sealed with the master key (crypto/sealed.ts); never stored in clear. */
  secretAccessKeySealed: string;
  forcePathStyle: boolean;
  /** When request checksums are sent (the AWS SDK's default CRCs are rejected by several services). */
  checksums: ChecksumMode;
  createdAt: string;
}

export interface SigningKey {
  kid: string;
  alg: 'ES256';
  publicJwk: Record<string, unknown>;
  /** PKCS#8 PEM sealed with the master key. */
  privateKeySealed: string;
  createdAt: string;
  /** When it stopped signing (a newer key took over); it keeps verifying until then + token lifetime. */
  retiredAt: string | null;
}

export interface UsageCharge {
  /** Unique per job run: charging the same key twice is a no-op. */
  chargeKey: string;
  tenantId: string;
  appId: string;
  documentId: string;
  /** 'YYYY-MM' in UTC. */
  month: string;
  format: string;
  units: number;
}

/**
 * Units a job in progress holds against its app's monthly quota. A job's hold is keyed like
 * its charge (one per run) and replaced by each reservation; it lapses after `holdSeconds`
 * unless renewed, so a node that died holding one does not block the quota for long.
 */
export interface UnitHold {
  chargeKey: string;
  tenantId: string;
  appId: string;
  documentId: string;
  month: string;
  /** Units the job holds in all. */
  units: number;
  /** The app's monthly quota (maxDocumentUnitsPerMonth). */
  quota: number;
  holdSeconds: number;
}

/** Whether units fit the quota; on refusal, what is already charged and held by other jobs. */
export type QuotaCheck = { ok: true } | { ok: false; used: number; held: number; quota: number };

export interface NewTenant {
  name: string;
  contactEmail?: string | null;
  id?: string;
}
export interface NewPlan {
  name: string;
  maxDocumentUnitsPerMonth: number;
  advancedPdfExtraction: boolean;
  ocrPdfExtraction: boolean;
  maxFileSizeBytes: number;
  maxConcurrentJobs: number;
  maxBytesPerSecond: number;
  id?: string;
}
/** What an edit of a plan may change: its name and terms (not its id, status or creation time). */
export type PlanChanges = Partial<Omit<NewPlan, 'id'>>;
export interface NewApp {
  tenantId: string;
  name: string;
  licenseRegion: string | null;
  dbCode: string | null;
  clientId: string;
  secretHash: string;
  allowedDomains?: string[];
  planId?: string | null;
  enabled?: boolean;
  id?: string;
}
export type NewStorageConfig = Omit<StorageConfig, 'id' | 'createdAt' | 'checksums'> & { id?: string; checksums?: ChecksumMode };

export interface ControlPlaneStore {
  /** Applies pending versioned migrations; safe to call on every boot and from many nodes. */
  migrate(): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;

  createTenant(t: NewTenant): Promise<Tenant>;
  getTenant(id: string): Promise<Tenant | null>;
  listTenants(): Promise<Tenant[]>;
  setTenantState(id: string, state: TenantState): Promise<Tenant>;

  createPlan(p: NewPlan): Promise<Plan>;
  getPlan(id: string): Promise<Plan | null>;
  listPlans(): Promise<Plan[]>;
  /** Changes the given fields of a plan (usable or retired: its status stays). */
  updatePlan(id: string, changes: PlanChanges): Promise<Plan>;
  retirePlan(id: string): Promise<Plan>;

  createApp(a: NewApp): Promise<App>;
  getApp(id: string): Promise<App | null>;
  getAppByClientId(clientId: string): Promise<App | null>;
  listApps(tenantId?: string): Promise<App[]>;
  setAppEnabled(id: string, enabled: boolean): Promise<App>;
  setAppDomains(id: string, domains: string[]): Promise<App>;
  assignPlan(appId: string, planId: string | null): Promise<App>;
  setAppSecretHash(appId: string, secretHash: string): Promise<App>;
  setAppStorageConfig(appId: string, storageConfigId: string | null): Promise<App>;

  createStorageConfig(c: NewStorageConfig): Promise<StorageConfig>;
  getStorageConfig(id: string): Promise<StorageConfig | null>;

  insertSigningKey(k: SigningKey): Promise<void>;
  listSigningKeys(): Promise<SigningKey[]>;
  retireSigningKey(kid: string, at: string): Promise<void>;

  /** Records a charge once; returns false when chargeKey was already charged. */
  chargeUsage(c: UsageCharge): Promise<boolean>;
  /** Units charged to an app in a month. */
  unitsUsed(appId: string, month: string): Promise<number>;
  /** Units charged plus units held by jobs in progress: what admission compares to the quota. */
  unitsCommitted(appId: string, month: string): Promise<number>;
  /**
   * Sets a job's hold to `units` if charged + others' holds + units stays within the quota,
   * atomically across nodes; a job already charged is always ok.
   */
  reserveUnits(h: UnitHold): Promise<QuotaCheck>;
  /**
   * Charges a job's final units and drops its hold in one step, only if they fit the quota
   * (its own hold aside). Idempotent per chargeKey: a second call charges nothing.
   */
  settleUsage(c: UsageCharge & { quota: number }): Promise<QuotaCheck>;
  /** Drops a job's hold (the job failed or was replaced). */
  releaseUnits(chargeKey: string): Promise<void>;
  listUsage(filter: { tenantId?: string; appId?: string; month?: string }): Promise<UsageCharge[]>;
}

/** Thrown by the store for a missing record on update; mapped to 404/CLI error by callers. */
export class NotFoundError extends Error {
  constructor(what: string, id: string) {
    super(`${what} ${id} not found`);
    this.name = 'NotFoundError';
  }
}

// ------------------------------------------------------------------ management (migration 3)

export type TenantRole = 'owner' | 'member';

/** A person in a tenant, known by e-mail (their sign-in subject once they have signed in). */
export interface TenantMember {
  tenantId: string;
  email: string;
  role: TenantRole;
  userId: string | null;
  addedAt: string;
}

/** An open or settled invitation by e-mail; the mailer sends those with mailedAt null. */
export interface TenantInvitation {
  id: string;
  tenantId: string;
  email: string;
  role: TenantRole;
  /** Audit actor id of who invited. */
  invitedBy: string;
  createdAt: string;
  acceptedAt: string | null;
  revokedAt: string | null;
  mailedAt: string | null;
}

/** An operator API key as stored: a name and the SHA-256 of the key, never the key. */
export interface OperatorKey {
  id: string;
  name: string;
  createdAt: string;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

/** One change, as the audit log keeps it. */
export interface AuditEntry {
  id: string;
  at: string;
  actor: { kind: string; id: string; email: string | null };
  tenantId: string | null;
  action: string;
  objectType: string;
  objectId: string | null;
  /** Fields that changed (never a secret). */
  diff: Record<string, unknown>;
  clientAddress: string | null;
  requestId: string | null;
}

export type NewAuditEntry = Omit<AuditEntry, 'id' | 'at'>;
