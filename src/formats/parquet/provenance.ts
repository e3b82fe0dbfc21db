// Where a Parquet artifact's parts came from and what it left out (issue 32, items 3–4).
// Row groups are numbered from 0 as parquet tools number them, rows from 0 in file order; a
// row group's provenance carries the span of rows it holds, so a client can go from a row of
// `rows` to its row group and back without reading the footer itself.
import type { RowGroup } from 'hyparquet';
import type { CompletenessCounter } from '../kit/completeness.js';
import type { Provenance } from '../kit/provenance.js';

/** The first row of each row group and its row count, in file order (counts as the footer declares them). */
export function rowGroupSpans(groups: RowGroup[]): { first: number; rows: number }[] {
  let first = 0;
  return groups.map((g) => {
    const span = { first, rows: Number(g.num_rows) };
    first += span.rows;
    return span;
  });
}

/** `{ rowGroup, rows: [first, last] }`, the span left out when the group holds no row. */
export function rowGroupProvenance(within: Provenance | undefined, index: number, first: number, rows: number): Provenance {
  return rows > 0 ? { ...within, rowGroup: index, rows: [first, first + rows - 1] } : { ...within, rowGroup: index };
}

export const METADATA_ONLY_ROWS = 'parquetMode=MetadataOnly reads the footer only: the rows are not read (parquetMode=MetadataPlusRows reads them).';

/** MetadataOnly: every row group is described, every row is skipped as one run. */
export function countMetadataOnly(counter: CompletenessCounter, within: Provenance | undefined, spans: { rows: number }[]): void {
  counter.emitted('rowGroups', spans.length).kind('rows');
  const total = spans.reduce((a, s) => a + s.rows, 0);
  if (total > 0) counter.missed('rows', 'skipped', METADATA_ONLY_ROWS, { ...within, rows: [0, total - 1] }, total);
}
