// The WKT reader on its own, plus Spatial edge cases built in a temp dir.
import { afterAll, describe, expect, it } from 'vitest';
import { parseWkt, parseGeoJsonGeometry, WktError, looksLikeWkt } from '../../../src/formats/csv/wkt.js';
import { removeTempFiles, runCsv, tempFile } from './helpers.js';

afterAll(removeTempFiles);

describe('WKT reader', () => {
  it('simple types', () => {
    expect(parseWkt('POINT (1 2)').geometry).toEqual({ type: 'Point', coordinates: [1, 2] });
    expect(parseWkt('linestring(0 0,1 1)').geometry).toEqual({
      type: 'LineString',
      coordinates: [
        [0, 0],
        [1, 1],
      ],
    });
    expect(parseWkt('POLYGON ((0 0, 1 0, 1 1, 0 0), (0.1 0.1, 0.2 0.1, 0.2 0.2, 0.1 0.1))').geometry).toMatchObject({
      type: 'Polygon',
      coordinates: [expect.any(Array), expect.any(Array)],
    });
  });

  it('Z, M and ZM (M is dropped), glued or spaced', () => {
    expect(parseWkt('POINT Z (1 2 3)').geometry).toEqual({ type: 'Point', coordinates: [1, 2, 3] });
    expect(parseWkt('POINTZ(1 2 3)').geometry).toEqual({ type: 'Point', coordinates: [1, 2, 3] });
    expect(parseWkt('POINT M (1 2 9)').geometry).toEqual({ type: 'Point', coordinates: [1, 2] });
    expect(parseWkt('POINT ZM (1 2 3 9)').geometry).toEqual({ type: 'Point', coordinates: [1, 2, 3] });
    expect(parseWkt('LINESTRING (1 2 3, 4 5 6)').geometry).toEqual({
      type: 'LineString',
      coordinates: [
        [1, 2, 3],
        [4, 5, 6],
      ],
    });
  });

  it('EMPTY at any level', () => {
    expect(parseWkt('POINT EMPTY').geometry).toBeNull();
    expect(parseWkt('POLYGON Z EMPTY').geometry).toBeNull();
    expect(parseWkt('GEOMETRYCOLLECTION EMPTY').geometry).toBeNull();
    expect(parseWkt('MULTIPOINT (EMPTY, (1 2))').geometry).toEqual({ type: 'MultiPoint', coordinates: [[1, 2]] });
    expect(parseWkt('GEOMETRYCOLLECTION (POINT EMPTY, POINT (1 2))').geometry).toEqual({
      type: 'GeometryCollection',
      geometries: [{ type: 'Point', coordinates: [1, 2] }],
    });
  });

  it('MULTI* and collections', () => {
    expect(parseWkt('MULTIPOINT (1 2, 3 4)').geometry).toEqual({
      type: 'MultiPoint',
      coordinates: [
        [1, 2],
        [3, 4],
      ],
    });
    expect(parseWkt('MULTIPOINT ((1 2), (3 4))').geometry).toEqual({
      type: 'MultiPoint',
      coordinates: [
        [1, 2],
        [3, 4],
      ],
    });
    expect(parseWkt('MULTILINESTRING ((0 0, 1 1), (2 2, 3 3))').geometry).toMatchObject({ type: 'MultiLineString' });
    expect(parseWkt('MULTIPOLYGON (((0 0, 1 0, 1 1, 0 0)), ((5 5, 6 5, 6 6, 5 5)))').geometry).toMatchObject({
      type: 'MultiPolygon',
      coordinates: [expect.any(Array), expect.any(Array)],
    });
    const gc = parseWkt('GEOMETRYCOLLECTION (POINT (1 2), LINESTRING (0 0, 1 1), GEOMETRYCOLLECTION (POINT (5 5)))').geometry;
    expect(gc).toMatchObject({ type: 'GeometryCollection', geometries: [{ type: 'Point' }, { type: 'LineString' }, { type: 'GeometryCollection' }] });
  });

  it('EWKT SRID prefix', () => {
    expect(parseWkt('SRID=3857;POINT (100 200)')).toEqual({ geometry: { type: 'Point', coordinates: [100, 200] }, srid: 3857 });
  });

  it('a half circle is linearised through its middle point', () => {
    const g = parseWkt('CIRCULARSTRING (-1 0, 0 1, 1 0)').geometry as any;
    expect(g.type).toBe('LineString');
    expect(g.coordinates[0]).toEqual([-1, 0]);
    expect(g.coordinates[g.coordinates.length - 1]).toEqual([1, 0]);
    expect(g.coordinates.length).toBeGreaterThan(40);
    for (const [x, y] of g.coordinates) {
      expect(Math.hypot(x, y)).toBeCloseTo(1, 9);
      expect(y).toBeGreaterThanOrEqual(-1e-9);
    }
  });

  it('CURVEPOLYGON and MULTISURFACE become polygons', () => {
    const g = parseWkt('CURVEPOLYGON (CIRCULARSTRING (0 0, 2 0, 0 0))').geometry as any;
    expect(g.type).toBe('Polygon');
    expect(g.coordinates[0].length).toBeGreaterThan(80);
    expect(parseWkt('MULTISURFACE (((0 0, 1 0, 1 1, 0 0)), CURVEPOLYGON ((0 0, 1 0, 1 1, 0 0)))').geometry).toMatchObject({
      type: 'MultiPolygon',
    });
  });

  it('malformed WKT throws WktError', () => {
    for (const bad of ['POINT (1)', 'POINT (1 2', 'POLYGON ((0 0, 1 1)) junk', 'BLOB (1 2)', 'POINT (a b)']) {
      expect(() => parseWkt(bad), bad).toThrow(WktError);
    }
  });

  it('sampling test recognises WKT and not plain text', () => {
    expect(looksLikeWkt('  multipolygon (((0 0, 1 1, 1 0, 0 0)))')).toBe(true);
    expect(looksLikeWkt('POINT EMPTY')).toBe(true);
    expect(looksLikeWkt('Point of sale')).toBe(false);
    expect(looksLikeWkt('Polygon Avenue 12')).toBe(false);
  });

  it('GeoJSON geometry cells', () => {
    expect(parseGeoJsonGeometry('{"type":"Point","coordinates":[1,2]}')).toEqual({ type: 'Point', coordinates: [1, 2] });
    expect(parseGeoJsonGeometry('{"type":"Feature","geometry":{"type":"LineString","coordinates":[[0,0],[1,1]]},"properties":{}}')).toMatchObject({
      type: 'LineString',
    });
    expect(() => parseGeoJsonGeometry('{"type":"Point","coordinates":["x",2]}')).toThrow(WktError);
  });
});

describe('Spatial edge cases', () => {
  it('invalid and empty geometries keep geometry null and are counted in a warning', async () => {
    const file = await tempFile('mixed.csv', 'id,geom\n1,POINT (10 20)\n2,POINT EMPTY\n3,POINT (oops)\n4,\n5,"LINESTRING (0 0, 30 40)"\n');
    const { content, outcome } = await runCsv(file, 'Spatial');
    expect(content.geometrySource).toEqual({ kind: 'wkt', column: 'geom' });
    expect(content.features.map((f: any) => f.geometry?.type ?? null)).toEqual(['Point', null, null, null, 'LineString']);
    expect(content.bounds).toEqual([0, 0, 30, 40]);
    expect(outcome.warnings.join(' ')).toMatch(/3 rows of 5 have no usable geometry \(1 missing, 1 empty, 1 invalid/);
  });

  it('a GeoJSON geometry column', async () => {
    const cell = (x: number, y: number): string => `"{""type"":""Point"",""coordinates"":[${x},${y}]}"`;
    const file = await tempFile('gj.csv', `name,shape\na,${cell(1, 2)}\nb,${cell(3, 4)}\n`);
    const { content } = await runCsv(file, 'Spatial');
    expect(content.geometrySource).toEqual({ kind: 'geojson', column: 'shape' });
    expect(content.bounds).toEqual([1, 2, 3, 4]);
    expect(content.features[1].properties).toEqual({ name: 'b' });
  });

  it('lon/lat pairs with prefixes pair by stem; out-of-range names are not taken', async () => {
    const file = await tempFile(
      'trips.csv',
      'trip,start_lat,start_lng,end_lat,end_lng,x,y\n1,40.1,-73.9,40.2,-74.0,500000,4500000\n2,40.3,-73.8,40.4,-73.7,500100,4500100\n',
    );
    const { content } = await runCsv(file, 'Spatial');
    expect(content.geometrySource).toEqual({ kind: 'lonlat', lonColumn: 'start_lng', latColumn: 'start_lat' });
    expect(content.features[0].properties).toMatchObject({ end_lat: 40.2, end_lng: -74, x: 500000 });
  });

  it('projected x/y columns alone are not taken as longitude/latitude', async () => {
    const file = await tempFile('xy.csv', 'id,x,y\n1,500000,4500000\n2,500100,4500100\n');
    await expect(runCsv(file, 'Spatial')).rejects.toThrow(/Columns: "id", "x", "y"/);
  });
});
