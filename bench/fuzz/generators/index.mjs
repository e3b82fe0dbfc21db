// Every family's generated seeds, so a clone without the shared corpus still fuzzes all eight.
import { csvSeeds } from './csv.mjs';
import { pdfSeeds } from './pdf.mjs';
import { officeSeeds } from './office.mjs';
import { emailSeeds } from './email.mjs';
import { sqlSeeds } from './sql.mjs';
import { gisSeeds } from './gis.mjs';
import { cadSeeds } from './cad.mjs';
import { parquetSeeds } from './parquet.mjs';
// Inputs that once lost content, over-billed or held a worker (issue 27), per family.
import { messageSeeds } from './messages.mjs';
import { officeHangSeeds } from './office-hangs.mjs';
import { pdfLieSeeds } from './pdf-lies.mjs';
import { parquetLieSeeds } from './parquet-lies.mjs';
import { sqlLargeSeeds } from './sql-large.mjs';

const BY_FAMILY = {
  csv: csvSeeds,
  pdf: () => [...pdfSeeds(), ...pdfLieSeeds()],
  office: () => [...officeSeeds(), ...officeHangSeeds()],
  email: emailSeeds,
  sql: () => [...sqlSeeds(), ...sqlLargeSeeds()],
  gis: gisSeeds,
  cad: cadSeeds,
  parquet: () => [...parquetSeeds(), ...parquetLieSeeds()],
};

/** {family: [{name, bytes, ...routing hints}]} for the given families. */
export function generatedSeeds(families) {
  const messages = messageSeeds();
  return Object.fromEntries(families.map((f) => [f, [...BY_FAMILY[f](), ...(messages[f] ?? [])]]));
}
