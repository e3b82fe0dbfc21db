// Where uploads and artifacts live. Disk on the embedded default; S3-compatible storage
// (the node's own or a tenant's) in a distributed deployment. Keys are relative paths.
import { createHash } from 'node:crypto';
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
  /**
   * Moves (or uploads) a finished local file into key; resolves to its size. `writtenPrivate`:
   * the caller wrote the file itself with mode 0600 and knows its size, so the store need
   * neither tighten its mode nor stat it.
   */
  putFile(key: string, localPath: string, opts?: { writtenPrivate?: number }): Promise<number>;
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

/**
 * Folder of one job's blobs, scoped by tenant; overwrites use a new generation so old
 * workers never collide. The documentId is hashed: an id may be 200 characters, more than
 * a file name may hold once encoded (ENAMETOOLONG on disk).
 */
export function jobPrefix(tenantId: string, documentId: string, generation: string): string {
  const docDigest = createHash('sha256').update(documentId).digest('hex');
  return `jobs/${tenantId}/${docDigest}/${generation}`;
}

interface JobIdentity {
  tenantId: string;
  documentId: string;
  generation: string;
}

/**
 * Folder of a stored job: the one holding its upload. Read from the record, not recomputed,
 * so jobs written under an earlier layout (documentId in base64url) still resolve. A key
 * outside `jobs/<tenantId>/…/<generation>` is refused: deleting its folder could reach
 * other jobs' blobs.
 */
export function jobFolder(job: JobIdentity & { uploadKey: string }): string {
  const folder = job.uploadKey.slice(0, job.uploadKey.lastIndexOf('/'));
  const [root, tenant, doc, generation, ...rest] = folder.split('/');
  if (root !== 'jobs' || tenant !== job.tenantId || !doc || generation !== job.generation || rest.length) {
    throw new Error(`job ${JSON.stringify(job.documentId)} has an upload key outside its own folder: ${JSON.stringify(job.uploadKey)}`);
  }
  return folder;
}

/**
 * The keys inside a job's folder: the upload, the artifact and any extra result parts.
 * Given a stored record (with uploadKey) the folder is the record's own; else a new one.
 */
export function jobKeys(job: JobIdentity & { uploadKey?: string }) {
  const prefix = job.uploadKey === undefined ? jobPrefix(job.tenantId, job.documentId, job.generation) : jobFolder({ ...job, uploadKey: job.uploadKey });
  return {
    prefix,
    upload: `${prefix}/upload`,
    artifact: `${prefix}/artifact.json`,
    part: (name: string) => `${prefix}/parts/${name}`,
  };
}
