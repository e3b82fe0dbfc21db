// Every family's generated seeds, so a clone without the shared corpus still fuzzes all eight.
import { csvSeeds } from './csv.mjs';
import { pdfSeeds } from './pdf.mjs';
import { officeSeeds } from './office.mjs';
import { emailSeeds } from './email.mjs';
import { sqlSeeds } from './sql.mjs';
import { gisSeeds } from './gis.mjs';
import { cadSeeds } from './cad.mjs';
import { parquetSeeds } from './parquet.mjs';

const BY_FAMILY = { csv: csvSeeds, pdf: pdfSeeds, office: officeSeeds, email: emailSeeds, sql: sqlSeeds, gis: gisSeeds, cad: cadSeeds, parquet: parquetSeeds };

/** {family: [{name, bytes, ...routing hints}]} for the given families. */
export function generatedSeeds(families) {
  return Object.fromEntries(families.map((f) => [f, BY_FAMILY[f]()]));
}
