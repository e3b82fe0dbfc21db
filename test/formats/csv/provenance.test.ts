// CSV provenance and completeness (issue 32, items 3–4): the content's row span and each
// Spatial feature's row; the rows read against python3's csv module for every corpus file;
// completeness totals against the content for every corpus file and route; generated files
// whose geometries cannot be read showing as failed features with their row and why.
import { afterAll, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { Value } from '@sinclair/typebox/value';
import { ExtractionError } from '../../../src/formats/kit/types.js';
import { CsvContent } from '../../../src/formats/csv/schema.js';
import { CORPUS_AVAILABLE } from '../../helpers/parse.js';
import { corpusFile, readManifest, removeTempFiles, runCsv, tempFile } from './helpers.js';

afterAll(removeTempFiles);

const manifest = CORPUS_AVAILABLE ? readManifest() : [];
const hasPython = spawnSync('python3', ['--version']).status === 0;

/** Rows found = emitted = what the content holds, its provenance spanning them; the content valid against its published schema. */
function expectRowTotals(content: any, outcome: any, held: unknown[]): void {
  expect(Value.Check(CsvContent, content), JSON.stringify([...Value.Errors(CsvContent, content)].slice(0, 3))).toBe(true);
  const t = outcome.completeness.rows;
  expect([t.found, t.emitted, t.failed, t.skipped, t.gaps]).toEqual([held.length, held.length, 0, 0, []]);
  expect(outcome.metadata.rowCount).toBe(held.length);
  expect(content.provenance).toEqual(held.length ? { rows: [1, held.length] } : {});
}

/** Features: found = emitted + failed; a null geometry is an empty feature or a failed one, each failed one listed with its row. */
function expectFeatureTotals(content: any, outcome: any): void {
  const t = outcome.completeness.features;
  const features = content.features;
  expect(t.found).toBe(t.emitted + t.failed + t.skipped);
  expect([t.found, t.skipped]).toEqual([features.length, 0]);
  const nullGeometry = features.filter((f: any) => f.geometry === null).length;
  expect(t.empty + t.failed).toBe(nullGeometry);
  expect(t.gaps.length).toBe(Math.min(100, t.failed));
  for (const g of t.gaps) {
    const [row] = g.provenance.rows;
    expect(features[row - 1].geometry, g.reason).toBeNull();
    expect(features[row - 1].provenance).toEqual(g.provenance);
  }
  features.forEach((f: any, i: number) => expect(f.provenance).toEqual({ rows: [i + 1, i + 1] }));
  expect(outcome.completeness.complete).toBe(t.failed === 0);
}

describe.skipIf(!CORPUS_AVAILABLE)('csv corpus: completeness of every file', () => {
  for (const m of manifest) {
    it(`${m.file}: Tabular, and Spatial where it finds a geometry`, async () => {
      let tabular;
      try {
        tabular = await runCsv(corpusFile(m.file));
      } catch (e) {
        // Files the parser refuses (binary): no artifact, so no completeness block.
        expect(e).toBeInstanceOf(ExtractionError);
        return;
      }
      expectRowTotals(tabular.content, tabular.outcome, tabular.content.rows);
      const spatial = await runCsv(corpusFile(m.file), 'Spatial').catch((e) => e);
      if (spatial instanceof ExtractionError) return;
      if (spatial instanceof Error) throw spatial;
      expectRowTotals(spatial.content, spatial.outcome, spatial.content.features);
      expectFeatureTotals(spatial.content, spatial.outcome);
    });
  }
});

// python3's csv module reads each file with the dialect we detected (encoding, delimiter,
// quote): the data records it finds (blank lines are not records), less the header.
const PY_COUNT = `
import csv, json, sys
out = {}
for f in json.load(sys.stdin):
    enc = {'utf-8': 'utf-8-sig', 'utf-16le': 'utf-16', 'utf-16be': 'utf-16'}.get(f['encoding'], f['encoding']) if f['bom'] else f['encoding']
    with open(f['path'], newline='', encoding=enc, errors='replace') as fh:
        text = fh.read().replace('\\0', '')
    import io
    records = [r for r in csv.reader(io.StringIO(text, newline=''), delimiter=f['delimiter'], quotechar=f['quote']) if r]
    out[f['name']] = len(records) - (1 if f['header'] else 0)
print(json.dumps(out))
`;

describe.skipIf(!CORPUS_AVAILABLE || !hasPython)('csv rows against python3’s csv module', () => {
  it('every corpus CSV: the rows read are the records python’s csv module reads', async () => {
    const ours: Record<string, number> = {};
    const files = [];
    for (const m of manifest) {
      const r = await runCsv(corpusFile(m.file)).catch((e) => e);
      if (r instanceof ExtractionError) continue;
      const md = r.outcome.metadata;
      // Eurostat TSV: one record is one row too, its columns expanded.
      ours[m.file] = r.outcome.completeness.rows.found;
      files.push({
        name: m.file,
        path: corpusFile(m.file),
        encoding: md.encoding,
        bom: md.bom,
        delimiter: md.delimiter,
        quote: md.quoteChar,
        header: md.hasHeader,
      });
    }
    expect(files.length).toBeGreaterThanOrEqual(28);
    const py = JSON.parse(execFileSync('python3', ['-c', PY_COUNT], { input: JSON.stringify(files) }).toString());
    expect(ours).toEqual(py);
  });
});

describe('csv provenance and completeness on generated files', () => {
  it('Tabular: ragged rows are all emitted; the content spans rows 1…N within its container', async () => {
    const f = await tempFile('ragged.csv', 'a,b,c\n1,2,3\n4,5\n\n6,7,8,9\n10,11,12\n');
    const within = { message: 2, attachment: [1], file: 'ragged.csv' };
    const { content, outcome } = await runCsv(f, 'Tabular', { within });
    expect(content.provenance).toEqual({ ...within, rows: [1, 4] });
    expect(content.rows).toHaveLength(4);
    expect(outcome.completeness).toEqual({ complete: true, rows: { found: 4, emitted: 4, empty: 0, failed: 0, skipped: 0, gaps: [] } });
    // Nothing vanished: the ragged rows are in the warning, their values kept.
    expect(outcome.warnings.join(' ')).toMatch(/2 rows of 4 have a different number of fields/);
  });

  it('Spatial WKT: an unreadable geometry is a failed feature with its row and why; a blank one an empty feature', async () => {
    const csv = ['id,WKT', '1,POINT (1 2)', '2,POINT (1 2', '3,', '4,POLYGON EMPTY', '5,CIRCLE (0 0)', '6,"LINESTRING (0 0, 1 1)"'].join('\n');
    const f = await tempFile('wkt.csv', csv);
    const { content, outcome } = await runCsv(f, 'Spatial', { within: { file: 'wkt.csv' } });
    expect(content.features.map((x: any) => x.provenance)).toEqual([1, 2, 3, 4, 5, 6].map((r) => ({ file: 'wkt.csv', rows: [r, r] })));
    const t = outcome.completeness.features;
    expect([t.found, t.emitted, t.empty, t.failed, t.skipped, outcome.completeness.complete]).toEqual([6, 4, 2, 2, 0, false]);
    expect(t.gaps.map((g: any) => [g.outcome, g.provenance.rows[0]])).toEqual([
      ['failed', 2],
      ['failed', 5],
    ]);
    expect(t.gaps[0].reason).toMatch(/^The WKT geometry could not be read: expected .+\. The feature is kept with geometry null\.$/);
    expect(t.gaps[1].reason).toMatch(/^The WKT geometry could not be read: unknown geometry type CIRCLE .*\. The feature is kept with geometry null\.$/);
    expect(outcome.completeness.rows).toMatchObject({ found: 6, emitted: 6, failed: 0 });
    expect(content.provenance).toEqual({ file: 'wkt.csv', rows: [1, 6] });
  });

  it('Spatial lon/lat: a value that is not a number (NA in a numeric column) is a failed feature, with the values', async () => {
    // A lon/lat pair is only taken when every numeric value is in range, so a failed point is
    // one whose value the column's type reads as null (NA, N/A, NULL …) but is not blank.
    const csv = ['name,lon,lat', 'a,10,20', 'b,,', 'c,NA,5', 'e,-3.5,40.25'].join('\n');
    const f = await tempFile('points.csv', csv);
    const { content, outcome } = await runCsv(f, 'Spatial');
    expectFeatureTotals(content, outcome);
    const t = outcome.completeness.features;
    expect([t.found, t.emitted, t.empty, t.failed]).toEqual([4, 3, 1, 1]);
    expect(t.gaps).toEqual([
      {
        outcome: 'failed',
        reason: 'The longitude or latitude is not a number ("NA", "5"). The feature is kept with geometry null.',
        provenance: { rows: [3, 3] },
      },
    ]);
  });
});
