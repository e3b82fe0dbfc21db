// Tenants' storage configs in SQL (the secret key arrives sealed; it is never stored in clear).
import { randomUUID } from 'node:crypto';
import { sqlErrorCode, type SqlClient, type SqlError } from '../../db/sql.js';
import type { ChecksumMode, NewStorageConfig, StorageConfig } from '../types.js';
import { iso, requireText, rethrow, type Ts } from './checks.js';

export interface StorageConfigRow {
  id: string;
  tenant_id: string;
  provider: string;
  endpoint: string | null;
  region: string;
  bucket: string;
  prefix: string;
  access_key_id: string;
  secret_access_key_sealed: string;
  force_path_style: boolean;
  checksums: ChecksumMode;
  created_at: Ts;
}

const toStorageConfig = (r: StorageConfigRow): StorageConfig => ({
  id: r.id,
  tenantId: r.tenant_id,
  provider: r.provider,
  endpoint: r.endpoint,
  region: r.region,
  bucket: r.bucket,
  prefix: r.prefix,
  accessKeyId: r.access_key_id,
  secretAccessKeySealed: r.secret_access_key_sealed,
  forcePathStyle: r.force_path_style,
  checksums: r.checksums,
  createdAt: iso(r.created_at),
});

export async function createStorageConfig(db: SqlClient, c: NewStorageConfig): Promise<StorageConfig> {
  const id = c.id ?? randomUUID();
  try {
    const { rows } = await db.query<StorageConfigRow>(
      `INSERT INTO storage_configs (id, tenant_id, provider, endpoint, region, bucket, prefix, access_key_id,
                                    secret_access_key_sealed, force_path_style, checksums)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING *`,
      [
        id,
        c.tenantId,
        c.provider,
        c.endpoint,
        c.region,
        requireText(c.bucket, 'bucket'),
        c.prefix ?? '',
        c.accessKeyId,
        c.secretAccessKeySealed,
        c.forcePathStyle,
        c.checksums ?? 'when_required',
      ],
    );
    return toStorageConfig(rows[0]);
  } catch (err) {
    if (sqlErrorCode(err) === '23514' && String((err as SqlError).constraint).includes('provider')) {
      throw new Error(`unknown storage provider "${c.provider}"; expected s3, r2, b2, wasabi, spaces, gcs-s3, minio or custom`, { cause: err });
    }
    rethrow(err, { tenant_id: ['tenant', c.tenantId] }, { storage_configs_pkey: `storage config ${id} already exists` });
  }
}

export async function getStorageConfig(db: SqlClient, id: string): Promise<StorageConfig | null> {
  const { rows } = await db.query<StorageConfigRow>('SELECT * FROM storage_configs WHERE id = $1', [id]);
  return rows[0] ? toStorageConfig(rows[0]) : null;
}
