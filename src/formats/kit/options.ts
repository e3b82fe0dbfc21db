// What an upload asks of its parser (the routing parameters and chunk hints) and the lane its
// job runs in. Declared here, with the parsers that read them; the job record carries them.

/**
 * Light jobs share the parsing threads; heavy ones (OCR, Advanced PDF, anything LibreOffice
 * reads or renders) run in a lane bounded per node (DOCPARSE_HEAVY_SLOTS) and per tenant.
 */
export type Lane = 'light' | 'heavy';

export interface JobOptions {
  documentType?: string;
  csvRoute?: 'Spatial' | 'Tabular';
  sqlDialect?: string;
  pdfMode?: 'SingleColumn' | 'MultiColumn' | 'Ocr' | 'Advanced';
  parquetMode?: 'MetadataOnly' | 'MetadataPlusRows';
  chunkHints?: boolean;
}
