// What a client reads when a parse fails for a reason the parser did not phrase itself:
// a sentence about the document. The raw error (a stack, "Cannot read properties of
// undefined …") goes to the log with the job's ids, never into the job's error.

/** How the format is named in a sentence: 'PDF', 'DOCX', 'GeoPackage' … */
export function formatName(format: string): string {
  const names: Record<string, string> = {
    geopackage: 'GeoPackage',
    geojson: 'GeoJSON',
    filegdb: 'File Geodatabase',
    mapinfo: 'MapInfo',
    shapefile: 'Shapefile',
    flatgeobuf: 'FlatGeobuf',
    parquet: 'Parquet',
    mbox: 'mbox',
  };
  return names[format] ?? format.toUpperCase();
}

export const failureReasons = {
  /** The parser threw something that is not an ExtractionError. */
  unreadable: (format: string) => `The ${formatName(format)} file could not be read: its structure is damaged or uses a feature the parser does not support.`,
  timeout: (seconds: number) => `Parsing this document took longer than ${seconds} s and was stopped.`,
  /** `limit` names the ceiling, e.g. 'the per-thread heap limit of 2048 MB'. */
  memory: (limit: string) => `Parsing this document needed more memory than a parse may use (${limit}), so it was stopped.`,
  crashedWillRetry: () => 'Parsing this document stopped the parsing process; it will be tried again.',
  crashed: (times: number) => `Parsing this document stopped the parsing process ${times === 1 ? 'once' : `${times} times`}; it is not retried again.`,
  uploadMissing: () => 'The uploaded document is no longer in storage (its job was replaced or expired, or the storage lost it); upload it again.',
  uploadUnreadable: () => 'The uploaded document could not be read back whole from storage, and retries ran out.',
  storing: () => 'The result could not be stored after parsing, and retries ran out.',
  machine: () => 'The parsing process failed for a reason unrelated to the document, and retries ran out.',
};
