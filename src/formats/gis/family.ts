// GIS vector datasets, all read through GDAL: the ZIP-packed ones (shapefile, MapInfo, FileGDB)
// and the single-file formats.
import type { FamilyDescriptor, FormatDescriptor } from '../kit/family.js';
import { GisContent } from './schema.js';

const load = async () => (await import('./index.js')).parseGis;

const formats: FormatDescriptor[] = [
  { format: 'shapefile', documentType: 'ShpZip', extensions: [], container: 'zip', zippedNames: [/\.shp\.zip$/i], load },
  { format: 'mapinfo', documentType: 'MapInfo', extensions: [], container: 'zip', zippedNames: [/\.(tab|mif)\.zip$/i], load },
  { format: 'filegdb', documentType: 'FileGdb', extensions: [], container: 'zip', zippedNames: [/\.gdb\.zip$/i], load },
  // Any SQLite database starts so; a documentType naming another format wins.
  {
    format: 'geopackage',
    documentType: 'GeoPackage',
    extensions: ['gpkg'],
    signatures: [{ prefix: 'SQLite format 3\0', weak: true }],
    zippedNames: [/\.gpkg\.zip$/i],
    load,
  },
  {
    format: 'geojson',
    documentType: 'GeoJson',
    extensions: ['geojson'],
    signatures: [{ text: /^\s*\{[\s\S]*"type"\s*:\s*"(FeatureCollection|Feature)"/ }],
    load,
  },
  {
    format: 'kml',
    documentType: 'Kml',
    extensions: ['kml'],
    signatures: [{ text: /^\s*<\?xml[^>]*>\s*(<!--[\s\S]*?-->\s*)*<kml[\s>]/i }, { text: /^\s*<kml[\s>]/i }],
    load,
  },
  { format: 'kmz', documentType: 'Kmz', extensions: ['kmz'], container: 'zip', load },
  {
    format: 'gml',
    documentType: 'Gml',
    extensions: ['gml'],
    signatures: [{ text: /^\s*(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*<(gml:FeatureCollection|wfs:FeatureCollection|ogr:FeatureCollection)[\s>]/ }],
    load,
  },
  { format: 'gpx', documentType: 'Gpx', extensions: ['gpx'], signatures: [{ text: /^\s*<\?xml[^>]*>\s*(<!--[\s\S]*?-->\s*)*<gpx[\s>]/i }], load },
  { format: 'flatgeobuf', documentType: 'FlatGeobuf', extensions: ['fgb'], signatures: [{ prefix: [0x66, 0x67, 0x62, 0x03] }], load },
];

export const gisFamily: FamilyDescriptor = {
  family: 'gis',
  title: 'GIS',
  docPage: 'gis.md',
  formats,
  routing: [],
  chunks: false,
  units: 'datasets (layers)',
  content: { name: 'GisContent', schema: GisContent },
  engines: () => [{ engine: 'GDAL', why: 'to read GIS documents' }],
  // A GIS ZIP may hold any vector format: the parser finds every dataset inside.
  zipHoldsAnyFormat: true,
};
