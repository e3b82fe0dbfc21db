// The FlatGeobuf route (GDAL writes FlatGeobuf, fgb.ts writes the GeoJSON text) must give the
// same artifact as GDAL's own GeoJSONSeq writer (DOCPARSE_GIS_FGB=0) on real corpus files that
// take it: field types (Real, Integer, Integer64, String, Boolean-less ints), 3D points and
// polygons, multipolygons with holes, MapInfo mixed geometry layers, Cyrillic strings.
// bench/gis/compare-fgb.mjs runs the same comparison on the whole corpus and the 100k bench zip.
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { corpusPath, parseFileWith } from '../../helpers/parse.js';
import { parserSettings } from '../../helpers/parser-settings.js';
import { fgbRouteStats, parseGis } from '../../../src/formats/gis/index.js';
import { fgbIneligible } from '../../../src/formats/gis/fgb.js';
import { formatCoord, formatReal } from '../../../src/formats/gis/geojson-numbers.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

/** `fgb`: the route on or off (DOCPARSE_GIS_FGB); `cap`: the inline cap (DOCPARSE_GIS_MAX_INLINE_FEATURES), else the default. */
async function artifact(file: string, format: string, fgb: boolean, cap?: number) {
  const settings = parserSettings({ gis: { flatGeobuf: fgb, ...(cap ? { maxInlineFeatures: cap } : {}) } });
  const r = await parseFileWith(parseGis, corpusPath('gis', file), format, {}, path.basename(file), settings);
  if (!r.ok) throw new Error(`${file}: ${r.code} ${r.message}`);
  return r.artifact;
}

// file, format, layers expected through FlatGeobuf
const CASES: [string, string, number][] = [
  ['shp_poly.zip', 'shapefile', 1], // Real, Integer64, String
  ['shp_naturalearth_lowres.zip', 'shapefile', 1], // Polygon layer holding MultiPolygons
  ['shp_zm_multipatch.zip', 'shapefile', 2], // PolygonZ (multipolygon, 3D) and PointZ
  ['fgdb_testopenfilegdb.gdb.zip', 'filegdb', 3], // several layers, int/real/string fields
  ['mapinfo_all_geoms_tab.zip', 'mapinfo', 1], // mixed geometry types in one layer
  ['mapinfo_win1251_tab.zip', 'mapinfo', 1], // Cyrillic strings
  ['shp_train_stations.zip', 'shapefile', 1],
];

describe('FlatGeobuf route gives the same features as GDAL GeoJSONSeq', () => {
  for (const [file, format, layers] of CASES) {
    it(file, async () => {
      const seq = await artifact(file, format, false);
      const before = fgbRouteStats.used;
      const fgb = await artifact(file, format, true);
      expect(fgbRouteStats.used - before).toBe(layers);
      // Same after JSON.parse, coordinates and extents included (the text may differ, e.g. 1 vs 1.0).
      expect(fgb.content).toEqual(seq.content);
      expect(fgb.warnings).toEqual(seq.warnings);
    });
  }

  it('3D coordinates and multipolygon rings survive', async () => {
    const a = await artifact('shp_zm_multipatch.zip', 'shapefile', true);
    const poly = a.content.datasets.find((d: any) => d.geometryType === 'PolygonZ');
    const g = poly.features[0].geometry;
    expect(g.type).toBe('MultiPolygon');
    expect(g.coordinates.length).toBeGreaterThan(1);
    expect(g.coordinates[0][0][0]).toHaveLength(3);
    const pt = a.content.datasets.find((d: any) => d.geometryType === 'PointZ');
    expect(pt.features[0].geometry.coordinates).toEqual([1, 2, 3]);
  });

  it('inline cap and result part behave the same', async () => {
    const seq = await artifact('shp_train_stations.zip', 'shapefile', false, 5);
    const fgb = await artifact('shp_train_stations.zip', 'shapefile', true, 5);
    expect(fgb.content.datasets[0].features).toHaveLength(5);
    expect(fgb.content).toEqual(seq.content);
  });
});

describe('FlatGeobuf route formatting and eligibility', () => {
  it('coordinates are rounded as GDAL prints %.7f (ties to even) and trims round-off', () => {
    expect(formatCoord(40.64453125)).toBe('40.6445312'); // exact tie: even digit
    expect(formatCoord(-106.69140625)).toBe('-106.6914062');
    expect(formatCoord(40.64453135)).toBe('40.6445314');
    expect(formatCoord(1234567.99999999)).toBe('1234568.0'); // intelliround 99999x
    expect(formatCoord(1 / 3)).toBe('0.3333333');
    expect(Number(formatCoord(2))).toBe(2);
  });

  it('reals read back as GDAL prints them (%.17g, shortened on 000000/999999 runs)', () => {
    expect(Number(formatReal(0.1 + 0.2))).toBe(0.3);
    expect(Number(formatReal(1 / 3))).toBe(1 / 3);
    expect(Number(formatReal(6000.5))).toBe(6000.5);
  });

  it('layers it cannot render identically stay on GDAL GeoJSONSeq', () => {
    const layer = (fields: any[], type = 'Polygon') => ({ fields, geometryFields: [{ type }] });
    expect(fgbIneligible(layer([{ type: 'Integer' }, { type: 'Real' }, { type: 'String' }, { type: 'Integer64' }]), 'ESRI Shapefile')).toBeNull();
    expect(fgbIneligible(layer([{ type: 'Date' }]), 'ESRI Shapefile')).toMatch(/Date/);
    expect(fgbIneligible(layer([{ type: 'Real', subType: 'Float32' }]), 'ESRI Shapefile')).toMatch(/Float32/);
    expect(fgbIneligible(layer([{ type: 'StringList' }]), 'OpenFileGDB')).toMatch(/StringList/);
    expect(fgbIneligible(layer([]), 'GeoJSON')).toMatch(/driver/);
    expect(fgbIneligible(layer([]), 'GPKG')).toMatch(/driver/);
    expect(fgbIneligible(layer([], 'LineStringM'), 'ESRI Shapefile')).toMatch(/geometry type/);
    expect(fgbIneligible(layer([], 'MultiSurface'), 'OpenFileGDB')).toMatch(/geometry type/);
    expect(fgbIneligible(layer([], 'Unknown (any)'), 'OpenFileGDB')).toMatch(/geometry type/);
  });
});
