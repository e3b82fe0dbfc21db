// Which engine each kind of document needs, and what each engine is for. One table for the
// upload refusal, the health report and the parsers' own failures.
import type { JobOptions } from '../formats/kit/options.js';
import { FORMATS } from '../formats/registry.js';
import type { OfficeRender } from '../formats/settings.js';

export const ENGINE_NAMES = ['PDFium', 'Tesseract', 'LibreOffice', 'GDAL', 'LibreDWG', 'hyparquet'] as const;
export type EngineName = (typeof ENGINE_NAMES)[number];

/** What each engine is used for, as the health report says it. */
export const ENGINE_USES: Record<EngineName, string> = {
  PDFium: 'PDF (every pdfMode)',
  Tesseract: 'PDF with pdfMode=Ocr (English model eng.traineddata)',
  LibreOffice: 'DOC, XLS, PPT, RTF, ODT, ODS and ODP (converted), DOCX page counts (rendered)',
  GDAL: 'GIS: shapefile, mapinfo, filegdb, geopackage, geojson, kml, kmz, gml, gpx, flatgeobuf',
  LibreDWG: 'DWG',
  hyparquet: 'Parquet',
};

/** Formats LibreOffice converts to OOXML before they are read. */
const CONVERTED_BY_LIBREOFFICE: ReadonlySet<string> = new Set(['doc', 'xls', 'ppt', 'rtf', 'odt', 'ods', 'odp']);

export interface EngineNeed {
  engine: EngineName;
  /** Completes "… is needed <why>", e.g. 'to read DOC documents'. */
  why: string;
}

/**
 * The engines a document of `format` with `options` needs on the node that parses it. A DOCX
 * needs LibreOffice only when every one is rendered (`officeRender` 'always',
 * DOCPARSE_OFFICE_RENDER): with "auto" most are not, and one that is fails on a node without
 * it (engine_unavailable).
 */
export function enginesNeeded(format: string, options: JobOptions, officeRender: OfficeRender): EngineNeed[] {
  if (format === 'pdf') {
    const needs: EngineNeed[] = [{ engine: 'PDFium', why: 'to read PDF documents' }];
    if (options.pdfMode === 'Ocr') needs.push({ engine: 'Tesseract', why: 'for pdfMode=Ocr' });
    return needs;
  }
  if (CONVERTED_BY_LIBREOFFICE.has(format)) return [{ engine: 'LibreOffice', why: `to read ${format.toUpperCase()} documents` }];
  if (format === 'docx' && officeRender === 'always') return [{ engine: 'LibreOffice', why: 'to count the pages of DOCX documents' }];
  if (FORMATS[format]?.family === 'gis') return [{ engine: 'GDAL', why: 'to read GIS documents' }];
  if (format === 'dwg') return [{ engine: 'LibreDWG', why: 'to read DWG drawings' }];
  if (format === 'parquet') return [{ engine: 'hyparquet', why: 'to read Parquet files' }];
  return [];
}
