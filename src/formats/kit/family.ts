// What a format family declares about itself, once, in its own folder (src/formats/<family>/
// family.ts). The registry is the list of these; detection, upload-parameter validation, the
// engines a document needs, its lane, the OpenAPI content schemas and the families table in
// the docs are all derived from them.
import type { TSchema } from '@sinclair/typebox';
import type { FormatParser } from './types.js';
import type { JobOptions, Lane } from './options.js';
import type { OfficeRender } from '../settings.js';

export type Family = 'pdf' | 'office' | 'email' | 'sql' | 'gis' | 'cad' | 'csv' | 'parquet';

export const ENGINE_NAMES = ['PDFium', 'Tesseract', 'LibreOffice', 'GDAL', 'LibreDWG', 'hyparquet'] as const;
export type EngineName = (typeof ENGINE_NAMES)[number];

export interface EngineNeed {
  engine: EngineName;
  /** Completes "… is needed <why>", e.g. 'to read DOC documents'. */
  why: string;
}

/**
 * How a format is recognised from its first bytes. Detection tries, across every family:
 * `nearStart` signatures, then the ZIP and OLE2 containers, then `prefix` and `test`
 * signatures, then `text` patterns (over the first 4 KiB as Latin-1, byte-order mark removed).
 */
export type Signature =
  /** `text` anywhere in the first `within` bytes (PDF allows junk before its header). */
  | { nearStart: string; within: number }
  /**
   * Bytes the file starts with. A `weak` prefix (SQLite: a GeoPackage or any other SQLite
   * database) gives way to a documentType naming another format.
   */
  | { prefix: string | readonly number[]; weak?: boolean }
  | { test: (head: Buffer) => boolean }
  | { text: RegExp };

/** A ZIP entry whose local header falls inside the first bytes (stored: its bytes when small and uncompressed). */
export interface ZipEntry {
  name: string;
  stored: Buffer | null;
}

export interface FormatDescriptor {
  /** The concrete format, the artifact's document_format, e.g. 'docx'. */
  format: string;
  /** Its documentType value at upload, e.g. 'Docx' (matched case-insensitively, '_' ignored). */
  documentType: string;
  /** File name extensions that name it, lower case without the dot. */
  extensions: readonly string[];
  signatures?: readonly Signature[];
  /**
   * The container it comes in: a ZIP or OLE2 file is this format only when its layout, its
   * name or documentType says so. `alsoInOle`: the format's password-protected files are OLE2
   * (OOXML's EncryptedPackage).
   */
  container?: 'zip' | 'ole';
  alsoInOle?: boolean;
  /** ZIP file names that say the archive holds this format, e.g. /\.shp\.zip$/i. */
  zippedNames?: readonly RegExp[];
  /** Last resort when neither the content's signatures, documentType nor the name decide. */
  sniff?: (head: Buffer) => boolean;
  /** Loads the parser inside a worker thread (lazily: a thread only pays for what it uses). */
  load: () => Promise<FormatParser>;
}

/** One value of a routing parameter; `entitlement`: the plan feature it needs. */
export interface RoutingValue {
  value: string;
  entitlement?: string;
}

/** An upload parameter that routes this family's documents, with its allowed values. */
export interface RoutingParameter {
  name: 'csvRoute' | 'sqlDialect' | 'pdfMode' | 'parquetMode';
  values: readonly RoutingValue[];
  /** Required (400 when missing), or the value taken when it is missing. */
  required?: true;
  default?: string;
}

export interface FamilyDescriptor {
  family: Family;
  /** As people name it: 'Office / OpenDocument'. */
  title: string;
  /** Its page under docs/formats/. */
  docPage: string;
  formats: readonly FormatDescriptor[];
  /** What the table says beside the format names, e.g. the CSV dialects read. */
  formatsNote?: string;
  routing: readonly RoutingParameter[];
  /** Whether chunkHints gives retrieval chunks for this family. */
  chunks: boolean;
  /** How Document Units are counted, for people: 'pages', 'statements' … */
  units: string;
  /** The JSON Schema of the artifact's content, published in the OpenAPI document under `name`. */
  content?: { name: string; schema: TSchema };
  /** The engines a document of `format` with `options` needs on the node that parses it. */
  engines(format: string, options: JobOptions, officeRender: OfficeRender): EngineNeed[];
  /** The lane its jobs run in (light unless the family says otherwise). */
  lane?(options: JobOptions): Lane;
  /** A ZIP declared (documentType) as any of this family's formats is taken as that format. */
  zipHoldsAnyFormat?: boolean;
  /** The text of attachments in this family's formats is extracted inside e-mails. */
  textInAttachments?: boolean;
  /**
   * For a ZIP whose inner layout names the format (OOXML, OpenDocument): the format of these
   * first entries, or null.
   */
  formatOfZip?(entries: readonly ZipEntry[]): string | null;
}
