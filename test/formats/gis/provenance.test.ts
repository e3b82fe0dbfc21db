// GIS provenance and completeness (issue 32, items 3–4). Each dataset's provenance is its
// layer; each feature's "id" is its FID as ogrinfo prints it — checked against native
// `ogrinfo -al -q` (gdal-bin) on corpus files with FIDs that are not 0…n−1 (MapInfo deleted
// records, GeoPackage and FileGDB from 1, a GeoJSON id), through both export routes. On every
// corpus file the completeness block's totals equal the artifact: layers, empty layers, failed
// sources, features inline and in the result part, features GDAL counts but did not return.
// Generated files: features past the inline cap, a source that cannot be read, an e-mail's
// provenance.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseGis } from '../../../src/formats/gis/index.js';
import { CORPUS_AVAILABLE, corpusPath, parseFileWith, readManifest, artifactOf } from '../../helpers/parse.js';
import { parserSettings } from '../../helpers/parser-settings.js';
import { formatOf, makeZip } from './helpers.js';
import { expectCompletenessAddsUp } from '../../helpers/completeness.js';

// GDAL start-up (1–3 s, more on a loaded machine) falls in the first test of the file.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const run = promisify(execFile);
const OGRINFO = await run('ogrinfo', ['--version']).then(
  () => true,
  () => false,
);

const parse = (file: string, format = formatOf(path.basename(file)), opts: { cap?: number; within?: Record<string, unknown>; fgb?: boolean } = {}) =>
  parseFileWith(
    async (input, w) => parseGis({ ...input, ...(opts.within ? { within: opts.within } : {}) }, w),
    file,
    format,
    {},
    path.basename(file),
    parserSettings({ gis: { flatGeobuf: opts.fgb ?? true, ...(opts.cap ? { maxInlineFeatures: opts.cap } : {}) } }),
  );

const files = CORPUS_AVAILABLE ? (await readManifest('gis')).map((r) => r.file).filter((f) => !f.startsWith('bad_')) : [];

describe.skipIf(!CORPUS_AVAILABLE)('GIS completeness on every corpus file', () => {
  it('the corpus has GIS files', () => expect(files.length).toBeGreaterThanOrEqual(45));

  it.each(files)('%s', async (file) => {
    const a = artifactOf(await parse(corpusPath('gis', file)));
    const c = a.content;
    expectCompletenessAddsUp(a.completeness);
    const held = (d: any) => d.featuresInlined + d.featuresOmitted;
    const unreadable = c.failedSources.filter((f: any) => f.error !== 'The dataset opened but holds no layer.').length;
    expect(a.completeness.layers).toMatchObject({
      emitted: c.datasets.length,
      empty: c.datasets.filter((d: any) => held(d) === 0).length,
      failed: unreadable,
      skipped: 0,
    });
    let emitted = 0;
    let missing = 0;
    for (const d of c.datasets) {
      expect(d.provenance).toEqual({ layer: d.name });
      expect(d.features.length).toBe(d.featuresInlined);
      emitted += held(d);
      missing += Math.max(0, d.featureCount - held(d));
      // ids are FIDs: integers, one per feature
      const ids = d.features.map((f: any) => f.id);
      expect(
        ids.every((id: unknown) => Number.isInteger(id)),
        d.name,
      ).toBe(true);
      expect(new Set(ids).size).toBe(ids.length);
    }
    expect(a.completeness.features).toMatchObject({ emitted, failed: missing, skipped: 0 });
    for (const g of a.completeness.features.gaps) {
      expect(g.reason).toMatch(/^(GDAL counts \d+ features but returned \d+|The features could not be exported)/);
      expect(c.datasets.map((d: any) => d.name)).toContain(g.provenance.layer);
    }
  });
});

/** FIDs per layer, in order, as native `ogrinfo -al -q` prints them ("OGRFeature(layer):fid"). */
async function nativeFids(file: string, member?: string): Promise<Map<string, number[]>> {
  const target = file.endsWith('.zip') ? `/vsizip/${file}${member ? `/${member}` : ''}` : file;
  const { stdout } = await run('ogrinfo', ['-ro', '-al', '-q', target], { maxBuffer: 256 * 1024 * 1024 });
  const out = new Map<string, number[]>();
  for (const m of stdout.matchAll(/^OGRFeature\((.*)\):(-?\d+)$/gm)) {
    if (!out.has(m[1])) out.set(m[1], []);
    out.get(m[1])!.push(Number(m[2]));
  }
  return out;
}

// Native GDAL 3.6.2 reads these with the drivers gdal3.js uses (for KML it takes LIBKML, whose FIDs start at 1).
const NATIVE = ['mapinfo_compr_symb_deleted_records.zip', 'gpkg_poly_golden.gpkg', 'fgdb_testopenfilegdb.gdb.zip', 'geojson_grenada.geojson', 'shp_poly.zip'];

describe.skipIf(!CORPUS_AVAILABLE || !OGRINFO)('feature ids are the FIDs native ogrinfo prints', () => {
  for (const file of NATIVE) {
    for (const fgb of [true, false]) {
      it(`${file} (${fgb ? 'FlatGeobuf route' : 'GDAL GeoJSONSeq'})`, async () => {
        const native = await nativeFids(corpusPath('gis', file));
        const c = artifactOf(await parse(corpusPath('gis', file), formatOf(file), { fgb })).content;
        const withFeatures = c.datasets.filter((d: any) => d.featureCount > 0);
        expect(withFeatures.length).toBeGreaterThan(0);
        for (const d of withFeatures)
          expect(
            d.features.map((f: any) => f.id),
            d.name,
          ).toEqual(native.get(d.name));
      });
    }
  }

  it('a seamless MapInfo table: FIDs beyond 32 bits (OGR SQL would clamp them: that layer takes the GeoJSONSeq writer)', async () => {
    const native = (await nativeFids(corpusPath('gis', 'mapinfo_seamless_tab.zip'), 'seamless.tab')).get('seamless_part1')!;
    expect(native).toEqual([4294967297, 4294967298, 8589934593, 8589934594]);
    for (const fgb of [true, false]) {
      const c = artifactOf(await parse(corpusPath('gis', 'mapinfo_seamless_tab.zip'), 'mapinfo', { fgb })).content;
      expect(c.datasets.find((d: any) => d.source === 'seamless.tab').features.map((f: any) => f.id)).toEqual(native);
    }
  });

  it('MapInfo deleted records leave gaps in the FIDs, and the ids keep them', async () => {
    const fids = (await nativeFids(corpusPath('gis', 'mapinfo_compr_symb_deleted_records.zip'))).get('compr_symb_deleted_records')!;
    expect(fids.slice(0, 3)).toEqual([6, 14, 105]);
  });
});

describe('GIS provenance and completeness on generated files', () => {
  let dir: string;
  const point = (id: number | undefined, x: number) =>
    JSON.stringify({ type: 'Feature', ...(id === undefined ? {} : { id }), properties: { name: `p${x}` }, geometry: { type: 'Point', coordinates: [x, 1] } });
  const collection = (features: string[]) => `{"type":"FeatureCollection","features":[${features.join(',')}]}`;

  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dp-gis-prov-'));
  });
  afterAll(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('a GeoJSON with its own integer ids: they are the FIDs; the features past the inline cap are emitted in the result part', async () => {
    const file = path.join(dir, 'wells.geojson');
    await fs.writeFile(file, collection([10, 20, 35, 36, 90].map((id, i) => point(id, i))));
    const a = artifactOf(await parse(file, 'geojson', { cap: 2 }));
    const d = a.content.datasets[0];
    expect(d.provenance).toEqual({ layer: 'wells' });
    expect(d.features.map((f: any) => f.id)).toEqual([10, 20]);
    expect(d).toMatchObject({ featuresInlined: 2, featuresOmitted: 3, featuresPart: 'features-1.geojsonseq' });
    expect(a.completeness).toEqual({
      complete: true,
      layers: { found: 1, emitted: 1, empty: 0, failed: 0, skipped: 0, gaps: [] },
      features: { found: 5, emitted: 5, empty: 0, failed: 0, skipped: 0, gaps: [] },
    });
  });

  it('a ZIP with a source GDAL cannot read: one failed layer with the reason; an empty layer counted empty', async () => {
    const file = path.join(dir, 'mixed.zip');
    await fs.writeFile(
      file,
      makeZip([
        { name: 'good.geojson', data: Buffer.from(collection([point(undefined, 1), point(undefined, 2)])) },
        { name: 'none.geojson', data: Buffer.from(collection([])) },
        { name: 'broken.gpkg', data: Buffer.concat([Buffer.from('SQLite format 3\0'), Buffer.alloc(2000, 7)]) },
      ]),
    );
    const a = artifactOf(await parse(file, 'geopackage'));
    expect(a.content.datasets.map((d: any) => [d.name, d.provenance, d.features.map((f: any) => f.id)])).toEqual([
      ['good', { layer: 'good' }, [0, 1]],
      ['none', { layer: 'none' }, []],
    ]);
    expect(a.completeness.complete).toBe(false);
    expect(a.completeness.layers).toMatchObject({ found: 3, emitted: 2, empty: 1, failed: 1 });
    expect(a.completeness.layers.gaps).toEqual([{ outcome: 'failed', reason: expect.stringMatching(/^broken\.gpkg could not be read: /), provenance: {} }]);
    expect(a.completeness.features).toMatchObject({ found: 2, emitted: 2, failed: 0 });
  });

  it('inside an e-mail, the layer provenance and the gaps start from the attachment', async () => {
    const within = { message: 1, attachment: [1, 2], file: 'sites.zip' };
    const file = path.join(dir, 'sites.zip');
    await fs.writeFile(
      file,
      makeZip([
        { name: 'sites.geojson', data: Buffer.from(collection([point(7, 1)])) },
        { name: 'broken.gpkg', data: Buffer.concat([Buffer.from('SQLite format 3\0'), Buffer.alloc(2000, 7)]) },
      ]),
    );
    const a = artifactOf(await parse(file, 'geopackage', { within }));
    expect(a.content.datasets[0].provenance).toEqual({ ...within, layer: 'sites' });
    expect(a.content.datasets[0].features[0].id).toBe(7);
    expect(a.completeness.layers.gaps[0].provenance).toEqual(within);
  });
});
