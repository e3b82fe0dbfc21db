// Where uploads and artifacts live. Disk on the embedded default; S3-compatible storage
// (the node's own or a tenant's) in a distributed deployment. Keys are relative paths.
import type { Readable } from 'node:stream';

export interface WriteResult {
  bytes: number;
  sha256: string;
}

export interface BlobStore {
  /**
   * Streams source into key, hashing and counting on the way. If the source fails or
   * exceeds maxBytes, nothing is left under key (partial data is removed) and the error
   * is rethrown (BlobTooLargeError for the limit).
   */
  write(key: string, source: AsyncIterable<Buffer>, opts?: { maxBytes?: number }): Promise<WriteResult>;
  /** Moves (or uploads) a finished local file into key. */
  putFile(key: string, localPath: string): Promise<number>;
  /** Readable over the blob; null when it does not exist. */
  read(key: string): Promise<{ stream: Readable; size: number } | null>;
  /** A local file holding the blob for worker threads; release() cleans any temp copy. */
  localPath(key: string): Promise<{ path: string; release(): Promise<void> }>;
  delete(key: string): Promise<void>;
  /** Deletes every key under a prefix (a job's folder). */
  deletePrefix(prefix: string): Promise<void>;
  ping(): Promise<void>;
}

export class BlobTooLargeError extends Error {
  constructor(public readonly limit: number) {
    super(`blob exceeds ${limit} bytes`);
    this.name = 'BlobTooLargeError';
  }
}

/** Folder of one job's blobs; overwrites use a new generation so old workers never collide. */
export function jobPrefix(tenantId: string, documentId: string, generation: string): string {
  const safeDoc = Buffer.from(documentId).toString('base64url');
  return `jobs/${tenantId}/${safeDoc}/${generation}`;
}

/** The keys inside a job's folder: the upload, the artifact and any extra result parts. */
export function jobKeys(job: { tenantId: string; documentId: string; generation: string }) {
  const prefix = jobPrefix(job.tenantId, job.documentId, job.generation);
  return {
    prefix,
    upload: `${prefix}/upload`,
    artifact: `${prefix}/artifact.json`,
    part: (name: string) => `${prefix}/parts/${name}`,
  };
}
