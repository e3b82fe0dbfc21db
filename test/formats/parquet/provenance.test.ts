// Parquet provenance and completeness (issue 32, items 3–4). On every corpus file: each row
// group's `provenance` names it and spans the rows its footer declares — read here from the
// footer by a Thrift reader of the test's own (footer-row-counts.ts), not hyparquet — and the
// completeness block's totals equal the artifact's content (row groups described, rows in
// `rows`) and the MANIFEST's footer ground truth. On a generated three-group file: rows'
// provenance per row group, a container's provenance carried through, and the rows a
// metadata-only read leaves out counted as skipped with the reason.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { parseParquet } from '../../../src/formats/parquet/index.js';
import { METADATA_ONLY_ROWS } from '../../../src/formats/parquet/provenance.js';
import { CORPUS_AVAILABLE, corpusPath, parseFileWith, readManifest, artifactOf } from '../../helpers/parse.js';
import { footerRowCounts } from './footer-row-counts.js';
import { expectCompletenessAddsUp } from '../../helpers/completeness.js';

type Mode = 'MetadataOnly' | 'MetadataPlusRows';

/** The rows `rowsProvenance` says `rows` holds: one span after the other, from row 0. */
function expectRowsCovered(c: Record<string, any>): void {
  let next = 0;
  for (const p of c.rowsProvenance) {
    expect(p.rows[0]).toBe(next);
    next = p.rows[1] + 1;
  }
  expect(next).toBe(c.rows.length);
}

const manifest = CORPUS_AVAILABLE ? await readManifest('parquet') : [];
const footers = manifest
  .map((r) => ({ file: r.file, m: /num_rows=(\d+) row_groups=(\d+) .*full read: hyparquet=(\S+)/.exec(r.ground_truth) }))
  .filter((x) => x.m)
  .map(({ file, m }) => ({ file, numRows: Number(m![1]), rowGroups: Number(m![2]), reads: m![3] !== 'ERR' }));

const parseCorpus = (file: string, mode: Mode) => parseFileWith(parseParquet, corpusPath('parquet', file), 'parquet', { parquetMode: mode });

describe.skipIf(!CORPUS_AVAILABLE)('Parquet completeness and row group provenance on every corpus file', () => {
  it('the corpus has footers to check', () => expect(footers.length).toBeGreaterThanOrEqual(40));

  for (const t of footers) {
    it(`${t.file}: MetadataOnly`, async () => {
      const a = artifactOf(await parseCorpus(t.file, 'MetadataOnly'));
      const counts = await footerRowCounts(corpusPath('parquet', t.file));
      expect(counts.length).toBe(t.rowGroups);
      let first = 0;
      a.content.rowGroups.forEach((g: any, i: number) => {
        expect(g.provenance).toEqual(counts[i] > 0 ? { rowGroup: i, rows: [first, first + counts[i] - 1] } : { rowGroup: i });
        first += counts[i];
      });
      expectCompletenessAddsUp(a.completeness);
      expect(a.completeness.rowGroups).toMatchObject({ found: t.rowGroups, emitted: a.content.rowGroups.length, failed: 0, skipped: 0 });
      // Rows found are what the row groups hold; the footer's own num_rows (the MANIFEST's) agrees
      // unless the parser said otherwise (pqt_repeated_no_annotation: 0 in the footer, 6 in its group).
      const held = counts.reduce((x, y) => x + y, 0);
      expect(a.completeness.rows).toMatchObject({ found: held, emitted: 0, skipped: held });
      if (held !== t.numRows) expect(a.warnings.join('\n')).toContain(`the footer says ${t.numRows} rows but its row groups hold ${held}`);
      expect(a.content.rows).toBeUndefined();
    });

    if (t.reads) {
      it(`${t.file}: MetadataPlusRows`, async () => {
        const a = artifactOf(await parseCorpus(t.file, 'MetadataPlusRows'));
        expectCompletenessAddsUp(a.completeness);
        expect(a.completeness.rowGroups).toMatchObject({ found: t.rowGroups, emitted: a.content.rowGroups.length });
        expect(a.completeness.rows.emitted).toBe(a.content.rows.length);
        expect(a.content.rowsWritten).toBe(a.content.rows.length);
        expectRowsCovered(a.content);
      });
    }
  }
});

describe('Parquet provenance on a generated file of three row groups', () => {
  let dir: string;
  let file: string;
  const within = { message: 2, attachment: [1], file: 'sales.parquet' };

  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dp-parquet-prov-'));
    file = path.join(dir, 'sales.parquet');
    const ids = Array.from({ length: 250 }, (_, i) => i);
    const bytes = parquetWriteBuffer({
      columnData: [
        { name: 'id', data: ids, type: 'INT32', nullable: false },
        { name: 'region', data: ids.map((i) => ['north', 'south', 'east'][i % 3]), type: 'STRING' },
      ],
      rowGroupSize: 100,
    });
    await fs.writeFile(file, Buffer.from(bytes));
  });
  afterAll(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  const parse = (mode: Mode, options: { within?: typeof within } = {}) =>
    parseFileWith(async (input, w) => parseParquet({ ...input, ...options }, w), file, 'parquet', { parquetMode: mode });

  it('MetadataPlusRows: each row group, and the rows read from it, say which rows of the file they are', async () => {
    const a = artifactOf(await parse('MetadataPlusRows'));
    expect(a.content.rowGroups.map((g: any) => g.provenance)).toEqual([
      { rowGroup: 0, rows: [0, 99] },
      { rowGroup: 1, rows: [100, 199] },
      { rowGroup: 2, rows: [200, 249] },
    ]);
    expect(a.content.rowsProvenance).toEqual(a.content.rowGroups.map((g: any) => g.provenance));
    // the row the provenance points at is the row of the file
    expect(a.content.rows[150]).toEqual({ id: 150, region: 'north' });
    expect(a.completeness).toEqual({
      complete: true,
      rowGroups: { found: 3, emitted: 3, empty: 0, failed: 0, skipped: 0, gaps: [] },
      rows: { found: 250, emitted: 250, empty: 0, failed: 0, skipped: 0, gaps: [] },
    });
  });

  it('MetadataOnly: the rows are skipped, counted and given the reason; the row groups are described', async () => {
    const a = artifactOf(await parse('MetadataOnly'));
    expect(a.content.rowsProvenance).toBeUndefined();
    expect(a.completeness.complete).toBe(false);
    expect(a.completeness.rowGroups).toMatchObject({ found: 3, emitted: 3 });
    expect(a.completeness.rows).toEqual({
      found: 250,
      emitted: 0,
      empty: 0,
      failed: 0,
      skipped: 250,
      gaps: [{ outcome: 'skipped', reason: METADATA_ONLY_ROWS, provenance: { rows: [0, 249] } }],
    });
  });

  it('inside an e-mail: every provenance starts from where the file sits in the upload', async () => {
    const a = artifactOf(await parse('MetadataPlusRows', { within }));
    expect(a.content.rowGroups[1].provenance).toEqual({ ...within, rowGroup: 1, rows: [100, 199] });
    expect(a.content.rowsProvenance[2]).toEqual({ ...within, rowGroup: 2, rows: [200, 249] });
    const skipped = artifactOf(await parse('MetadataOnly', { within }));
    expect(skipped.completeness.rows.gaps[0].provenance).toEqual({ ...within, rows: [0, 249] });
  });
});
