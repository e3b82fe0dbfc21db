// Which blob store holds a job's bytes: the node's own, or the tenant's S3-compatible
// storage configured on the app (credentials sealed in the control plane). A tenant's storage
// is always reached through the outbound policy, checked on every connection: an endpoint
// saved while it was public and private since (or saved unchecked by an operator) is refused.
import type { Sealer } from '../crypto/sealed.js';
import { OutboundPolicy } from '../outbound/outbound-policy.js';
import type { ControlPlaneStore, StorageConfig } from '../tenancy/types.js';
import type { BlobStore } from './blob-store.js';
import { signingRegion } from './presets.js';
import { S3BlobStore } from './s3-blob-store.js';

/** Context bound into the sealed secret, so a sealed value cannot be moved to another tenant. */
export function storageSecretContext(tenantId: string): string {
  return `storage-config:${tenantId}`;
}

export class BlobRouter {
  private readonly tenantStores = new Map<string, Promise<BlobStore>>();

  constructor(
    readonly nodeStore: BlobStore,
    private readonly controlPlane: ControlPlaneStore,
    private readonly sealer: Sealer,
    /** What a tenant's storage may be (DOCPARSE_OUTBOUND_ALLOW). */
    private readonly outbound: OutboundPolicy,
  ) {}

  /** The store for a storage config id (null: the node's own). */
  for(storageConfigId: string | null): Promise<BlobStore> {
    if (!storageConfigId) return Promise.resolve(this.nodeStore);
    let s = this.tenantStores.get(storageConfigId);
    if (!s) {
      s = this.open(storageConfigId);
      s.catch(() => this.tenantStores.delete(storageConfigId));
      if (this.tenantStores.size > 1000) this.tenantStores.clear();
      this.tenantStores.set(storageConfigId, s);
    }
    return s;
  }

  private async open(id: string): Promise<BlobStore> {
    const cfg = await this.controlPlane.getStorageConfig(id);
    if (!cfg) throw new Error(`storage config ${id} not found`);
    return s3StoreFor(cfg, this.sealer, this.outbound);
  }
}

/** A tenant's storage config opened as a blob store, behind the outbound policy (public addresses only by default). */
export function s3StoreFor(cfg: StorageConfig, sealer: Sealer, outbound: OutboundPolicy = new OutboundPolicy()): S3BlobStore {
  return new S3BlobStore(
    {
      endpoint: cfg.endpoint,
      region: signingRegion(cfg.provider, cfg.region),
      bucket: cfg.bucket,
      prefix: cfg.prefix,
      accessKeyId: cfg.accessKeyId,
      secretAccessKey: sealer.open(cfg.secretAccessKeySealed, storageSecretContext(cfg.tenantId)),
      forcePathStyle: cfg.forcePathStyle,
      checksums: cfg.checksums,
    },
    outbound,
  );
}
