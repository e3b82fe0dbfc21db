// What each engine is for, as the health report says it. Which engines a document needs is
// declared by its family (src/formats/<family>/family.ts) and read through the registry
// (enginesNeeded).
import type { EngineName } from '../formats/kit/family.js';

export const ENGINE_USES: Record<EngineName, string> = {
  PDFium: 'PDF (every pdfMode)',
  Tesseract: 'PDF with pdfMode=Ocr (English model eng.traineddata)',
  LibreOffice: 'DOC, XLS, PPT, RTF, ODT, ODS and ODP (converted), DOCX page counts (rendered)',
  GDAL: 'GIS: shapefile, mapinfo, filegdb, geopackage, geojson, kml, kmz, gml, gpx, flatgeobuf',
  LibreDWG: 'DWG',
  hyparquet: 'Parquet',
};
