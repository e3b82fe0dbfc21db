// Parquet family on the real corpus (its parquet folder): row counts, row groups,
// schema element counts, codecs, key-value keys and writers equal the MANIFEST (footer
// ground truth); full reads succeed or fail as the MANIFEST's full-read column says;
// MetadataOnly reads nothing but the footer; values are rendered losslessly. Every
// artifact's content is validated against ParquetContent.
import { describe, expect, it } from 'vitest';
import { Value } from '@sinclair/typebox/value';
import { parseParquet } from '../../../src/formats/parquet/index.js';
import { ParquetContent } from '../../../src/formats/parquet/schema.js';
import { decimalString, PARSERS, renderBigInt, renderNumber, wkbToGeoJson } from '../../../src/formats/parquet/values.js';
import { corpusPath, parseFileWith, readManifest, type ParseResult } from '../../helpers/parse.js';

interface Truth {
  file: string;
  footerOk: boolean;
  numRows: number;
  rowGroups: number;
  schemaElements: number;
  codecs: string[];
  kvKeys: string[];
  createdBy: string;
  fullRead: 'ok' | 'err' | number;
}

const manifest = await readManifest('parquet');
const truth: Truth[] = manifest.map((r) => {
  const g = r.ground_truth;
  const m = /num_rows=(\d+) row_groups=(\d+) leaf_columns=(\d+) codecs=(\S+) kv_keys=(\S+) created_by=(.*?) \| full read: hyparquet=(\S+)/.exec(g);
  if (!m) return { file: r.file, footerOk: false, numRows: 0, rowGroups: 0, schemaElements: 0, codecs: [], kvKeys: [], createdBy: '', fullRead: 'err' };
  const full = m[7];
  return {
    file: r.file,
    footerOk: true,
    numRows: Number(m[1]),
    rowGroups: Number(m[2]),
    schemaElements: Number(m[3]),
    codecs: m[4].split(',').sort(),
    kvKeys: m[5] === '-' ? [] : m[5].split(',').sort(),
    createdBy: m[6],
    fullRead: full === 'ok' ? 'ok' : /^rows=(\d+)$/.test(full) ? Number(full.slice(5)) : 'err',
  };
});

function content(r: ParseResult): any {
  if (!r.ok) throw new Error(`parse failed: ${r.code} ${r.message}`);
  return r.artifact.content;
}

function expectValid(r: ParseResult): void {
  const errors = [...Value.Errors(ParquetContent, content(r))].slice(0, 5).map((e) => `${e.path}: ${e.message}`);
  expect(errors).toEqual([]);
}

const parse = (file: string, mode: 'MetadataOnly' | 'MetadataPlusRows' = 'MetadataOnly') =>
  parseFileWith(parseParquet, corpusPath('parquet', file), 'parquet', { parquetMode: mode });

describe('Parquet MetadataOnly: footer facts equal the MANIFEST', () => {
  it('the corpus has footer ground truth', () => {
    expect(truth.filter((t) => t.footerOk).length).toBeGreaterThanOrEqual(40);
  });

  for (const t of truth.filter((x) => x.footerOk)) {
    it(t.file, async () => {
      const r = await parse(t.file);
      expectValid(r);
      const c = content(r);
      if (!r.ok) return;
      expect(r.artifact.document_format).toBe('parquet');
      expect(r.artifact.documentUnits).toBe(1);
      expect(c.mode).toBe('MetadataOnly');
      expect(c.numRows).toBe(t.numRows);
      expect(c.numRowGroups).toBe(t.rowGroups);
      expect(c.rowGroups.length).toBe(t.rowGroups);
      expect(c.numSchemaElements).toBe(t.schemaElements);
      expect([...c.codecs].sort()).toEqual(t.codecs);
      expect(c.keyValueMetadata.map((k: any) => k.key).sort()).toEqual(t.kvKeys);
      if (t.createdBy) expect((c.createdBy ?? '').startsWith(t.createdBy.trim())).toBe(true);
      // leaf columns: the flat column list, each row group's chunks, and the schema tree agree
      expect(c.columns.length).toBe(c.numColumns);
      for (const g of c.rowGroups) expect(g.columns.length).toBe(c.numColumns);
      const countLeaves = (n: any): number => (n.children ? n.children.reduce((a: number, x: any) => a + countLeaves(x), 0) : 1);
      expect(c.schema.reduce((a: number, n: any) => a + countLeaves(n), 0)).toBe(c.numColumns);
      // no data page was read: the 4-byte head, the 8-byte tail, then footer + tail again
      expect(r.artifact.metadata.bytesRead).toBeLessThanOrEqual(c.footerSize + 20);
      expect(c.rows).toBeUndefined();
    });
  }
});

describe('Parquet MetadataPlusRows: rows as the MANIFEST full read says', () => {
  for (const t of truth.filter((x) => x.footerOk)) {
    it(`${t.file} (${t.fullRead === 'err' ? 'fails' : 'reads'})`, async () => {
      const r = await parse(t.file, 'MetadataPlusRows');
      if (t.fullRead === 'err') {
        expect(r.ok).toBe(false);
        if (!r.ok) {
          // Counts and sizes that disagree with the bytes are named before decoding (declared-sizes.ts).
          if (r.code === 'corrupt_document') expect(r.message).toMatch(/^The Parquet file is damaged: row group \d+/);
          else {
            expect(r.code).toBe('extraction_failed');
            expect(r.message).toMatch(/^row group \d+ (could not be decoded|holds \d+ bytes uncompressed)/);
          }
        }
        return;
      }
      expectValid(r);
      const c = content(r);
      const expected = t.fullRead === 'ok' ? t.numRows : t.fullRead;
      expect(c.rowsWritten).toBe(expected);
      expect(c.rows.length).toBe(expected);
      const top = c.schema.map((n: any) => n.name).sort();
      for (const row of c.rows) expect(Object.keys(row).sort()).toEqual(top);
    });
  }
});

describe('MetadataPlusRows reads row group by row group', () => {
  it.each(['pqt_geospatial_geography-polygons.parquet', 'pqt_geospatial_geospatial.parquet', 'gdal_nested_types.parquet'])(
    '%s: no read spans more than one row group',
    async (file) => {
      const r = await parse(file, 'MetadataPlusRows');
      const c = content(r);
      if (!r.ok) return;
      const groupBytes = c.rowGroups.map((g: any) => g.columns.reduce((a: number, col: any) => a + Number(col.compressedSize), 0));
      const footerRead = c.footerSize + 8;
      expect(c.numRowGroups).toBeGreaterThan(1);
      expect(r.artifact.metadata.largestRead).toBeLessThanOrEqual(Math.max(footerRead, ...groupBytes));
      expect(Math.max(footerRead, ...groupBytes)).toBeLessThan(c.fileSize / 2 + footerRead); // the bound is meaningful
    },
  );
});

describe('Parquet values are rendered losslessly', () => {
  it('decimals (INT32, FIXED_LEN_BYTE_ARRAY, BYTE_ARRAY) are exact strings with `scale` digits', async () => {
    for (const f of ['pqt_int32_decimal.parquet', 'pqt_fixed_length_decimal.parquet', 'pqt_byte_array_decimal.parquet']) {
      const c = content(await parse(f, 'MetadataPlusRows'));
      expect(c.rows.map((r: any) => r.value)).toEqual(Array.from({ length: 24 }, (_, i) => `${i + 1}.00`));
      expect(c.columns[0].jsonEncoding).toBe('decimal-string');
    }
    const stats = content(await parse('pqt_int32_decimal.parquet')).rowGroups[0].columns[0].statistics;
    expect(stats).toMatchObject({ min: '1.00', max: '24.00', nullCount: 0, legacyMinMax: true });
  });

  it('INT96 and INT64 timestamps keep their precision', async () => {
    const c = content(await parse('pqt_int96_from_spark.parquet', 'MetadataPlusRows'));
    expect(c.rows[0].a).toBe('2024-01-01T20:34:56.123456000Z');
    const p = content(await parse('pqt_alltypes_plain.parquet', 'MetadataPlusRows'));
    expect(p.rows[0]).toMatchObject({ id: 4, bool_col: true, bigint_col: 0, string_col: '0', timestamp_col: '2009-03-01T00:00:00.000000000Z' });
    expect(p.rows[1].double_col).toBe(10.1);
  });

  it('FLOAT16, NaN and nulls', async () => {
    const c = content(await parse('pqt_float16_nonzeros_and_nans.parquet', 'MetadataPlusRows'));
    const xs = c.rows.map((r: any) => r.x);
    expect(xs[0]).toBeNull();
    expect(xs).toContain('NaN');
    expect(xs.filter((x: any) => typeof x === 'number').length).toBeGreaterThan(0);
    const n = content(await parse('pqt_nulls.snappy.parquet', 'MetadataPlusRows'));
    expect(n.columns[0].nullCount).toBe(8);
  });

  it('lists and maps keep their nesting', async () => {
    const l = content(await parse('pqt_list_columns.parquet', 'MetadataPlusRows'));
    expect(l.rows[0]).toEqual({ int64_list: [1, 2, 3], utf8_list: ['abc', 'efg', 'hij'] });
    expect(l.rows[1]).toEqual({ int64_list: [null, 1], utf8_list: null });
    const m = content(await parse('pqt_nested_maps.snappy.parquet', 'MetadataPlusRows'));
    expect(m.rows[0]).toEqual({ a: { a: { 1: true, 2: false } }, b: 1, c: 1 });
    const rep = content(await parse('pqt_repeated_no_annotation.parquet', 'MetadataPlusRows'));
    expect(rep.rows[2]).toEqual({ id: 3, phoneNumbers: { phone: [] } });
    expect(rep.rows[5].phoneNumbers.phone).toEqual([
      { number: 1111111111, kind: 'home' },
      { number: 2222222222, kind: null },
      { number: 3333333333, kind: 'mobile' },
    ]);
    const nl = content(await parse('pqt_nested_lists.snappy.parquet', 'MetadataPlusRows'));
    expect(nl.rows[0]).toEqual({
      a: [
        [['a', 'b'], ['c']],
        [null, ['d']],
      ],
      b: 1,
    });
  });

  it('helpers: int64 beyond 2^53 as strings, decimals, non-finite floats, WKB', () => {
    expect(renderBigInt(9007199254740991n)).toBe(9007199254740991);
    expect(renderBigInt(9007199254740993n)).toBe('9007199254740993');
    expect(renderBigInt(-9223372036854775808n)).toBe('-9223372036854775808');
    expect(decimalString(-1234n, 3)).toBe('-1.234');
    expect(decimalString(5n, 4)).toBe('0.0005');
    expect(decimalString(123456789012345678901234567890n, 2)).toBe('1234567890123456789012345678.90');
    expect(renderNumber(-Infinity)).toBe('-Infinity');
    expect(PARSERS.timestampFromMicroseconds!(-1n)).toBe('1969-12-31T23:59:59.999999Z');
    expect(PARSERS.timestampFromNanoseconds!(1n)).toBe('1970-01-01T00:00:00.000000001Z');
    expect(PARSERS.timestampFromNanoseconds!(9223372036854775807n)).toBe('2262-04-11T23:47:16.854775807Z');
    expect(PARSERS.timestampFromMilliseconds!(-1n)).toBe('1969-12-31T23:59:59.999Z');
    expect(PARSERS.dateFromDays!(19000)).toBe('2022-01-08');
    // ISO WKB point Z (1001) little-endian
    const b = Buffer.alloc(1 + 4 + 24);
    b.writeUInt8(1, 0);
    b.writeUInt32LE(1001, 1);
    b.writeDoubleLE(1.5, 5);
    b.writeDoubleLE(-2, 13);
    b.writeDoubleLE(3, 21);
    expect(wkbToGeoJson(new Uint8Array(b))).toEqual({ type: 'Point', coordinates: [1.5, -2, 3] });
    expect(wkbToGeoJson(new Uint8Array([1, 99, 0, 0, 0]))).toMatchObject({ base64: expect.any(String), error: expect.stringMatching(/WKB/) });
  });
});

describe('GeoParquet and native geospatial types', () => {
  it('gdal_poly: geo metadata decoded, EPSG:27700, WKB → GeoJSON polygons, bbox covering', async () => {
    const c = content(await parse('gdal_poly.parquet', 'MetadataPlusRows'));
    const col = c.geo.geoparquet.columns[0];
    expect(c.geo.geoparquet.primaryColumn).toBe('geometry');
    expect(col).toMatchObject({ name: 'geometry', encoding: 'WKB' });
    expect(col.crs.id).toBe('EPSG:27700');
    expect(col.crs.epsg).toBe(27700);
    expect(col.bbox.length).toBe(4);
    expect(col.covering).toBeTruthy();
    for (const row of c.rows) expect(row.geometry.type).toMatch(/Polygon$/);
    expect(c.rows[0].AREA).toBe('215229.266');
  });

  it('WKT-encoded geometry column (GDAL extension) is decoded to GeoJSON too', async () => {
    const c = content(await parse('gdal_poly_wkt_large_string.parquet', 'MetadataPlusRows'));
    expect(c.geo.geoparquet.columns[0].encoding).toBe('WKT');
    for (const row of c.rows) expect(row.geometry.type).toMatch(/Polygon$/);
  });

  it.each([
    ['geoparquet_data-linestring-encoding_wkb.parquet', 'LineString'],
    ['geoparquet_data-multipoint-encoding_wkb.parquet', 'MultiPoint'],
    ['geoparquet_data-polygon-encoding_wkb.parquet', 'Polygon'],
  ])('%s: %s geometries', async (file, type) => {
    const c = content(await parse(file, 'MetadataPlusRows'));
    const geoms = c.rows.map((r: any) => r.geometry).filter((g: any) => g !== null);
    expect(geoms.length).toBeGreaterThan(0);
    for (const g of geoms) expect(g.type).toBe(type);
  });

  it('geoparquet_example: default CRS is OGC:CRS84 when none is given, or the declared one', async () => {
    const c = content(await parse('geoparquet_example.parquet'));
    const col = c.geo.geoparquet.columns.find((x: any) => x.name === c.geo.geoparquet.primaryColumn);
    expect(col.crs === null || typeof col.crs.id === 'string' || col.crs.id === null).toBe(true);
    expect(col.geometryTypes.length).toBeGreaterThan(0);
  });

  it('native GEOMETRY logical types: PROJJSON CRS by reference and inline, geospatial statistics', async () => {
    const p = content(await parse('pqt_geospatial_crs-projjson.parquet'));
    expect(p.geo.native[0]).toMatchObject({ path: 'geometry', type: 'GEOMETRY', crs: { id: 'EPSG:5070', epsg: 5070 } });
    expect(p.geo.native[0].bbox.length).toBe(4);
    const v = content(await parse('gdal_example-crs_vermont-utm.parquet'));
    expect(v.geo.native[0].crs).toMatchObject({ id: 'EPSG:32618', epsg: 32618 });
    const g = content(await parse('pqt_geospatial_geospatial.parquet', 'MetadataPlusRows'));
    expect(g.geo.native[0].crs.id).toBe('OGC:CRS84');
    expect(g.geo.native[0].geospatialTypes).toContain(3);
    const geography = content(await parse('pqt_geospatial_geography-polygons.parquet'));
    expect(geography.geo.native[0].type).toBe('GEOGRAPHY');
  });
});

describe('malformed files fail with a clear reason', () => {
  it.each([
    ['bad_gdal_invalid.parquet', /malformed Parquet footer|not a Parquet file/],
    ['bad_pqt_PARQUET-1481.parquet', /malformed Parquet footer: it could not be decoded/],
  ])('%s (both modes)', async (file, reason) => {
    for (const mode of ['MetadataOnly', 'MetadataPlusRows'] as const) {
      const r = await parse(file, mode);
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.code).toBe('extraction_failed');
        expect(r.message).toMatch(reason);
      }
    }
  });

  it('a non-Parquet file fails cleanly', async () => {
    const r = await parseFileWith(parseParquet, corpusPath('cad', 'dxf_hatch.dxf'), 'parquet');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(/not a Parquet file/);
  });
});
