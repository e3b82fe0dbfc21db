// JSON Schema (TypeBox) of the CSV family's artifact `content`: a table (Tabular) or GeoJSON
// features (Spatial). Loaded in the main thread for the OpenAPI document.
import { Type, type Static } from '@sinclair/typebox';
import { ProvenanceSchema } from '../kit/provenance.js';

const Column = Type.Object({
  name: Type.String({ description: 'From the header; column_N where it has none (or a duplicate gets _2, _3 …).' }),
  index: Type.Integer({ minimum: 0 }),
  type: Type.Union(['integer', 'number', 'boolean', 'date', 'datetime', 'string'].map((t) => Type.Literal(t))),
  jsonType: Type.Union(
    ['number', 'boolean', 'string'].map((t) => Type.Literal(t)),
    {
      description: 'How its values appear in rows: integers beyond 2^53 and decimals a double cannot hold are strings.',
    },
  ),
  nullCount: Type.Optional(Type.Integer({ minimum: 0, description: 'Absent on an extra geometry column (extra: true).' })),
  min: Type.Optional(Type.Number()),
  max: Type.Optional(Type.Number()),
  sourceFormat: Type.Optional(Type.String({ description: 'The layout of dates that were not ISO, e.g. "M/D/YYYY" (values are ISO 8601).' })),
  role: Type.Optional(Type.Union([Type.Literal('longitude'), Type.Literal('latitude'), Type.Literal('geometry')])),
  extra: Type.Optional(Type.Boolean({ description: 'Spatial: the geometry is in a field past the header’s columns.' })),
});

// The shared shape: `rows: [1, N]` on the content (records from 1 after the header; absent
// when there are none: the n-th row or feature is record n), `rows: [n, n]` on a feature.
const Tabular = Type.Object(
  {
    provenance: ProvenanceSchema,
    columns: Type.Array(Column),
    rowCount: Type.Integer({ minimum: 0 }),
    rows: Type.Array(Type.Array(Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()])), {
      description: 'One array per record, a value per column (null when empty); extra values of a longer row follow the last column.',
    }),
  },
  { title: 'Tabular' },
);

const Spatial = Type.Object(
  {
    provenance: ProvenanceSchema,
    geometrySource: Type.Union([
      Type.Object({ kind: Type.Literal('lonlat'), lonColumn: Type.String(), latColumn: Type.String() }),
      Type.Object({ kind: Type.Union([Type.Literal('wkt'), Type.Literal('geojson')]), column: Type.String() }),
    ]),
    crs: Type.String(),
    featureCount: Type.Integer({ minimum: 0 }),
    columns: Type.Array(Column),
    features: Type.Array(
      Type.Object({
        type: Type.Literal('Feature'),
        geometry: Type.Union([Type.Object({ type: Type.String() }, { additionalProperties: true }), Type.Null()], {
          description: 'GeoJSON geometry; null when the record has none or it could not be read (see completeness.features).',
        }),
        properties: Type.Record(Type.String(), Type.Unknown()),
        provenance: ProvenanceSchema,
      }),
    ),
    bounds: Type.Union([Type.Tuple([Type.Number(), Type.Number(), Type.Number(), Type.Number()]), Type.Null()]),
    geometryTypes: Type.Record(Type.String(), Type.Integer({ minimum: 1 })),
  },
  { title: 'Spatial' },
);

export const CsvContent = Type.Union([Tabular, Spatial], { description: 'Tabular (csvRoute=Tabular) or Spatial (csvRoute=Spatial) content.' });
export type CsvContentT = Static<typeof CsvContent>;
