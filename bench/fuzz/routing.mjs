// The upload parameters of a case: a file name with the extension its family expects and
// the family's routing parameters (csvRoute, pdfMode, sqlDialect, parquetMode, documentType
// for ZIP-based formats), drawn from the case's generator.

const ZIP_DOCUMENT_TYPES = {
  docx: 'Docx',
  docm: 'Docx',
  xlsx: 'Xlsx',
  xlsm: 'Xlsx',
  xlsb: 'Xlsx',
  pptx: 'Pptx',
  pptm: 'Pptx',
  odt: 'Odt',
  ods: 'Ods',
  odp: 'Odp',
  kmz: 'Kmz',
};
const SQL_DIALECTS = ['PostgreSql', 'MsSql', 'Snowflake', 'MySql', 'BigQuery', 'Sqlite', 'Oracle'];
// Ocr is slow (pages rendered at 300 DPI and recognised): kept rare.
const PDF_MODES = { SingleColumn: 40, MultiColumn: 30, Advanced: 26, Ocr: 4 };
const SPATIAL_HINT = /lonlat|wkt|geo|curve|tin|airport|zipcode|meridian|riot|allCountries/i;

function extOf(name) {
  const m = /\.([A-Za-z0-9]+)$/.exec(name);
  return m ? m[1].toLowerCase() : '';
}

/** The seed's own name, with an extension the detector maps to the seed's family. */
function uploadName(seed, index) {
  let name = seed.name.replace(/[^A-Za-z0-9._-]/g, '_');
  const ext = extOf(name);
  if (seed.family === 'csv' && ext !== 'csv' && ext !== 'tsv') name += '.csv';
  if (seed.family === 'gis' && ext === 'json') name = name.replace(/\.json$/i, '.geojson');
  return `c${index}_${name}`;
}

/** Query parameters for uploading this seed's mutation. */
export function routeFor(seed, rng, index) {
  const q = { fileName: uploadName(seed, index) };
  const ext = extOf(seed.name);
  switch (seed.family) {
    case 'csv':
      q.csvRoute = rng.chance(SPATIAL_HINT.test(seed.name) ? 0.7 : 0.3) ? 'Spatial' : 'Tabular';
      break;
    case 'pdf':
      q.pdfMode = rng.weighted(PDF_MODES);
      if (rng.chance(0.25)) q.chunkHints = 'true';
      break;
    case 'office':
      if (ZIP_DOCUMENT_TYPES[ext]) q.documentType = ZIP_DOCUMENT_TYPES[ext];
      if (rng.chance(0.25)) q.chunkHints = 'true';
      break;
    case 'sql':
      q.sqlDialect = seed.dialect && rng.chance(0.8) ? seed.dialect : rng.pick(SQL_DIALECTS);
      break;
    case 'gis':
      if (seed.documentType) q.documentType = seed.documentType;
      break;
    case 'parquet':
      // A seed may say which mode it is for (the declared-size lies are read only with rows).
      q.parquetMode = seed.parquetMode ?? (rng.chance(0.5) ? 'MetadataOnly' : 'MetadataPlusRows');
      break;
    default:
      break;
  }
  return q;
}
