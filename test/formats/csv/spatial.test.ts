// Spatial route on the real corpus: lon/lat pairs, WKT columns (incl. curves and TINs),
// headerless GeoNames, and the refusal of a file without geometry.
import { describe, expect, it } from 'vitest';
import { corpusFile, readManifest, runCsv } from './helpers.js';
import { ExtractionError } from '../../../src/formats/kit/types.js';

const manifest = new Map(readManifest().map((m) => [m.file, m]));

/** Bounds computed independently with Python's csv module (min/max of the lon/lat columns). */
const LONLAT: Array<{ file: string; lon: string; lat: string; bounds: number[] }> = [
  { file: 'csvkit_test_geo.csv', lon: 'longitude', lat: 'latitude', bounds: [-95.334619, 32.299076986939205, -95.250699, 32.351434] },
  { file: 'vega_airports.csv', lon: 'longitude', lat: 'latitude', bounds: [-176.6460306, -14.33102278, 145.7686111, 71.2854475] },
  { file: 'vega_la-riots.csv', lon: 'longitude', lat: 'latitude', bounds: [-118.4717452, 33.7898575, -117.7306469, 34.287098] },
  { file: 'vega_zipcodes.csv', lon: 'longitude', lat: 'latitude', bounds: [-176.787412, -7.209975, 166.410291, 70.494693] },
];

describe('Spatial: longitude/latitude columns', () => {
  for (const t of LONLAT) {
    const m = manifest.get(t.file)!;
    it(`${t.file}: ${m.rows} Point features (MANIFEST geom=${m.geom})`, async () => {
      const { content, outcome } = await runCsv(corpusFile(t.file), 'Spatial');
      expect(m.geom).toBe('Point');
      expect(content.geometrySource).toEqual({ kind: 'lonlat', lonColumn: t.lon, latColumn: t.lat });
      expect(content.crs).toBe('EPSG:4326');
      expect(content.featureCount).toBe(m.rows);
      expect(content.features).toHaveLength(m.rows!);
      expect(content.bounds).toEqual(t.bounds);
      expect(content.geometryTypes).toEqual({ Point: m.rows });
      expect(outcome.metadata.featureCount).toBe(m.rows);
      expect(outcome.documentUnits).toBe(1);
      const f = content.features[0];
      expect(f.type).toBe('Feature');
      expect(f.geometry.type).toBe('Point');
      // Geometry columns are not repeated in properties; the other columns are typed.
      expect(Object.keys(f.properties)).not.toContain(t.lon);
      expect(Object.keys(f.properties)).toHaveLength(m.fields! - 2);
      const roles = content.columns.filter((c: any) => c.role).map((c: any) => [c.name, c.role]);
      expect(roles).toEqual(
        expect.arrayContaining([
          [t.lon, 'longitude'],
          [t.lat, 'latitude'],
        ]),
      );
    });
  }

  it('zipcodes: properties keep zip codes as strings', async () => {
    const { content } = await runCsv(corpusFile('vega_zipcodes.csv'), 'Spatial');
    expect(content.features[0]).toEqual({
      type: 'Feature',
      geometry: { type: 'Point', coordinates: [-72.637078, 40.922326] },
      properties: { zip_code: '00501', city: 'Holtsville', state: 'NY', county: 'Suffolk' },
      provenance: { rows: [1, 1] },
    });
  });

  it('la-riots: typed properties next to free text', async () => {
    const { content } = await runCsv(corpusFile('vega_la-riots.csv'), 'Spatial');
    expect(content.features[0].properties).toMatchObject({ first_name: 'Cesar A.', age: 18, death_date: '1992-04-30' });
  });

  it('GeoNames without header: lat/lon found by value ranges (10 points)', async () => {
    const { content, outcome } = await runCsv(corpusFile('gdal_allCountries.txt'), 'Spatial');
    expect(manifest.get('gdal_allCountries.txt')).toMatchObject({ rows: 10, geom: 'Point' });
    expect(content.geometrySource).toEqual({ kind: 'lonlat', lonColumn: 'column_6', latColumn: 'column_5' });
    expect(content.featureCount).toBe(10);
    expect(content.bounds).toEqual([1.44986, 42.5, 1.68333, 42.56667]);
    expect(content.features[0].geometry.coordinates).toEqual([1.48333, 42.5]);
    expect(outcome.warnings.join(' ')).toMatch(/no header/);
  });

  it('census excerpt: INTPTLON/INTPTLAT are recognised by their suffixes', async () => {
    const { content } = await runCsv(corpusFile('csvkit_ilgeo2010_excerpt.csv'), 'Spatial');
    expect(content.geometrySource).toEqual({ kind: 'lonlat', lonColumn: 'INTPTLON', latColumn: 'INTPTLAT' });
    expect(content.featureCount).toBe(1000);
  });
});

describe('Spatial: WKT columns', () => {
  it('gdal_wkt.csv: 3 polygons and their bounds', async () => {
    const { content, outcome } = await runCsv(corpusFile('gdal_wkt.csv'), 'Spatial');
    expect(content.geometrySource).toEqual({ kind: 'wkt', column: 'WKT' });
    expect(content.featureCount).toBe(manifest.get('gdal_wkt.csv')!.rows);
    expect(content.bounds).toEqual([1.001, 1.001, 7.25, 6.25]);
    expect(content.geometryTypes).toEqual({ Polygon: 3 });
    expect(content.features[0]).toEqual({
      type: 'Feature',
      geometry: {
        type: 'Polygon',
        coordinates: [
          [
            [6.25, 1.25],
            [7.25, 1.25],
            [7.25, 2.25],
            [6.25, 2.25],
            [6.25, 1.25],
          ],
        ],
      },
      properties: { Counter: 1, Desc: null },
      provenance: { rows: [1, 1] },
    });
    expect(outcome.warnings).toEqual([]);
  });

  it('fiona_curves_line.csv: MULTICURVE / COMPOUNDCURVE / CIRCULARSTRING are linearised', async () => {
    const { content } = await runCsv(corpusFile('fiona_curves_line.csv'), 'Spatial');
    expect(content.featureCount).toBe(9);
    expect(content.geometryTypes).toEqual({ MultiLineString: 9 });
    for (const f of content.features) {
      expect(f.geometry).not.toBeNull();
      expect(typeof f.properties.SHAPE_Length).toBe('number');
    }
    // The WKT's own vertices all lie inside the reported bounds (arcs may bulge further).
    const text = (await import('node:fs')).readFileSync(corpusFile('fiona_curves_line.csv'), 'utf8');
    const nums = [...text.matchAll(/(-?\d+\.?\d*) (-?\d+\.?\d*)/g)].map((m) => [Number(m[1]), Number(m[2])]);
    const [minX, minY, maxX, maxY] = content.bounds;
    for (const [x, y] of nums) {
      expect(x).toBeGreaterThanOrEqual(minX);
      expect(x).toBeLessThanOrEqual(maxX);
      expect(y).toBeGreaterThanOrEqual(minY);
      expect(y).toBeLessThanOrEqual(maxY);
    }
    expect(maxY).toBe(48.4878);
    // A circular arc yields many interpolated points.
    expect(content.features[2].geometry.coordinates[0].length).toBeGreaterThan(20);
  });

  it('fiona_test_tin.csv: TIN, TRIANGLE and a collection of them, with Z', async () => {
    const { content } = await runCsv(corpusFile('fiona_test_tin.csv'), 'Spatial');
    expect(content.featureCount).toBe(3);
    expect(content.features.map((f: any) => f.geometry.type)).toEqual(['MultiPolygon', 'Polygon', 'GeometryCollection']);
    expect(content.features[1].geometry.coordinates).toEqual([
      [
        [0, 0, 0],
        [0, 1, 0],
        [1, 1, 0],
        [0, 0, 0],
      ],
    ]);
    expect(content.bounds).toEqual([0, 0, 1, 1]);
  });

  it('gdal_csv_with_utf8_bom.csv: WKT in an unnamed extra field, projected coordinates flagged', async () => {
    const { content, outcome } = await runCsv(corpusFile('gdal_csv_with_utf8_bom.csv'), 'Spatial');
    expect(content.geometrySource).toEqual({ kind: 'wkt', column: 'column_4' });
    expect(content.featureCount).toBe(2);
    expect(content.bounds).toEqual([1205949.55535, 4852284.8976, 1208242.531016, 4853065.413164]);
    expect(content.features[0].properties).toEqual({ id: 426, name: 'Colac Bay/Ōraka', WKT: 'LOC' });
    const w = outcome.warnings.join(' ');
    expect(w).toMatch(/field 4/);
    expect(w).toMatch(/projected CRS/);
  });
});

describe('Spatial: no geometry', () => {
  it('a non-spatial file fails with the reason and the column list', async () => {
    const err = await runCsv(corpusFile('vega_seattle-weather.csv'), 'Spatial').catch((e) => e);
    expect(err).toBeInstanceOf(ExtractionError);
    expect(err.code).toBe('extraction_failed');
    expect(err.message).toMatch(/no longitude\/latitude column pair and no geometry column/);
    expect(err.message).toContain('"date", "precipitation", "temp_max", "temp_min", "wind", "weather"');
  });

  it('an empty file fails on the Spatial route', async () => {
    await expect(runCsv(corpusFile('csvkit_empty.csv'), 'Spatial')).rejects.toThrow(/no longitude\/latitude/);
  });
});
