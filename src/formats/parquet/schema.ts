// JSON Schema (TypeBox) of `content` for document_format 'parquet'.
//
// Sizes, counts and offsets are numbers, or decimal strings beyond 2^53−1.
// `rows` (parquetMode=MetadataPlusRows only) are objects keyed by top-level column name;
// each row group has `provenance` `{ rowGroup, rows: [first, last] }` and `rowsProvenance`
// says which rows of the file `rows` holds, per row group (not per row: no bloat);
// value rendering per leaf is given by `schema…jsonEncoding` / `columns[].jsonEncoding`:
//   number · boolean · string · int64 (number, or string beyond 2^53−1) · decimal-string
//   ("-12.340", exactly `scale` fraction digits) · date-string (YYYY-MM-DD) ·
//   timestamp-string (ISO 8601 with 3/6/9 fraction digits, "Z") · uuid-string · json (parsed)
//   · utf8-or-base64 (string when valid UTF-8, else {"base64": "..."}) · base64 ({"base64"})
//   · geojson (GeoJSON geometry from WKB, or WKT when `geo` says encoding WKT).
// NaN/±Infinity are the strings "NaN", "Infinity", "-Infinity". LIST and repeated fields are
// arrays, MAP objects, structs objects. Statistics min/max follow the same rules, except
// that DECIMAL statistics are exact strings only up to precision 15 (numbers beyond).
import { Type, type Static } from '@sinclair/typebox';
import { ProvenanceSchema } from '../kit/provenance.js';

const BigNum = Type.Union([Type.Number(), Type.String()], { description: 'number, or decimal string beyond 2^53−1' });
const NullableBigNum = Type.Union([BigNum, Type.Null()]);

export interface SchemaNodeShape {
  name: string;
  path: string;
  repetition: string | null;
  physicalType: string | null;
  logicalType: Record<string, unknown> | null;
  convertedType: string | null;
  typeLength?: number;
  precision?: number;
  scale?: number;
  fieldId?: number;
  jsonEncoding?: string;
  children?: SchemaNodeShape[];
}

export const ParquetSchemaNode = Type.Recursive(
  (Self) =>
    Type.Object({
      name: Type.String(),
      path: Type.String({ description: 'dotted path from the root' }),
      repetition: Type.Union([Type.String(), Type.Null()]),
      physicalType: Type.Union([Type.String(), Type.Null()]),
      logicalType: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
      convertedType: Type.Union([Type.String(), Type.Null()]),
      typeLength: Type.Optional(Type.Integer()),
      precision: Type.Optional(Type.Integer()),
      scale: Type.Optional(Type.Integer()),
      fieldId: Type.Optional(Type.Integer()),
      jsonEncoding: Type.Optional(Type.String()),
      children: Type.Optional(Type.Array(Self)),
    }),
  { $id: 'ParquetSchemaNode' },
);

const Statistics = Type.Object({
  min: Type.Optional(Type.Unknown()),
  max: Type.Optional(Type.Unknown()),
  nullCount: Type.Optional(NullableBigNum),
  distinctCount: Type.Optional(NullableBigNum),
  minExact: Type.Optional(Type.Boolean()),
  maxExact: Type.Optional(Type.Boolean()),
  legacyMinMax: Type.Optional(Type.Boolean({ description: 'min/max from the deprecated fields (old sort order; trust for signed numbers only)' })),
});

export const ParquetColumnChunk = Type.Object({
  path: Type.Union([Type.String(), Type.Null()]),
  physicalType: Type.Union([Type.String(), Type.Null()]),
  codec: Type.Union([Type.String(), Type.Null()]),
  encodings: Type.Array(Type.String()),
  numValues: NullableBigNum,
  compressedSize: NullableBigNum,
  uncompressedSize: NullableBigNum,
  dataPageOffset: NullableBigNum,
  dictionaryPageOffset: NullableBigNum,
  statistics: Type.Union([Statistics, Type.Null()]),
  encodingStats: Type.Optional(Type.Array(Type.Object({ pageType: Type.String(), encoding: Type.String(), count: Type.Integer() }))),
  keyValueMetadata: Type.Optional(Type.Array(Type.Object({ key: Type.String(), value: Type.Union([Type.String(), Type.Null()]) }))),
  geospatialStatistics: Type.Optional(Type.Unknown()),
  unencodedByteArrayBytes: Type.Optional(NullableBigNum),
  bloomFilter: Type.Optional(Type.Object({ offset: NullableBigNum, length: Type.Union([Type.Integer(), Type.Null()]) })),
  columnIndex: Type.Boolean(),
  offsetIndex: Type.Boolean(),
  filePath: Type.Optional(Type.String()),
});

export const ParquetRowGroup = Type.Object({
  index: Type.Integer({ minimum: 0 }),
  numRows: BigNum,
  totalByteSize: NullableBigNum,
  totalCompressedSize: NullableBigNum,
  fileOffset: NullableBigNum,
  ordinal: Type.Optional(Type.Integer()),
  sortingColumns: Type.Optional(
    Type.Array(Type.Object({ column: Type.Union([Type.String(), Type.Integer()]), descending: Type.Boolean(), nullsFirst: Type.Boolean() })),
  ),
  columns: Type.Array(ParquetColumnChunk),
  provenance: ProvenanceSchema,
});

const Crs = Type.Union([
  Type.Object({
    id: Type.Union([Type.String(), Type.Null()], { description: 'e.g. EPSG:27700, OGC:CRS84' }),
    epsg: Type.Union([Type.Integer(), Type.Null()]),
    name: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    type: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    projjson: Type.Optional(Type.Unknown()),
    definition: Type.Optional(Type.String()),
    reference: Type.Optional(Type.String()),
    defaulted: Type.Optional(Type.Boolean({ description: 'no crs given: GeoParquet/Parquet default OGC:CRS84' })),
  }),
  Type.Null(),
]);

export const ParquetGeo = Type.Object({
  geoparquet: Type.Union([
    Type.Object({
      version: Type.Union([Type.String(), Type.Null()]),
      primaryColumn: Type.Union([Type.String(), Type.Null()]),
      columns: Type.Array(
        Type.Object({
          name: Type.String(),
          encoding: Type.Unknown(),
          geometryTypes: Type.Array(Type.Unknown()),
          crs: Crs,
          bbox: Type.Union([Type.Array(Type.Number()), Type.Null()]),
          edges: Type.Optional(Type.Unknown()),
          orientation: Type.Optional(Type.Unknown()),
          epoch: Type.Optional(Type.Unknown()),
          covering: Type.Optional(Type.Unknown()),
        }),
      ),
    }),
    Type.Null(),
  ]),
  native: Type.Array(
    Type.Object({
      path: Type.String(),
      type: Type.Union([Type.Literal('GEOMETRY'), Type.Literal('GEOGRAPHY')]),
      crs: Crs,
      algorithm: Type.Union([Type.String(), Type.Null()]),
      bbox: Type.Union([Type.Array(Type.Number()), Type.Null()], { description: '[xmin, ymin, xmax, ymax] over all row groups' }),
      geospatialTypes: Type.Array(Type.Integer()),
    }),
  ),
});

export const ParquetContent = Type.Object({
  engine: Type.String(),
  mode: Type.Union([Type.Literal('MetadataOnly'), Type.Literal('MetadataPlusRows')]),
  fileSize: Type.Integer({ minimum: 0 }),
  footerSize: Type.Integer({ minimum: 0 }),
  formatVersion: Type.Union([Type.Integer(), Type.Null()]),
  createdBy: Type.Union([Type.String(), Type.Null()]),
  numRows: BigNum,
  numRowGroups: Type.Integer({ minimum: 0 }),
  numColumns: Type.Integer({ minimum: 0, description: 'leaf columns' }),
  numSchemaElements: Type.Integer({ minimum: 0, description: 'schema elements below the root, groups included' }),
  codecs: Type.Array(Type.String()),
  encodings: Type.Array(Type.String()),
  schema: Type.Array(ParquetSchemaNode, { description: 'top-level fields, nested' }),
  columns: Type.Array(
    Type.Object({
      path: Type.String(),
      physicalType: Type.Union([Type.String(), Type.Null()]),
      logicalType: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
      convertedType: Type.Union([Type.String(), Type.Null()]),
      jsonEncoding: Type.String(),
      codecs: Type.Array(Type.String()),
      encodings: Type.Array(Type.String()),
      numValues: BigNum,
      compressedSize: BigNum,
      uncompressedSize: BigNum,
      nullCount: NullableBigNum,
    }),
  ),
  keyValueMetadata: Type.Array(Type.Object({ key: Type.String(), value: Type.Union([Type.String(), Type.Null()]) })),
  geo: Type.Union([ParquetGeo, Type.Null()]),
  rowGroups: Type.Array(ParquetRowGroup),
  rows: Type.Optional(Type.Array(Type.Record(Type.String(), Type.Unknown()))),
  rowsWritten: Type.Optional(Type.Integer({ minimum: 0 })),
  rowsProvenance: Type.Optional(
    Type.Array(ProvenanceSchema, {
      description:
        'MetadataPlusRows: one per row group read, in order — `{ rowGroup, rows: [first, last] }`, the rows of the file (from 0) that `rows` holds from it',
    }),
  ),
});

export type ParquetContentType = Static<typeof ParquetContent>;
