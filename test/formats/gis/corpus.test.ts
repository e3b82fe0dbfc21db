// The GIS parser on every real file of the corpus's gis folder, against MANIFEST.tsv's ground truth:
// layer names, geometry types, feature counts and CRS (EPSG code or name) from native
// `ogrinfo` (GDAL 3.6.2), and the layer list of gdal3.js (GDAL 3.8.4, the engine we run).
import { describe, expect, it, vi } from 'vitest';
import { corpusPath, parseFileWith, readManifest } from '../../helpers/parse.js';
import { parseGis } from '../../../src/formats/gis/index.js';
import { contentErrors, formatOf, jsonGeometryType, parseTruth, type Truth } from './helpers.js';

// GDAL start-up (1–3 s, more on a loaded machine) falls in the first test of the file.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const rows = (await readManifest('gis')).filter((r) => !r.file.startsWith('bad_'));

/** Files where native ogrinfo used another driver or failed; the gdal3.js list is the truth there. */
const NATIVE_NOT_COMPARABLE = new Set([
  'kml_samples.kml', // native used LIBKML (10 layers incl. empty folders); GDAL's KML driver reports the 6 non-empty ones
  'kml_several_schema_in_layer.kml', // LIBKML names the layer after the file, KML says "Layer #0"
  'mapinfo_all_possible_fields.zip', // v900 TAB/MIF: GDAL 3.6 cannot open them
]);

function inWgs84(coords: unknown): boolean {
  if (!Array.isArray(coords)) return true;
  if (typeof coords[0] === 'number') return Math.abs(coords[0]) <= 180.000001 && Math.abs(coords[1] as number) <= 90.000001;
  return coords.every(inWgs84);
}

function geometryInWgs84(g: any): boolean {
  if (!g) return true;
  if (g.type === 'GeometryCollection') return (g.geometries ?? []).every(geometryInWgs84);
  return inWgs84(g.coordinates);
}

describe('GIS corpus vs MANIFEST', () => {
  it.each(rows.map((r) => [r.file, r] as const))('%s', async (file, row) => {
    const truth: Truth = parseTruth(row);
    const r = await parseFileWith(parseGis, corpusPath('gis', file), formatOf(file));
    if (!r.ok) throw new Error(`${file}: ${r.code} ${r.message}`);
    const a = r.artifact;
    const c = a.content;
    expect(contentErrors(c)).toEqual([]);
    expect(a.document_format).toBe(formatOf(file));

    // Units = layers, each counted once.
    const expectedLayers = truth.wasmLayers!;
    expect(expectedLayers).toBeGreaterThan(0);
    expect(c.datasets.length).toBe(expectedLayers);
    expect(c.datasetCount).toBe(expectedLayers);
    expect(a.documentUnits).toBe(expectedLayers);
    const keys = c.datasets.map((d: any) => `${d.source}\u0000${d.name}`);
    expect(new Set(keys).size).toBe(keys.length);

    // gdal3.js ground truth: names and counts (as a multiset; the list may be cut short).
    const ours = c.datasets.map((d: any) => `${d.name}:${d.featureCount}`).sort();
    const theirs = truth.wasm.map((w) => `${w.name}:${w.count}`).sort();
    if (theirs.length === expectedLayers) expect(ours).toEqual(theirs);
    else for (const t of theirs) expect(ours).toContain(t);

    // Native ground truth: name, geometry type, feature count, CRS per layer.
    if (!NATIVE_NOT_COMPARABLE.has(file)) {
      if (!truth.nativeTruncated) expect(c.datasets.length).toBe(truth.nativeLayers);
      expect(truth.native.length).toBeGreaterThan(0);
      for (const t of truth.native) {
        const matches = c.datasets.filter((d: any) => d.name === t.name && (t.member === null || d.source === t.member));
        expect(matches, `${t.member ?? ''} ${t.name}`).toHaveLength(1);
        const d = matches[0];
        expect(d.geometryType, t.name).toBe(jsonGeometryType(t.geometryType));
        if (t.count !== null) expect(d.featureCount, t.name).toBe(t.count);
        if (t.crs === 'noCRS') expect(d.crs, t.name).toBeNull();
        else if (t.crs.startsWith('EPSG:')) expect(d.crs?.epsg, t.name).toBe(Number(t.crs.slice(5)));
        else {
          expect(d.crs?.name, t.name).toBe(t.crs.slice(4));
          expect(d.crs?.epsg, t.name).toBeNull();
        }
      }
    }

    for (const d of c.datasets) {
      expect(d.features.length).toBe(d.featuresInlined);
      expect(d.featuresInlined + d.featuresOmitted).toBeLessThanOrEqual(d.featureCount);
      if (d.featuresCrs === 'EPSG:4326') {
        for (const f of d.features) expect(geometryInWgs84(f.geometry), `${d.name} feature outside lon/lat range`).toBe(true);
        if (d.featuresInlined > 0 && d.features.some((f: any) => f.geometry)) expect(d.extent.wgs84).not.toBeNull();
      }
      if (d.crs) {
        expect(d.crs.wkt.length).toBeGreaterThan(10);
        if (d.crs.epsg !== null) expect(d.crs.authority).toBe(`EPSG:${d.crs.epsg}`);
      }
    }
  });
});
