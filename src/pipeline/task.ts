// What crosses the thread boundary: a reference to the upload on disk and small options,
// never the document bytes.
import type { JobOptions } from '../jobs/types.js';

export interface ParseTask {
  documentId: string;
  fileName: string | null;
  format: string;
  options: JobOptions;
  customMetadata: Record<string, unknown> | null;
  /** Local path of the upload. */
  inputPath: string;
  /** Where the thread writes the artifact JSON. */
  artifactPath: string;
  /** Scratch folder for the parser; removed by the caller. */
  tempDir: string;
}

export type ParseTaskResult =
  | { ok: true; documentFormat: string; documentUnits: number; artifactBytes: number; warnings: number; parts: { name: string; path: string }[] }
  | { ok: false; code: string; message: string; transient: boolean };

export const SCHEMA_VERSION = '1.0';
