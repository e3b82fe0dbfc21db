// Migration 7: tenant storage presets. The providers are the presets' (src/storage/presets.ts):
// Backblaze B2, DigitalOcean Spaces and `custom` join, and `other-s3` is now `custom`. Each
// config keeps its checksum mode: the CRC checksums the AWS SDK sends by default are rejected
// by several S3-compatible services, so every config saved before keeps what it had
// (checksums only when the API requires one).
import type { Migration } from './migration.js';

export const storagePresetsMigration: Migration = {
  version: 7,
  name: 'storage configs: the providers of the presets (B2, Spaces, custom for other-s3) and a checksum mode',
  sql: `
ALTER TABLE storage_configs DROP CONSTRAINT storage_configs_provider_check;
UPDATE storage_configs SET provider = 'custom' WHERE provider = 'other-s3';
ALTER TABLE storage_configs ADD CONSTRAINT storage_configs_provider_check
  CHECK (provider IN ('s3', 'r2', 'b2', 'wasabi', 'spaces', 'gcs-s3', 'minio', 'custom'));
ALTER TABLE storage_configs ADD COLUMN checksums text NOT NULL DEFAULT 'when_required'
  CHECK (checksums IN ('when_required', 'when_supported'));
`,
};
