// What every format family implements. A parser runs inside a worker thread, reads the
// upload from a local file path, and writes the artifact's `content` value as a stream
// through a JsonWriter; it returns the rest of the artifact when done.
import type { JobOptions } from './options.js';
import type { JsonWriter } from './json-writer.js';
import type { Chunk } from '../chunks.js';
import type { JobFailureCode } from '../../errors/catalogue.js';
import type { ParserSettings } from '../settings.js';
import type { Completeness } from './completeness.js';
import type { Provenance } from './provenance.js';

export interface ParseInput {
  /** Local file holding the upload (never the bytes themselves across threads). */
  filePath: string;
  fileName: string | null;
  /** Concrete format detected at upload, e.g. 'csv'. */
  format: string;
  options: JobOptions;
  /** The node's limits, route switches and engine locations (read by config.ts, never by a parser). */
  settings: ParserSettings;
  /** Scratch directory private to this job; removed by the caller afterwards. */
  tempDir: string;
  /** Reports progress (0..1) for long work; cheap to call often. */
  progress(fraction: number): void;
  /**
   * Reserves Document Units against the app's monthly quota as soon as the parser knows how
   * many the document will bill (pages, sheets, slides, messages so far), before the
   * expensive work. Throws ExtractionError('quota_exceeded') when they do not fit: the parser
   * lets it propagate, and the job fails charged nothing. Absent in direct calls (tests).
   */
  units?: UnitMeter;
  /**
   * Finds the parser for a document inside this one (an e-mail's attachment) whose text the
   * service extracts there. Built by the thread that runs the parse from the registry and
   * detection, so no parser imports the registry. Absent: such documents are not parsed.
   */
  embedded?: EmbeddedParsers;
  /**
   * Where this document sits inside the one uploaded (an e-mail's attachment): every
   * provenance the parser writes starts from it. Absent for the upload itself.
   */
  within?: Provenance;
}

/** The format of an embedded document and how to load its family's parser. */
export interface EmbeddedParser {
  format: string;
  load(): Promise<FormatParser>;
}

/** The parser for a document with these first bytes and name, or null when its text is not extracted. */
export type EmbeddedParsers = (head: Buffer, fileName: string | null) => EmbeddedParser | null;

export interface UnitMeter {
  /** This document bills at least `total` units in all (calls only ever raise it). */
  reserve(total: number): Promise<void>;
}

export interface ParseOutcome {
  /** Value for the artifact's document_format, e.g. 'csv'. */
  documentFormat: string;
  /** Billable Document Units for this document. */
  documentUnits: number;
  metadata: Record<string, unknown>;
  warnings: string[];
  /** What the document holds against what the artifact holds (completeness.ts). */
  completeness: Completeness;
  /** Retrieval chunks, when options.chunkHints is true and the family supports them (chunks.ts). */
  chunks?: Chunk[];
  /**
   * Extra files stored beside the artifact (e.g. GIS features past the inline cap), served at
   * /api/v1/documents/{id}/parts/{name}. Paths must be inside input.tempDir.
   */
  parts?: { name: string; path: string }[];
}

export type FormatParser = (input: ParseInput, content: JsonWriter) => Promise<ParseOutcome>;

/**
 * A failure the user should see as the job's error. `code` is one of the catalogue's job
 * failures (src/errors/catalogue.ts) such as 'extraction_failed', 'encrypted_document' or
 * 'corrupt_document' (the file's container structure is damaged, e.g. a looping OLE2 sector
 * chain); `transient` failures are retried.
 */
export class ExtractionError extends Error {
  /** The library's own error behind this one: logged with the job's ids, never shown to clients. */
  readonly internal?: string;

  constructor(
    message: string,
    public readonly code: JobFailureCode = 'extraction_failed',
    public readonly transient = false,
    opts: { cause?: unknown } = {},
  ) {
    super(message);
    this.name = 'ExtractionError';
    if (opts.cause !== undefined) this.internal = rawError(opts.cause);
  }
}

/** A library error as text for the log (its stack when it has one; an ExtractionError's own cause). */
export function rawError(err: unknown): string {
  if (err instanceof ExtractionError && err.internal) return err.internal;
  const e = err as Error | undefined;
  return (e?.stack ?? e?.message ?? String(err)).slice(0, 2000);
}
