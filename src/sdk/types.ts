// The documents API's shapes as the SDK sees them (src/api/schemas.ts is the server's
// statement of them; test/sdk/ checks the live answers against these through real calls).
import type { Static } from '@sinclair/typebox';
import type { JobStatusSchema, UploadAccepted as UploadAcceptedSchema } from '../api/schemas.js';

export type JobStatus = Static<typeof JobStatusSchema>;
export type UploadAccepted = Static<typeof UploadAcceptedSchema>;
/** One answer of the batch status call: a status, or an id it does not know. */
export type BatchStatusItem = JobStatus | { documentId: string; error: { code: 'document_not_found'; message: string } };

export interface UploadProgress {
  /** Bytes fetch has taken of the body so far (restarts from 0 on a retried attempt). */
  sentBytes: number;
  totalBytes: number | null;
}

export interface UploadOptions {
  /** Used for detection; taken from a File when not given. Required for a presigned upload. */
  fileName?: string;
  /** Your id for the job; a UUID the SDK picks otherwise (so retries are recognised). */
  documentId?: string;
  documentType?: string;
  csvRoute?: 'Spatial' | 'Tabular';
  sqlDialect?: 'PostgreSql' | 'MsSql' | 'Snowflake' | 'MySql' | 'BigQuery' | 'Sqlite' | 'Oracle';
  pdfMode?: 'SingleColumn' | 'MultiColumn' | 'Ocr' | 'Advanced';
  parquetMode?: 'MetadataOnly' | 'MetadataPlusRows';
  /** Carried to the artifact as customMetadata (sent as customMetadataJson). */
  customMetadata?: Record<string, unknown>;
  chunkHints?: boolean;
  /** https URL told (a signed webhook, docs/webhooks.md) when the job completes, fails or is cancelled. */
  callbackUrl?: string;
  /** Size of a ReadableStream input, which decides direct or presigned (a stream without one goes direct). */
  sizeBytes?: number;
  /** Hex SHA-256, checked by the server at completion of a presigned upload. */
  sha256?: string;
  contentType?: string;
  onProgress?: (p: UploadProgress) => void;
  signal?: AbortSignal;
}
