// The result artifact, typed per `document_format`. The content types are the very TypeBox
// schemas the server validates against and publishes in /openapi/v1.json
// (components.schemas.<Family>Content), imported as types only: nothing of the server is
// loaded at run time, and a schema change reaches these types at the next compile.
// FORMAT_CONTENT says which format has which content; test/sdk/artifact-types.test.ts
// checks it against the families' registry, so a new format cannot be forgotten here.
import type { Static } from '@sinclair/typebox';
import type { CadContent } from '../formats/cad/schema.js';
import type { CsvContent } from '../formats/csv/schema.js';
import type { Chunk } from '../formats/chunks.js';
import type { Completeness } from '../formats/kit/completeness.js';
import type { EmailContent } from '../formats/email/schema.js';
import type { GisContent } from '../formats/gis/schema.js';
import type { OfficeContent } from '../formats/office/schema.js';
import type { ParquetContent } from '../formats/parquet/schema.js';
import type { PdfContent } from '../formats/pdf/schema.js';
import type { SqlContent } from '../formats/sql/schema.js';

/** Each `document_format` with the name of its content schema in /openapi/v1.json (null: none published). */
export const FORMAT_CONTENT = {
  csv: 'CsvContent',
  pdf: 'PdfContent',
  docx: 'OfficeContent',
  xlsx: 'OfficeContent',
  pptx: 'OfficeContent',
  odt: 'OfficeContent',
  ods: 'OfficeContent',
  odp: 'OfficeContent',
  rtf: 'OfficeContent',
  doc: 'OfficeContent',
  xls: 'OfficeContent',
  ppt: 'OfficeContent',
  eml: 'EmailContent',
  msg: 'EmailContent',
  mbox: 'EmailContent',
  pst: 'EmailContent',
  sql: 'SqlContent',
  shapefile: 'GisContent',
  mapinfo: 'GisContent',
  filegdb: 'GisContent',
  geopackage: 'GisContent',
  geojson: 'GisContent',
  kml: 'GisContent',
  kmz: 'GisContent',
  gml: 'GisContent',
  gpx: 'GisContent',
  flatgeobuf: 'GisContent',
  dwg: 'CadContent',
  dxf: 'CadContent',
  parquet: 'ParquetContent',
} as const;

export type DocumentFormat = keyof typeof FORMAT_CONTENT;

interface ContentBySchema {
  CsvContent: Static<typeof CsvContent>;
  PdfContent: Static<typeof PdfContent>;
  OfficeContent: Static<typeof OfficeContent>;
  EmailContent: Static<typeof EmailContent>;
  SqlContent: Static<typeof SqlContent>;
  GisContent: Static<typeof GisContent>;
  CadContent: Static<typeof CadContent>;
  ParquetContent: Static<typeof ParquetContent>;
}

/** The content of a format's artifact, by its published schema. */
export type ContentOf<F extends DocumentFormat> = (typeof FORMAT_CONTENT)[F] extends keyof ContentBySchema
  ? ContentBySchema[(typeof FORMAT_CONTENT)[F]]
  : unknown;

interface ArtifactOf<F extends DocumentFormat> {
  schema_version: '1.0';
  document_format: F;
  documentId: string;
  fileName: string | null;
  documentUnits: number;
  metadata: Record<string, unknown>;
  content: ContentOf<F>;
  customMetadata: Record<string, unknown>;
  warnings: string[];
  /** What the document holds against what the artifact holds. */
  completeness: Completeness;
  /** Retrieval chunks (chunkHints=true on PDF and Office). */
  chunks?: Chunk[];
}

/** A result: narrow on `document_format` to get its content's type. */
export type Artifact = { [F in DocumentFormat]: ArtifactOf<F> }[DocumentFormat];
