// What crosses the thread boundary: a reference to the upload on disk and small options,
// never the document bytes.
import type { JobOptions } from '../jobs/types.js';
import type { JobFailureCode } from '../errors/catalogue.js';

export interface ParseTask {
  /** Unique per run of a task, so the parsing process can tie subprocesses to it. */
  taskId?: string;
  documentId: string;
  fileName: string | null;
  format: string;
  options: JobOptions;
  customMetadata: Record<string, unknown> | null;
  /** Local path of the upload. */
  inputPath: string;
  /** The upload's size in bytes, when known: a small one may run on the parsing process's main thread (inline-tasks.ts). */
  inputBytes?: number;
  /** Where the thread writes the artifact JSON. */
  artifactPath: string;
  /**
   * artifactPath is the blob store's own file, in the job's folder beside the upload: its
   * folder is never made here (missing, the job's blobs were deleted).
   */
  artifactInPlace?: boolean;
  /** Scratch folder for the parser, made by the thread when a parser first asks for it; removed by the caller. */
  tempDir: string;
}

export type ParseTaskResult =
  | {
      ok: true;
      documentFormat: string;
      documentUnits: number;
      /** Bytes of the artifact, written at artifactPath with mode 0600. */
      artifactBytes: number;
      warnings: number;
      parts: { name: string; path: string }[];
      /** Whether the parser made tempDir (absent: assume it did). */
      scratchUsed?: boolean;
    }
  | {
      ok: false;
      code: JobFailureCode;
      /** A sentence about the document, shown to the client. */
      message: string;
      transient: boolean;
      /** The raw error behind an unexpected failure: for the log, never for the client. */
      internal?: string;
    };

export const SCHEMA_VERSION = '1.0';
