// What the parsers are configured with: limits that bound their work and the switches that
// choose a route, and where the operating system's engines live. Read and validated once, in
// src/config.ts (each field names its variable there); handed to the parsing process and its
// threads (pipeline/pool.ts workerData) and to each parser in ParseInput.settings. The
// parsers never read the environment. The defaults are the ones config.ts applies when a
// variable is unset, and what a parser called without a node (a test, a bench) runs with.

export interface ArchiveLimits {
  /** Bytes all the archives of one upload may inflate to, archives inside archives included. */
  maxBytes: number;
  /** Members all the archives of one upload may hold. */
  maxEntries: number;
  /**
   * Largest uncompressed/compressed ratio of a member over 1 MiB, and of an upload whose
   * archives hold archives (ratios multiply across levels, as in 42.zip).
   */
  maxRatio: number;
  /** Levels of archives inside an archive that are opened (0: none). */
  maxDepth: number;
}

/** How Office page counts are found: render every document, trust Word-confirmed DOCX counts, or take stored counts. */
export type OfficeRender = 'always' | 'auto' | 'off';

/** Where LibreOffice and Tesseract's models are looked for (src/formats/kit/engine-locations.ts). */
export interface EngineLocations {
  /** DOCPARSE_SOFFICE: the only soffice tried when set (a path with none means no LibreOffice). */
  soffice: string | null;
  /** DOCPARSE_TESSDATA_DIR: the only models folder searched when set. */
  tessdataDir: string | null;
  /** TESSDATA_PREFIX: searched before Debian's folders when DOCPARSE_TESSDATA_DIR is unset. */
  tessdataPrefix: string | null;
  /** The folders of PATH, searched for soffice after the usual install locations. */
  searchPath: string[];
}

/** What one parse may take of its thread's memory (src/pipeline/thread-context.ts enforces it). */
export interface TaskMemoryLimits {
  /**
   * Bytes one task may add outside the V8 heap (ArrayBuffers, WebAssembly memory), and the
   * most a parser may plan to allocate for one document from sizes the document declares.
   */
  maxBytes: number;
}

export interface ParserSettings {
  archive: ArchiveLimits;
  memory: TaskMemoryLimits;
  cad: { maxBytes: number };
  parquet: { maxRowGroupBytes: number };
  office: {
    render: OfficeRender;
    /** Largest main WordprocessingML part read. */
    maxPartBytes: number;
    /** Largest total of a workbook's sheet XML (cells are held in memory). */
    maxSheetXmlBytes: number;
    /** A LibreOffice conversion running longer is killed. */
    convertTimeoutMs: number;
  };
  gis: {
    /** Features inlined per job; the rest of a dataset goes to a result part. */
    maxInlineFeatures: number;
    /** Eligible layers through GDAL's FlatGeobuf writer (GeoJSON written in JS). */
    flatGeobuf: boolean;
  };
  /** Run the PDFium binary the build re-optimised, when it matches the installed package. */
  pdf: { optimizedPdfium: boolean };
  engines: EngineLocations;
}

const MiB = 1024 * 1024;

export const DEFAULT_ARCHIVE_LIMITS: ArchiveLimits = { maxBytes: 4 * 1024 ** 3, maxEntries: 20_000, maxRatio: 1000, maxDepth: 2 };

export const DEFAULT_PARSER_SETTINGS: ParserSettings = {
  archive: DEFAULT_ARCHIVE_LIMITS,
  memory: { maxBytes: 1024 * MiB },
  cad: { maxBytes: 256 * MiB },
  parquet: { maxRowGroupBytes: 512 * MiB },
  office: { render: 'always', maxPartBytes: 48 * MiB, maxSheetXmlBytes: 160 * MiB, convertTimeoutMs: 120_000 },
  gis: { maxInlineFeatures: 100_000, flatGeobuf: true },
  pdf: { optimizedPdfium: true },
  engines: { soffice: null, tessdataDir: null, tessdataPrefix: null, searchPath: [] },
};
