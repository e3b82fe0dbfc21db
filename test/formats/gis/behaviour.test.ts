// GIS parser behaviour: broken inputs fail with clear reasons, sidecar problems become
// warnings, encodings are honoured, CRS/extent/fields are filled, the inline cap holds, and
// crafted ZIPs (traversal, zip bombs, symlinks) are refused.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { corpusPath, parseFileWith } from '../../helpers/parse.js';
import { parserSettings, type SettingsOverrides } from '../../helpers/parser-settings.js';
import { loadConfig } from '../../../src/config.js';
import { parseGis } from '../../../src/formats/gis/index.js';
import { layerWktsFromText } from '../../../src/formats/gis/index.js';
import { contentErrors, makeZip } from './helpers.js';

// GDAL start-up (1–3 s, more on a loaded machine) falls in the first test of the file.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const gis = (f: string) => corpusPath('gis', f);
let tmp: string;

beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'dp-gis-test-'));
});
afterAll(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});
async function okParse(file: string, format: string, fileName?: string, over: SettingsOverrides = {}) {
  const r = await parseFileWith(parseGis, file, format, {}, fileName ?? path.basename(file), parserSettings(over));
  if (!r.ok) throw new Error(`${file}: ${r.code} ${r.message}`);
  expect(contentErrors(r.artifact.content)).toEqual([]);
  return r.artifact;
}

async function writeTmp(name: string, data: Buffer): Promise<string> {
  const p = path.join(tmp, name);
  await fs.writeFile(p, data);
  return p;
}

describe('broken inputs', () => {
  it('a corrupt file named .zip fails cleanly', async () => {
    const r = await parseFileWith(parseGis, gis('bad_badzip.zip'), 'shapefile');
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.code).toBe('extraction_failed');
      expect(r.message).toMatch(/ZIP/);
    }
  });

  it("a truncated KML fails with GDAL's parse error", async () => {
    const r = await parseFileWith(parseGis, gis('bad_kml_truncated.kml'), 'kml');
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.code).toBe('extraction_failed');
      expect(r.message).toMatch(/kml/i);
      expect(r.message).toMatch(/line 35|not all elements|no element found/i);
    }
  });

  it('a ZIP without any .shp reports that no dataset was found, naming the orphan .dbf', async () => {
    const r = await parseFileWith(parseGis, gis('bad_shp_noshp.zip'), 'shapefile');
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.message).toMatch(/no GIS dataset/);
      expect(r.message).toContain('counties.dbf');
    }
  });

  it('a shapefile without .shx and .dbf is read with warnings (index rebuilt, no attributes)', async () => {
    const a = await okParse(gis('bad_shp_no_dbf.zip'), 'shapefile');
    expect(a.documentUnits).toBe(1);
    const d = a.content.datasets[0];
    expect(d.name).toBe('no-dbf');
    expect(d.featureCount).toBe(14); // native ogrinfo with SHAPE_RESTORE_SHX=YES says 14
    expect(d.features).toHaveLength(14);
    expect(d.fields).toEqual([]);
    expect(d.crs).toBeNull();
    expect(d.featuresCrs).toBe('native');
    expect(d.warnings.join('\n')).toMatch(/\.shx index is missing/);
    expect(d.warnings.join('\n')).toMatch(/\.dbf attribute table is missing/);
    expect(d.warnings.join('\n')).toMatch(/\.prj file is missing/);
  });

  it('a non-ZIP upload declared as ShpZip or FileGdb is refused', async () => {
    for (const format of ['shapefile', 'filegdb']) {
      const r = await parseFileWith(parseGis, gis('geojson_grenada.geojson'), format, {}, 'x.zip');
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.message).toMatch(/must be a ZIP archive/);
    }
  });

  it('an empty file is refused', async () => {
    const p = await writeTmp('empty.geojson', Buffer.alloc(0));
    const r = await parseFileWith(parseGis, p, 'geojson');
    expect(r.ok).toBe(false);
  });

  it("text that is not GeoJSON fails with GDAL's reason", async () => {
    const p = await writeTmp('notgeo.geojson', Buffer.from('{"hello": [1,2,'));
    const r = await parseFileWith(parseGis, p, 'geojson');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(/could not be read as geojson/);
  });
});

describe('metadata and features', () => {
  it('shapefile: CRS as WKT2, PROJJSON and EPSG; extents; field schema; WGS 84 features', async () => {
    const a = await okParse(gis('shp_poly.zip'), 'shapefile');
    const d = a.content.datasets[0];
    expect(d.driver).toBe('ESRI Shapefile');
    expect(d.format).toBe('shapefile');
    expect(d.source).toBe('poly.shp');
    expect(d.crs.epsg).toBe(27700);
    expect(d.crs.wkt).toMatch(/^PROJCRS\["OSGB36 \/ British National Grid"/);
    expect(d.crs.projjson.type).toBe('ProjectedCRS');
    expect(d.extent.native).toEqual([478315.53125, 4762880.5, 481645.3125, 4765610.5]);
    const [x0, y0, x1, y1] = d.extent.wgs84;
    expect(x0).toBeLessThan(x1);
    expect(y0).toBeLessThan(y1);
    expect(d.fields).toEqual([
      { name: 'AREA', type: 'Real', width: 12, precision: 3, nullable: true },
      { name: 'EAS_ID', type: 'Integer64', width: 11, nullable: true },
      { name: 'PRFEDEA', type: 'String', width: 16, nullable: true },
    ]);
    expect(d.featuresCrs).toBe('EPSG:4326');
    expect(d.features[0]).toMatchObject({ type: 'Feature', properties: { EAS_ID: 168, PRFEDEA: '35043411' }, geometry: { type: 'Polygon' } });
    expect(a.metadata.engine).toMatch(/GDAL 3\.8/);
    expect(a.metadata.archive.files).toBe(4);
  });

  it('a .prj with TOWGS84 (BoundCRS) still yields the source CRS EPSG code', async () => {
    const a = await okParse(gis('shp_train_stations.zip'), 'shapefile');
    const d = a.content.datasets[0];
    expect(d.crs.type).toBe('BoundCRS');
    expect(d.crs.epsg).toBe(26986);
    expect(d.crs.name).toBe('NAD83 / Massachusetts Mainland');
  });

  it('.cpg encodings are honoured (cp1250 and UTF-8)', async () => {
    const a = await okParse(gis('shp_codepage_cpg.zip'), 'shapefile');
    expect(a.content.datasets[0].encoding).toBe('1250');
    expect(a.content.datasets[0].features.map((f: any) => f.properties.field)).toContain('Hněvošický háj');
    const b = await okParse(gis('shp_utf8_cpg.zip'), 'shapefile');
    expect(b.content.datasets[0].features.map((f: any) => f.properties.field)).toEqual(['💩', 'Hněvošický háj']);
  });

  it('the dBASE language id is reported when there is no .cpg', async () => {
    const a = await okParse(gis('shp_senate.zip'), 'shapefile');
    expect(a.content.datasets[0].encoding).toBe('ISO-8859-1');
  });

  it('MapInfo WindowsCyrillic TAB and MIF are decoded to Cyrillic', async () => {
    for (const f of ['mapinfo_win1251_tab.zip', 'mapinfo_win1251_mif.zip', 'mapinfo_utf8_mif.zip']) {
      const a = await okParse(gis(f), 'mapinfo');
      const d = a.content.datasets[0];
      expect(d.fields.map((x: any) => x.name)).toContain('Поле_А');
      expect(d.features[0].properties['Поле_А']).toBe('Значение А');
    }
  });

  it('a MIF whose CRS only the layer knows gets it, and features in WGS 84', async () => {
    const a = await okParse(gis('mapinfo_win1251_mif.zip'), 'mapinfo');
    const d = a.content.datasets[0];
    expect(d.crs.name).toBe('unnamed');
    expect(d.crs.wkt).toMatch(/Pulkovo 1942/);
    expect(d.featuresCrs).toBe('EPSG:4326');
    expect(d.extent.wgs84[0]).toBeCloseTo(37.49, 1);
    expect(d.extent.wgs84[1]).toBeCloseTo(55.41, 1);
  });

  it('a NonEarth MapInfo table keeps native coordinates, with a warning-free fallback', async () => {
    const a = await okParse(gis('mapinfo_all_geoms_tab.zip'), 'mapinfo');
    const d = a.content.datasets[0];
    expect(d.crs.type).toBe('EngineeringCRS');
    expect(d.featuresCrs).toBe('native');
    expect(d.extent.wgs84).toBeNull();
    expect(d.features).toHaveLength(16);
  });

  it('multipatch geometries are converted so they are not lost', async () => {
    const a = await okParse(gis('shp_zm_multipatch.zip'), 'shapefile');
    const d = a.content.datasets.find((x: any) => x.name === 'multipatch');
    expect(d.features).toHaveLength(1);
    expect(d.features[0].geometry.type).toBe('MultiPolygon');
    expect(d.warnings.join('\n')).toMatch(/converted to MultiPolygon/);
  });

  it('field domains used by a layer are reported with its fields', async () => {
    for (const [file, format] of [
      ['fgdb_domains.gdb.zip', 'filegdb'],
      ['gpkg_domains.gpkg', 'geopackage'],
    ] as const) {
      const a = await okParse(gis(file), format);
      const d = a.content.datasets[0];
      const withDomain = d.fields.filter((f: any) => f.domainName);
      expect(withDomain.length, file).toBeGreaterThan(0);
      for (const f of withDomain) expect(d.metadata.domains[f.domainName], `${file} ${f.domainName}`).toBeTruthy();
    }
  });

  it('GDAL counting more features than it returns is reported (KML placemarks without geometry)', async () => {
    const a = await okParse(gis('kml_several_schema_in_layer.kml'), 'kml');
    const d = a.content.datasets[0];
    expect(d.featureCount).toBe(2);
    expect(d.warnings.join('\n')).toMatch(/GDAL counts 2 features but returned 0/);
  });

  it('every dataset of a ZIP is found: nested folders, shapefile + TAB together', async () => {
    const a = await okParse(gis('shp_nested_folder.zip'), 'shapefile');
    expect(a.content.datasets.map((d: any) => d.source)).toEqual(['data/natural_earth/naturalearth_lowres.shp']);
    const b = await okParse(gis('mixed_shp_and_tab.zip'), 'shapefile');
    expect(b.content.datasets.map((d: any) => [d.format, d.name]).sort()).toEqual([
      ['mapinfo', 'all_geoms'],
      ['shapefile', 'cb_2022_us_county_20m_extract'],
    ]);
    expect(b.documentUnits).toBe(2);
    expect(b.content.sourceCount).toBe(2);
  });

  it('a single uploaded file without an extension is still recognised from its format', async () => {
    const a = await okParse(gis('geojson_grenada.geojson'), 'geojson', 'upload');
    expect(a.content.datasets[0].featureCount).toBe(1);
    const b = await okParse(gis('gpkg_poly_golden.gpkg'), 'geopackage', 'no-extension');
    expect(b.content.datasets[0].name).toBe('poly');
  });

  it('ZIPs inside the ZIP are opened too (one zipped shapefile per layer)', async () => {
    const p = await writeTmp(
      'bundle.zip',
      makeZip([
        { name: 'a/poly.zip', data: await fs.readFile(gis('shp_poly.zip')) },
        { name: 'qgis.zip', data: await fs.readFile(gis('shp_qgis_export.zip')) },
        { name: 'readme.txt', data: Buffer.from('two layers') },
      ]),
    );
    const a = await okParse(p, 'shapefile');
    expect(a.documentUnits).toBe(2);
    expect(a.content.datasets.map((d: any) => d.source).sort()).toEqual(['a/poly.zip/poly.shp', 'qgis.zip/qgis.shp']);
    expect(a.content.datasets.map((d: any) => d.featureCount).sort()).toEqual([10, 2]);
  });

  it('a geodatabase zipped without its .gdb folder is found at the archive root', async () => {
    const { extractZip } = await import('../../../src/formats/gis/zip.js');
    const dir = await fs.mkdtemp(path.join(tmp, 'gdb-'));
    await extractZip(gis('fgdb_curves.gdb.zip'), dir);
    const gdb = path.join(dir, 'curves.gdb');
    const members = await Promise.all((await fs.readdir(gdb)).map(async (n) => ({ name: n, data: await fs.readFile(path.join(gdb, n)), deflate: true })));
    const p = await writeTmp('flat-gdb.zip', makeZip(members));
    const a = await okParse(p, 'filegdb');
    expect(a.content.datasets.map((d: any) => `${d.name}:${d.featureCount}`).sort()).toEqual(['line:9', 'polygon:5']);
  });

  it('a KMZ is read through its KML', async () => {
    const kml = await fs.readFile(gis('kml_samples.kml'));
    const p = await writeTmp('samples.kmz', makeZip([{ name: 'doc.kml', data: kml, deflate: true }]));
    const a = await okParse(p, 'kmz');
    expect(a.document_format).toBe('kmz');
    expect(a.documentUnits).toBe(6);
    expect(a.content.datasets[0].format).toBe('kml');
  });

  it('jobs in the same thread are serialised and both complete', async () => {
    const [a, b] = await Promise.all([okParse(gis('shp_senate.zip'), 'shapefile'), okParse(gis('gpkg_poly_golden.gpkg'), 'geopackage')]);
    expect(a.content.datasets[0].featureCount).toBe(40);
    expect(b.content.datasets[0].featureCount).toBe(10);
  });
});

describe('inline feature cap', () => {
  it('defaults to 100000 and reads DOCPARSE_GIS_MAX_INLINE_FEATURES', () => {
    expect(loadConfig({}).parsers.gis.maxInlineFeatures).toBe(100000);
    expect(loadConfig({ DOCPARSE_GIS_MAX_INLINE_FEATURES: '7' }).parsers.gis.maxInlineFeatures).toBe(7);
  });

  it('stops inlining at the cap, marks it, and still computes the WGS 84 extent over all features', async () => {
    const full = await okParse(gis('shp_naturalearth_lowres.zip'), 'shapefile');
    const a = await okParse(gis('shp_naturalearth_lowres.zip'), 'shapefile', undefined, { gis: { maxInlineFeatures: 100 } });
    const d = a.content.datasets[0];
    expect(d.featureCount).toBe(177);
    expect(d.features).toHaveLength(100);
    expect(d.featuresInlined).toBe(100);
    expect(d.featuresOmitted).toBe(77);
    expect(d.featuresTruncated).toBe(true);
    expect(a.content.featuresTruncated).toBe(true);
    expect(a.content.maxInlineFeatures).toBe(100);
    expect(a.metadata.featuresTruncated).toBe(true);
    expect(a.warnings.join('\n')).toMatch(/DOCPARSE_GIS_MAX_INLINE_FEATURES/);
    expect(d.extent.wgs84).toEqual(full.content.datasets[0].extent.wgs84);
  });

  it('the cap is per job, across datasets', async () => {
    const a = await okParse(gis('shp_multilayer_6.zip'), 'shapefile', undefined, { gis: { maxInlineFeatures: 2 } });
    const inlined = a.content.datasets.map((d: any) => d.featuresInlined);
    expect(inlined.reduce((x: number, y: number) => x + y, 0)).toBe(2);
    expect(a.documentUnits).toBe(6);
  });
});

describe('ZIP guards', () => {
  const shp = async () => {
    // Reuse a real small shapefile's members for crafted archives.
    const dir = await fs.mkdtemp(path.join(tmp, 'qgis-'));
    const { extractZip } = await import('../../../src/formats/gis/zip.js');
    await extractZip(gis('shp_qgis_export.zip'), dir);
    const names = await fs.readdir(dir);
    return Promise.all(names.map(async (n) => ({ name: n, data: await fs.readFile(path.join(dir, n)) })));
  };

  it("refuses members with '..' or absolute paths", async () => {
    const members = await shp();
    for (const bad of ['../evil.shp', 'a/../../evil.txt', '/etc/evil.txt']) {
      const p = await writeTmp('trav.zip', makeZip([...members, { name: bad, data: Buffer.from('x') }]));
      const r = await parseFileWith(parseGis, p, 'shapefile');
      expect(r.ok, bad).toBe(false);
      if (!r.ok) expect(r.message, bad).toMatch(/unsafe member name|corrupt|invalid|refused/i);
    }
    await expect(fs.access(path.join(tmp, 'evil.shp'))).rejects.toThrow();
  });

  it('refuses a highly compressed member (zip bomb ratio) and an archive above the size limit', async () => {
    // The GIS-only names of the archive limits, read by config.ts as they always were.
    const archive = (env: Record<string, string>) => parserSettings({ archive: loadConfig(env).parsers.archive });
    const bomb = await writeTmp('bomb.zip', makeZip([{ name: 'zeros.shp', data: Buffer.alloc(4 * 1024 * 1024), deflate: true }]));
    const r = await parseFileWith(parseGis, bomb, 'shapefile', {}, 'bomb.zip', archive({ DOCPARSE_GIS_MAX_ZIP_RATIO: '50' }));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(/compression ratio/);

    const r2 = await parseFileWith(parseGis, gis('shp_poly.zip'), 'shapefile', {}, 'shp_poly.zip', archive({ DOCPARSE_GIS_MAX_UNZIPPED_BYTES: '1000' }));
    expect(r2.ok).toBe(false);
    if (!r2.ok) expect(r2.message).toMatch(/expands to more than 1000 bytes/);
  });

  it('skips symbolic links with a warning', async () => {
    const members = await shp();
    const p = await writeTmp('link.zip', makeZip([...members, { name: 'link.shp.xml', data: Buffer.from('/etc/passwd'), mode: 0o120777 }]));
    const a = await okParse(p, 'shapefile');
    expect(a.warnings).toContain('ZIP member skipped: "link.shp.xml" (symbolic link).');
    expect(a.documentUnits).toBe(1);
  });
});

describe('ogrinfo text parsing', () => {
  it("extracts each layer's SRS WKT", () => {
    const text = [
      "INFO: Open of `x'",
      '',
      'Layer name: a',
      'Geometry: Point',
      'Layer SRS WKT:',
      'PROJCRS["unnamed",',
      '    ID["EPSG",1]]',
      'Data axis to CRS axis mapping: 1,2',
      'Layer name: b',
      'Layer SRS WKT:',
      '(unknown)',
      'FID Column = fid',
    ].join('\n');
    const m = layerWktsFromText(text);
    expect(m.get('a')).toBe('PROJCRS["unnamed",\n    ID["EPSG",1]]');
    expect(m.has('b')).toBe(false);
  });
});

describe('formats without corpus files (made here with GDAL from a corpus GeoJSON)', () => {
  it.each([
    ['flatgeobuf', 'FlatGeobuf', 'grenada.fgb', []],
    ['gml', 'GML', 'grenada.gml', []],
    ['gpx', 'GPX', 'points.gpx', ['-nlt', 'POINT']],
    ['geopackage', 'GPKG', 'grenada.gpkg', []],
  ] as const)('%s', async (format, driver, name, extra) => {
    const { withGdal } = await import('../../../src/formats/gis/engine.js');
    const dir = await fs.mkdtemp(path.join(tmp, 'made-'));
    const src = format === 'gpx' ? 'gpkg_test_gpkg_nulls.gpkg' : 'geojson_grenada.geojson';
    await fs.copyFile(gis(src), path.join(dir, src));
    await withGdal(async (s) => {
      s.mount(dir);
      const ds = s.openVector(s.virtualPath(src));
      try {
        s.vectorTranslate(s.virtualPath(name), ds, ['-f', driver, ...extra]);
      } finally {
        s.close(ds);
      }
    });
    const a = await okParse(path.join(dir, name), format);
    const d = a.content.datasets[0];
    expect(d.driver).toBe(driver);
    expect(d.format).toBe(format);
    expect(d.featureCount).toBeGreaterThan(0);
    expect(d.features.length).toBe(d.featureCount);
    expect(d.crs.epsg).toBe(4326);
    expect(d.featuresCrs).toBe('EPSG:4326');
    expect(a.documentUnits).toBe(1); // GPX: only the waypoints layer holds features
  });
});

describe('buffered host-file I/O of the GDAL engine', () => {
  it('buffered writes are seen by stat, readers and the host file; read-ahead sees later writes', async () => {
    const { withGdal } = await import('../../../src/formats/gis/engine.js');
    const dir = await fs.mkdtemp(path.join(tmp, 'io-'));
    const big = Buffer.alloc(3 * 1024 * 1024, 0x61); // above the read-ahead threshold
    await fs.writeFile(path.join(dir, 'big.bin'), big);
    await withGdal(async (s) => {
      s.mount(dir);
      const FS = (s as any).g.Module.FS;
      // write-only stream: small writes stay buffered until something looks at the file
      const w = FS.open(s.virtualPath('out.txt'), 'w');
      FS.write(w, new TextEncoder().encode('hello '), 0, 6);
      FS.write(w, new TextEncoder().encode('world'), 0, 5);
      expect(FS.stat(s.virtualPath('out.txt')).size).toBe(11);
      const r = FS.open(s.virtualPath('out.txt'), 'r');
      const got = new Uint8Array(11);
      expect(FS.read(r, got, 0, 11, 0)).toBe(11);
      expect(Buffer.from(got).toString()).toBe('hello world');
      FS.close(r);
      FS.write(w, new TextEncoder().encode('!'), 0, 1, 0); // a write elsewhere in the file
      FS.close(w);
      // read-only stream over a large file: read-ahead, then a write through another stream
      const rb = FS.open(s.virtualPath('big.bin'), 'r');
      const one = new Uint8Array(4);
      FS.read(rb, one, 0, 4, 1000);
      expect(Buffer.from(one).toString()).toBe('aaaa');
      const wb = FS.open(s.virtualPath('big.bin'), 'r+');
      FS.write(wb, new TextEncoder().encode('bbbb'), 0, 4, 1000);
      FS.close(wb);
      FS.read(rb, one, 0, 4, 1000);
      expect(Buffer.from(one).toString()).toBe('bbbb');
      const tail = new Uint8Array(10);
      expect(FS.read(rb, tail, 0, 10, big.length - 4)).toBe(4); // short read at end of file
      FS.close(rb);
    });
    expect(await fs.readFile(path.join(dir, 'out.txt'), 'utf8')).toBe('!ello world');
    const after = await fs.readFile(path.join(dir, 'big.bin'));
    expect(after.subarray(1000, 1004).toString()).toBe('bbbb');
    expect(after.length).toBe(big.length);
  });
});
