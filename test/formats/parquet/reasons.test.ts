// Parquet warnings and value errors are sentences (issue 27, item 7): "geo" metadata that is
// not JSON, or not GeoParquet's layout, and a WKB value cut short are explained in our words,
// never by JSON.parse's or DataView's own error; the file is read all the same.
import { describe, expect, it } from 'vitest';
import { geojsonToWkb, parquetWriteBuffer } from 'hyparquet-writer';
import { expectSentence, parseUpload } from '../reasons.js';

const POINT = { type: 'Point', coordinates: [2.35, 48.85] };

/** Two rows, a WKB geometry column, and `geo` as the file's "geo" key-value metadata. */
function geoParquet(geo: string, wkb: Uint8Array[]): Buffer {
  return Buffer.from(
    parquetWriteBuffer({
      columnData: [
        { name: 'city', data: ['Paris', 'Lyon'], type: 'STRING' },
        { name: 'geometry', data: wkb, type: 'BYTE_ARRAY' },
      ],
      codec: 'UNCOMPRESSED',
      kvMetadata: [{ key: 'geo', value: geo }],
    }),
  );
}

const GEO = JSON.stringify({ version: '1.0.0', primary_column: 'geometry', columns: { geometry: { encoding: 'WKB', geometry_types: ['Point'] } } });

async function parse(bytes: Buffer) {
  const { result, artifact } = await parseUpload(bytes, 'cities.parquet', 'parquet', { parquetMode: 'MetadataPlusRows' });
  expect(result.ok ? 'ok' : result.message).toBe('ok');
  return artifact!;
}

describe('Parquet reasons', () => {
  it('"geo" metadata that is not JSON: said so, without quoting JSON.parse', async () => {
    const a = await parse(geoParquet('{"version": "1.0.0", columns: }', [geojsonToWkb(POINT), geojsonToWkb(POINT)]));
    // The file is read (hyparquet alone refused it as a damaged footer); the geometries stay bytes.
    expect(a.content.rows.map((r: { city: string }) => r.city)).toEqual(['Paris', 'Lyon']);
    expect(a.warnings).toContain('the "geo" metadata is not valid JSON; GeoParquet columns are not decoded');
    for (const w of a.warnings) expectSentence(w);
  });

  it('"geo" metadata that is JSON but not GeoParquet’s layout: said so, not "Cannot read properties of null"', async () => {
    const a = await parse(geoParquet('{"version": "1.0.0", "columns": {"geometry": null}}', [geojsonToWkb(POINT), geojsonToWkb(POINT)]));
    expect(a.warnings).toContain('the "geo" metadata does not follow the GeoParquet layout (columns, encodings); GeoParquet columns are not decoded');
    for (const w of a.warnings) expectSentence(w);
  });

  it('a WKB value cut short keeps its bytes and says it ends early, not "Offset is outside the bounds of the DataView"', async () => {
    const whole = geojsonToWkb(POINT);
    const a = await parse(geoParquet(GEO, [whole, whole.subarray(0, 13)]));
    const [paris, lyon] = a.content.rows.map((r: { geometry: unknown }) => r.geometry);
    expect(paris).toEqual(POINT);
    expect(lyon).toEqual({ base64: Buffer.from(whole.subarray(0, 13)).toString('base64'), error: 'WKB: it ends before the geometry it describes' });
    expectSentence(lyon.error);
  });
});
