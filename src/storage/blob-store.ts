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
   * True when write and appendStaged take `lent: true`: they then copy each chunk before
   * asking source for the next, so its memory may be reused from then on (BodyStream.lent).
   * A store without it keeps chunks as they are and must be given chunks it may keep.
   */
  readonly takesLentChunks?: boolean;
  /**
   * Streams source into key, hashing and counting on the way. If the source fails or
   * exceeds maxBytes, nothing is left under key (partial data is removed) and the error
   * is rethrown (BlobTooLargeError for the limit). `lent`: see takesLentChunks. A key beside
   * other blobs is readable only whole; on disk a key in a folder the write makes (a new
   * job's) is written in place, being known to no one until the caller records it.
   */
  write(key: string, source: AsyncIterable<Buffer>, opts?: { maxBytes?: number; lent?: boolean }): Promise<WriteResult>;
  /**
   * Moves (or uploads) a finished local file into key; resolves to its size. `writtenPrivate`:
   * the caller wrote the file itself with mode 0600 and knows its size, so the store need
   * neither tighten its mode nor stat it.
   */
  putFile(key: string, localPath: string, opts?: { writtenPrivate?: number }): Promise<number>;
  /** Readable over the blob; null when it does not exist. */
  read(key: string): Promise<{ stream: Readable; size: number } | null>;
  /**
   * A local file holding the blob for worker threads; release() cleans any temp copy. On disk
   * the blob's own file, unchecked: a missing blob fails where the file is opened. A store that
   * copies the blob here checks the copy's size against `bytes` (the size it was stored with),
   * else against the length its read answered: a copy of another size is removed and fails
   * (IncompleteCopyError), never handed to a parser.
   */
  localPath(key: string, opts?: { bytes?: number }): Promise<{ path: string; release(): Promise<void> }>;
  /**
   * Disk stores only: the file at which a writer on this machine makes the blob `key` itself
   * (mode 0600, in an existing folder), instead of handing a finished file to putFile. The file
   * is partial while written, so only for a key no reader knows until the writer is done and
   * records it (a name of its own: see jobKeys' runArtifact), removed by the writer if it fails.
   */
  fileFor?(key: string): string;
  delete(key: string): Promise<void>;
  /** Deletes every key under a prefix (a job's folder). */
  deletePrefix(prefix: string): Promise<void>;
  ping(): Promise<void>;

  // A staged upload: a blob received in pieces (tus PATCH requests), appended under its key
  // until finishStaged makes it the blob at that key. What was appended survives a restart.
  /** Bytes durably staged under key so far (0 when nothing is). */
  stagedSize(key: string): Promise<number>;
  /**
   * Appends source to the staged upload under key, which must hold exactly `offset` bytes
   * (StagedOffsetError otherwise). When source fails, what it gave is kept if
   * keepOnFailure(err) says so, else the staged upload stays as it was; either way the
   * failure is returned with the offset now stored (errors of the store itself are thrown).
   * beforeCommit runs once source has ended, before anything becomes visible: throwing there
   * (a checksum that does not match) drops this append.
   */
  appendStaged(key: string, offset: number, source: AsyncIterable<Buffer>, opts: AppendOptions): Promise<AppendResult>;
  /** Makes the staged upload the blob at key (readable with read()); its staging is gone. */
  finishStaged(key: string): Promise<void>;
  /** Removes a staged upload and all it holds (S3: aborts its multipart upload). */
  discardStaged(key: string): Promise<void>;
}

export interface AppendOptions {
  /** Size of the whole upload, for the S3 part size (at most 10,000 parts). */
  totalBytes: number;
  keepOnFailure: (err: unknown) => boolean;
  beforeCommit?: () => void;
  /** Each chunk of source is valid only until the next is asked for (only where takesLentChunks). */
  lent?: boolean;
}

export interface AppendResult {
  /** Bytes staged after this append. */
  offset: number;
  /** Why source failed, when it did. */
  failure: unknown;
}

/** An append at an offset other than what is staged. */
export class StagedOffsetError extends Error {
  constructor(public readonly staged: number) {
    super(`the staged upload holds ${staged} bytes`);
    this.name = 'StagedOffsetError';
  }
}

/**
 * A local copy of a blob that does not hold the bytes stored: the store's read answered a
 * shorter (or longer) object than was written, e.g. a read sent right after the write was
 * answered by a store without read-after-write consistency.
 */
export class IncompleteCopyError extends Error {
  constructor(
    readonly key: string,
    readonly bytes: number,
    readonly expected: number,
  ) {
    super(`the local copy of blob ${key} has ${bytes} bytes, not the ${expected} stored`);
    this.name = 'IncompleteCopyError';
  }
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
 * a file name may hold once encoded (ENAMETOOLONG on disk). One folder per job, not one per
 * document holding one per generation: a new job costs the disk store one directory.
 */
export function jobPrefix(tenantId: string, documentId: string, generation: string): string {
  const docDigest = createHash('sha256').update(documentId).digest('hex');
  return `jobs/${tenantId}/${docDigest}.${generation}`;
}

interface JobIdentity {
  tenantId: string;
  documentId: string;
  generation: string;
}

/**
 * Folder of a stored job: the one holding its upload. Read from the record, not recomputed,
 * so jobs written under an earlier layout (`jobs/<tenantId>/<document>/<generation>`, the
 * document as base64url or hashed) still resolve. A key outside the job's own folder is
 * refused: deleting its folder could reach other jobs' blobs.
 */
export function jobFolder(job: JobIdentity & { uploadKey: string }): string {
  const folder = job.uploadKey.slice(0, job.uploadKey.lastIndexOf('/'));
  const [root, tenant, doc, generation, ...rest] = folder.split('/');
  const ownFolder =
    generation === undefined
      ? doc !== undefined && doc.endsWith(`.${job.generation}`) && doc.length > job.generation.length + 1
      : !!doc && generation === job.generation && rest.length === 0;
  if (root !== 'jobs' || tenant !== job.tenantId || !ownFolder) {
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
    /**
     * The artifact of one run of the job, written in place (BlobStore.fileFor): a name of its
     * own per run, so two runs of one job (a retry while a dead node's parse still writes)
     * never write one file.
     */
    runArtifact: (run: string) => `${prefix}/artifact.${run}.json`,
    part: (name: string) => `${prefix}/parts/${name}`,
  };
}
