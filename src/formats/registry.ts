// Every format the service knows: how it is recognised, which family parses it, which
// routing parameters it needs, and which lane it runs in. The worker thread loads parsers
// from here lazily, so a thread only pays for the engines it uses.
import type { FormatParser } from './kit/types.js';
import type { JobOptions, Lane } from './kit/options.js';

export type Family = 'pdf' | 'office' | 'email' | 'sql' | 'gis' | 'cad' | 'csv' | 'parquet';

export interface FormatInfo {
  format: string;
  family: Family;
  /** Loads the parser inside a worker thread; absent while the family is not built yet. */
  load?: () => Promise<FormatParser>;
}

const csv: FormatInfo = { format: 'csv', family: 'csv', load: async () => (await import('./csv/index.js')).parseCsv };
const gis = async () => (await import('./gis/index.js')).parseGis;
const gisFormat = (format: string): FormatInfo => ({ format, family: 'gis', load: gis });

/** Formats by concrete name (artifact document_format). */
export const FORMATS: Record<string, FormatInfo> = {
  csv,
  pdf: { format: 'pdf', family: 'pdf', load: async () => (await import('./pdf/index.js')).parsePdf },
  docx: { format: 'docx', family: 'office', load: async () => (await import('./office/index.js')).parseDocx },
  xlsx: { format: 'xlsx', family: 'office', load: async () => (await import('./office/index.js')).parseXlsx },
  pptx: { format: 'pptx', family: 'office', load: async () => (await import('./office/index.js')).parsePptx },
  odt: { format: 'odt', family: 'office', load: async () => (await import('./office/index.js')).parseOdt },
  ods: { format: 'ods', family: 'office', load: async () => (await import('./office/index.js')).parseOds },
  odp: { format: 'odp', family: 'office', load: async () => (await import('./office/index.js')).parseOdp },
  rtf: { format: 'rtf', family: 'office', load: async () => (await import('./office/index.js')).parseRtf },
  doc: { format: 'doc', family: 'office', load: async () => (await import('./office/index.js')).parseDoc },
  xls: { format: 'xls', family: 'office', load: async () => (await import('./office/index.js')).parseXls },
  ppt: { format: 'ppt', family: 'office', load: async () => (await import('./office/index.js')).parsePpt },
  eml: { format: 'eml', family: 'email', load: async () => (await import('./email/index.js')).parseEml },
  msg: { format: 'msg', family: 'email', load: async () => (await import('./email/index.js')).parseMsg },
  mbox: { format: 'mbox', family: 'email', load: async () => (await import('./email/index.js')).parseMbox },
  pst: { format: 'pst', family: 'email', load: async () => (await import('./email/index.js')).parsePst },
  sql: { format: 'sql', family: 'sql', load: async () => (await import('./sql/index.js')).parseSql },
  shapefile: gisFormat('shapefile'),
  mapinfo: gisFormat('mapinfo'),
  filegdb: gisFormat('filegdb'),
  geopackage: gisFormat('geopackage'),
  geojson: gisFormat('geojson'),
  kml: gisFormat('kml'),
  kmz: gisFormat('kmz'),
  gml: gisFormat('gml'),
  gpx: gisFormat('gpx'),
  flatgeobuf: gisFormat('flatgeobuf'),
  dwg: { format: 'dwg', family: 'cad', load: async () => (await import('./cad/index.js')).parseDwg },
  dxf: { format: 'dxf', family: 'cad', load: async () => (await import('./cad/index.js')).parseDxf },
  parquet: { format: 'parquet', family: 'parquet', load: async () => (await import('./parquet/index.js')).parseParquet },
};

/** Families whose parser is built; uploads of other families are refused with 415. */
export function isSupported(format: string): boolean {
  return FORMATS[format]?.load !== undefined;
}

export function supportedFormats(): string[] {
  return Object.values(FORMATS).filter((f) => f.load).map((f) => f.format);
}

/** OCR and Advanced PDF are heavy: they run in the bounded heavy lane (states 6/7). */
export function laneFor(format: string, options: JobOptions): Lane {
  if (format === 'pdf' && (options.pdfMode === 'Ocr' || options.pdfMode === 'Advanced')) return 'heavy';
  return 'light';
}
