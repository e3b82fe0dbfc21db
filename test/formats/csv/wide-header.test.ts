// A header wider than the dialect sample (100,002 columns, ~890 KB): it is still the header,
// the geometry columns are found by name, and the columns past the limit are dropped with a
// warning that says so.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { spatialCsvWideHeader } from '../../../bench/fuzz/generators/messages.mjs';
import { parseFile } from '../../helpers/parse.js';

async function parseBytes(bytes: Buffer, csvRoute: 'Spatial' | 'Tabular', fileName = 'wide.csv') {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dp-csv-wide-'));
  try {
    await fs.writeFile(path.join(dir, fileName), bytes);
    const r = await parseFile(path.join(dir, fileName), 'csv', { csvRoute }, fileName);
    if (!r.ok) throw new Error(r.message);
    return r.artifact;
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

describe('a CSV header wider than the detection sample', () => {
  it('Spatial: 100,002 columns keep their header; lat/lon are found by name', async () => {
    const a = await parseBytes(spatialCsvWideHeader(), 'Spatial');
    expect(a.metadata).toMatchObject({ hasHeader: true, rowCount: 2, columnCount: 100_000, featureCount: 2 });
    expect(a.content.geometrySource).toEqual({ kind: 'lonlat', lonColumn: 'lon', latColumn: 'lat' });
    expect(a.content.features[0].geometry).toEqual({ type: 'Point', coordinates: [2.3522, 48.8566] });
    expect(a.content.columns[2].name).toBe('c0');
    expect(a.warnings).toEqual(['Rows have more than 100000 fields: the fields past the 100000th of each row were dropped (6 fields in all).']);
  });

  it('Tabular, semicolons: a 1.2 MB header is read as the header, with its delimiter', async () => {
    const names = Array.from({ length: 40_000 }, (_, i) => `measurement_${i}`);
    const csv = `${names.join(';')}\n${names.map((_, i) => i).join(';')}\n`;
    const a = await parseBytes(Buffer.from(csv), 'Tabular');
    expect(a.metadata).toMatchObject({ hasHeader: true, delimiter: ';', rowCount: 1, columnCount: 40_000 });
    expect(a.content.columns[39_999]).toMatchObject({ name: 'measurement_39999', type: 'integer' });
    expect(a.warnings).toEqual([]);
  });
});
